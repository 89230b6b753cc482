"""One run session: what `assay run`, `assay score`, `assay watch` and `assay replay` share.

A session owns a run for its lifetime: the run's lease (store/lease.py: one owner per run),
the evaluator factory (its model clients are closed when the session ends, also on failure),
the manifest's common records (the components as built, the ground-truth set-up), the run's
row (created, or marked running again on a resume or restart), its end (status and counts)
and its summary. Before, `online/watch.py` and `replay.py` each wrote their own copy of these
steps; a fix to one (a build record, the ground-truth record) now reaches every command.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.core.errors import ConfigError
from assay.core.registry import built_from
from assay.core.tally import Summary
from assay.core.types import Item
from assay.evaluators.build import EvaluatorFactory
from assay.store import lease, repo
from assay.store.db import Engine
from assay.truth.capture import Capture, TruthConfig

from .scope import Condition, Scope


def built(component: object) -> dict[str, Any]:
    """The registry's build record (entry and arguments as plain data, never a secret), so
    replay and resume can rebuild the very component from the manifest."""
    record = built_from(component)
    return {"built": record.as_dict()} if record is not None else {}


def evaluator_records(evaluators: Sequence[Any], scope: Scope | None = None
                      ) -> list[dict[str, Any]]:
    """The manifest's `evaluators`: each one's name, version and build record, and the
    condition on the items it scores (`when`), so replay skips the items the run skipped."""
    when = scope.records() if scope is not None else {}
    return [{"name": ev.name, "version": ev.version, **built(ev),
             **({"when": when[ev.name]} if ev.name in when else {})} for ev in evaluators]


def ground_truth_record(truth: TruthConfig, capture: Capture | None) -> dict[str, Any]:
    """The manifest's `ground_truth`: how the truth an answer is judged against was set up."""
    return {"mode": truth.mode, "provider": truth.provider if capture else None,
            "field": truth.code_field, "market": truth.market, "window_s": truth.window_s,
            "snapshots": str(truth.snapshots) if truth.snapshots else None, "date": truth.date}


def run_timeout(manifest: dict[str, Any]) -> float | None:
    """The bound a run's checks had on each call, as its latest scores were made: a --timeout
    given to the run, a resume or a retry (kept in the overrides), else the spec's."""
    spec = manifest.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    timeout = (manifest.get("overrides") or {}).get("timeout_s", spec.get("timeout_s"))
    return float(timeout) if isinstance(timeout, int | float) and timeout > 0 else None


@dataclass
class RunSession:
    """A run being worked on (see the module's docstring). Open one with `RunSession.open`."""

    engine: Engine
    run_id: str
    factory: EvaluatorFactory

    @classmethod
    @asynccontextmanager
    async def open(cls, engine: Engine, run_id: str, *, new: bool | None,
                   judge_model: str | None = None, use_cache: bool = True,
                   models_file: Path | None = None, fresh: bool = False
                   ) -> AsyncIterator[RunSession]:
        """The session of `run_id`. `new`: whether the run is started here (True), continued
        (False), or only read (None: no lease, as `assay replay` reads a finished run)."""
        async with AsyncExitStack() as stack:
            if new is not None:
                stack.enter_context(lease.held(engine, run_id, new=new))
            factory = EvaluatorFactory(engine, judge_model=judge_model, use_cache=use_cache,
                                       models_file=models_file, fresh=fresh)
            stack.push_async_callback(factory.close)
            yield cls(engine, run_id, factory)

    def evaluators(self, entries: Sequence[Any]) -> list[Any]:
        """The evaluators of spec entries (each with `name`, `mapping`, `args`)."""
        return [self.factory.build(e.name, e.mapping, e.args) for e in entries]

    def scope(self, entries: Sequence[Any], evaluators: Sequence[Any]) -> Scope:
        """Which of `evaluators` (built from `entries`, in order) score which items: the
        entries' `when:` conditions (runner/scope.py)."""
        return Scope({ev.name: Condition(e.when, e.origin)
                      for e, ev in zip(entries, evaluators, strict=True)
                      if getattr(e, "when", None) is not None})

    def rebuilt(self, manifest: dict[str, Any], names: Sequence[tuple[str, dict[str, str]]]
                ) -> tuple[dict[str, Any], dict[str, str]]:
        """The run's evaluators rebuilt from the manifest's build records (by name and mapping
        where the run stored no record), and {name: why} for those that cannot be."""
        records = {e["name"]: e.get("built") for e in manifest.get("evaluators") or []}
        out: dict[str, Any] = {}
        skipped: dict[str, str] = {}
        for name, mapping in names:
            record = records.get(name)
            try:
                out[name] = (self.factory.rebuild(record) if record
                             else self.factory.build(name, mapping))
            except ConfigError as exc:  # e.g. a model no longer registered here
                skipped[name] = str(exc)
        return out, skipped

    def start(self, *, kind: str, dataset_id: str, manifest: dict[str, Any], resumed: bool,
              dataset_ref: str | None = None) -> None:
        """The run's row: created with its manifest, or marked running again."""
        if resumed:
            repo.set_run_status(self.engine, self.run_id, "running")
        else:
            repo.create_run(self.engine, run_id=self.run_id, kind=kind, dataset_id=dataset_id,
                            manifest=manifest, dataset_ref=dataset_ref)

    def finish(self, status: str, counts: dict[str, Any]) -> None:
        repo.finish_run(self.engine, self.run_id, status, counts)

    def summarize(self, rows: Sequence[tuple[Any, ...]], items: dict[str, Item],
                  group_by: str) -> Summary:
        return summarize(self.engine, self.run_id, rows, items, group_by)


def summarize(engine: Engine, run_id: str, rows: Sequence[tuple[Any, ...]],
              items: dict[str, Item], group_by: str) -> Summary:
    """The run's summary — one row per evaluator, or per target and evaluator when the run
    has several targets — from its results: those made here for a fresh run, the stored ones
    for a resumed run (so it counts its earlier work; only the columns needed are read, as
    evidence can be ~10 KB a row). Kept in the run's row for listings."""
    several = len({r[1] for r in rows}) > 1
    summary = Summary()
    for item_id, target, evaluator, status, score, cost in rows:
        name = f"{target} · {evaluator}" if several else evaluator
        item = items.get(item_id)
        summary.add(name, item.get(group_by) if item else None, status, score, cost)
    repo.merge_summary(engine, run_id, summary.as_dict())
    return summary
