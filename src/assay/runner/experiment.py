"""`assay run`: targets answer, evaluators score, everything is traced and stored as it happens.

Per sample — (item, target, epoch) — the target is called (unless a resumed run already has its
answer), the answer and its spans are committed, then the evaluators that have no result yet run
and their results and spans are committed. Commits are grouped: every sample that finishes in
the same turn of the event loop shares one transaction, so a SIGKILL loses only samples in
flight, at the cost of one small transaction per loop turn rather than per row.

Resume (`--resume RUN`) rebuilds the run from its manifest and skips every stored answer and
result; retry deletes the failed ones first, so only they are done again.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import Engine

from assay.core.errors import AssayError, ConfigError
from assay.core.types import Answer, Item, Score, ScoreStatus, TruthSnapshot
from assay.datasets.loader import Dataset, load_dataset
from assay.evaluators.base import Evaluator
from assay.evaluators.build import EvaluatorFactory
from assay.report.summary import Summary
from assay.store import lease, repo
from assay.store.db import RawJSON
from assay.store.reviews import stored_evidence
from assay.targets.base import Target
from assay.targets.build import build_target
from assay.truth.capture import Capture, TruthConfig, with_truth

from .gc_tuning import long_lived_data_frozen
from .manifest import build_manifest
from .otlp import endpoint_from_env, export_spans
from .spec import ExperimentSpec, parse_spec
from .stop import deferred_interrupt
from .trace import Trace, to_datetime

Sample = tuple[Item, Target, int]


@dataclass
class Progress:
    """Counters the CLI shows while a run goes on."""

    total: int = 0
    done: int = 0
    skipped: int = 0  # finished in an earlier attempt of this run (resume)
    errors: int = 0
    tokens: int = 0
    on_change: Callable[[Progress], None] | None = None

    def tick(self) -> None:
        if self.on_change is not None:
            self.on_change(self)


@dataclass
class RunResult:
    run_id: str
    status: str
    spec: ExperimentSpec
    total: int
    done: int
    summary: Summary = field(default_factory=Summary)
    otlp: str | None = None  # what happened to the OTLP export, when one was configured


@dataclass
class Overrides:
    """CLI flags that override the spec; stored in the manifest so a resume applies them too."""

    limit: int | None = None
    concurrency: int | None = None
    targets: list[str] = field(default_factory=list)
    evaluators: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v not in (None, [])}


def select_items(dataset: Dataset, spec: ExperimentSpec, limit: int | None) -> list[Item]:
    """Filter (field equals a value, or is one of a list), then a seeded sample, then the first
    N — each in the dataset's own order, so a selection is reproducible from the manifest."""
    ds = spec.dataset
    chosen = dataset.items
    for name, wanted in ds.filter.items():
        allowed = {str(w) for w in wanted} if isinstance(wanted, list) else {str(wanted)}

        def keep(it: Item, name: str = name, allowed: set[str] = allowed) -> bool:
            value = it.fields.get(name)
            values = value if isinstance(value, list) else [value]
            return any(str(v) in allowed for v in values if v is not None)

        chosen = [it for it in chosen if keep(it)]
    if ds.sample is not None and ds.sample < len(chosen):
        picked = set(random.Random(ds.seed).sample(range(len(chosen)), ds.sample))
        chosen = [it for n, it in enumerate(chosen) if n in picked]
    limit = limit or ds.limit
    return chosen[:limit] if limit else chosen


def apply_overrides(spec: ExperimentSpec, o: Overrides) -> ExperimentSpec:
    if o.concurrency is not None:
        spec.concurrency = o.concurrency
    if o.targets:
        known = {t.name for t in spec.targets}
        unknown = [t for t in o.targets if t not in known]
        if unknown:
            raise ConfigError(f"--target {unknown[0]}: the spec has targets "
                              f"{', '.join(sorted(known))}")
        spec.targets = [t for t in spec.targets if t.name in o.targets]
    if o.evaluators:
        from .spec import EvaluatorSpec

        spec.evaluators = [EvaluatorSpec(e) for e in o.evaluators]
    return spec


class GroupCommit:
    """Rows of finished samples, written in one transaction per event-loop turn."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.rows: dict[str, list[dict[str, Any]]] = self._empty()
        self.pending: asyncio.Future[None] | None = None

    async def commit(self, **rows: list[dict[str, Any]]) -> None:
        for name, more in rows.items():
            self.rows[name].extend(more)
        if self.pending is None:
            loop = asyncio.get_running_loop()
            self.pending = loop.create_future()
            loop.call_soon(self._flush, self.pending)
        await asyncio.shield(self.pending)

    @staticmethod
    def _empty() -> dict[str, list[dict[str, Any]]]:
        return {"answers": [], "truth_snapshots": [], "results": [], "spans": []}

    def _flush(self, fut: asyncio.Future[None]) -> None:
        self.pending = None
        rows = self.rows
        self.rows = self._empty()
        try:
            repo.write_rows(self.engine, rows)
        except Exception as exc:  # every waiter sees the store's error
            fut.set_exception(exc)
        else:
            fut.set_result(None)


class Runner:
    def __init__(self, engine: Engine, spec: ExperimentSpec, *, run_id: str,
                 targets: list[Target], evaluators: list[Evaluator],
                 progress: Progress, capture: Capture | None = None,
                 prior_truth: dict[tuple[str, str, int], TruthSnapshot] | None = None) -> None:
        self.capture = capture
        self.prior_truth = prior_truth or {}
        self.engine = engine
        self.spec = spec
        self.run_id = run_id
        self.targets = targets
        self.evaluators = evaluators
        self.progress = progress
        self.writer = GroupCommit(engine)

    async def sample(self, item: Item, target: Target, epoch: int, prior: Answer | None,
                     done: set[str]) -> None:
        trace = Trace(self.run_id, item.id)
        t_start = time.time()
        attrs = {"target": target.name, "epoch": epoch}
        key = (item.id, target.name, epoch)
        snap = self.prior_truth.get(key)
        fetching = None
        if self.capture is not None and snap is None:
            # started with the target call: the quote is the one of the moment of the answer
            fetching = asyncio.create_task(self._fetch(item))
        if prior is None:
            answer = await self._call(target, item)
            t_end = time.time()
            tid = trace.span("target", target.name, t_start, t_end,
                             status="error" if answer.error else "ok",
                             attributes={**attrs, "type": target.kind,
                                         "latency_s": answer.latency_s, "usage": answer.usage,
                                         "error": answer.error})
            trace.requests(answer.extras.get("attempts", []), tid,
                           str(answer.extras.get("model", "")))
            truth_rows = []
            if fetching is not None:
                snap = await self._settle(item, fetching, t_end, trace, attrs)
                truth_rows.append(self._truth_row(key, snap, t_end))
            await self.writer.commit(answers=[self._answer_row(item, target, epoch, answer,
                                                               t_start, t_end)],
                                     truth_snapshots=truth_rows, spans=trace.take())
            self.progress.tokens += sum(v for k, v in answer.usage.items()
                                        if k == "total_tokens")
        else:
            answer = prior
            if fetching is not None:  # answered before a crash, truth never stored: late
                t_end = time.time()
                snap = await self._settle(item, fetching, t_end, trace, attrs)
                await self.writer.commit(truth_snapshots=[self._truth_row(key, snap, None)])
        if snap is None:
            t_truth = time.time()
            trace.span("truth", self.spec.ground_truth, t_truth, t_truth, attributes={
                **attrs, "mode": self.spec.ground_truth, "source": "item field 'ground_truth'",
                "present": item.fields.get("ground_truth") is not None})
        judged_item = item if snap is None or snap.status == "error" else with_truth(item, snap)
        failure = (snap.message or "fetch failed") if snap is not None and \
            snap.status == "error" else None
        todo = [ev for ev in self.evaluators if ev.name not in done]
        scores = await asyncio.gather(*(self._evaluate(ev, judged_item, answer, trace, attrs,
                                                       failure) for ev in todo))
        stamp = repo.now()
        rows = []
        for score in scores:
            if score.status == ScoreStatus.ERROR:
                self.progress.errors += 1
            tokens = (score.evidence or {}).get("usage", {}).get("total_tokens", 0)
            self.progress.tokens += tokens if isinstance(tokens, int) else 0
            rows.append({"run_id": self.run_id, "item_id": item.id, "target": target.name,
                         "epoch": epoch, "evaluator": score.evaluator,
                         "evaluator_version": score.evaluator_version, "score": score.value,
                         "status": str(score.status), "reason": score.reason,
                         "evidence": RawJSON(orjson.dumps(stored_evidence(score), default=str)
                                             .decode()),
                         "created_at": stamp})
        trace.span("sample", item.id, t_start, time.time(), span_id=trace.root,
                   status="error" if answer.error else "ok", attributes=attrs)
        await self.writer.commit(results=rows, spans=trace.take())
        self.progress.done += 1
        self.progress.tick()

    async def _fetch(self, item: Item) -> tuple[TruthSnapshot, float, float]:
        assert self.capture is not None
        t0 = time.time()
        snap = await self.capture.fetch(item)
        return snap, t0, time.time()

    async def _settle(self, item: Item, fetching: asyncio.Task[tuple[TruthSnapshot, float,
                                                                       float]],
                      answered: float, trace: Trace, attrs: dict[str, Any]) -> TruthSnapshot:
        """The fetched snapshot, fetched again if it came more than the window before the
        answer (a slow target); its span records provider, query and the gap."""
        assert self.capture is not None
        snap, t0, t1 = await fetching
        window = self.capture.cfg.window_s
        if self.capture.cfg.mode == "live" and answered - snap.fetched_at.timestamp() > window:
            snap, t0, t1 = await self._fetch(item)
        gap = snap.fetched_at.timestamp() - answered
        trace.span("truth", snap.provider, t0, t1, status="error" if snap.status == "error"
                   else "ok", attributes={**attrs, "mode": self.capture.cfg.mode,
                                          "instrument": snap.instrument, "query": snap.query,
                                          "status": snap.status, "message": snap.message,
                                          "gap_s": round(gap, 3)})
        return snap

    def _truth_row(self, key: tuple[str, str, int], snap: TruthSnapshot,
                   answered: float | None) -> dict[str, Any]:
        assert self.capture is not None
        return {"run_id": self.run_id, "item_id": key[0], "target": key[1], "epoch": key[2],
                "mode": self.capture.cfg.mode, "provider": snap.provider,
                "instrument": snap.instrument, "market": snap.market, "query": snap.query,
                "fetched_at": snap.fetched_at,
                "answered_at": to_datetime(answered) if answered is not None else None,
                "gap_s": None if answered is None else round(
                    snap.fetched_at.timestamp() - answered, 3),
                "status": snap.status, "message": snap.message,
                "fields": RawJSON(orjson.dumps(snap.fields, default=str).decode()),
                "source_fields": RawJSON(orjson.dumps(snap.source_fields,
                                                      default=str).decode()),
                "payload": RawJSON(orjson.dumps(snap.payload, default=str).decode())}

    async def _call(self, target: Target, item: Item) -> Answer:
        try:
            if self.spec.timeout_s is None:
                return await target.answer(item)
            return await asyncio.wait_for(target.answer(item), self.spec.timeout_s)
        except TimeoutError:
            return Answer(None, error=f"item timeout after {self.spec.timeout_s:g} s")
        except AssayError:
            raise
        except Exception as exc:  # a target's bug costs its item, not the run
            return Answer(None, error=f"target failed: {type(exc).__name__}: {exc}")

    def _answer_row(self, item: Item, target: Target, epoch: int, answer: Answer,
                    t_start: float, t_end: float) -> dict[str, Any]:
        extras = dict(answer.extras)
        if answer.raw is not None:
            extras["raw"] = answer.raw
        if answer.error:
            self.progress.errors += 1
        return {"run_id": self.run_id, "item_id": item.id, "target": target.name,
                "epoch": epoch, "text": answer.text, "error": answer.error,
                "latency_s": answer.latency_s, "usage": answer.usage,
                "extras": RawJSON(orjson.dumps(extras, default=str).decode()),
                "started_at": to_datetime(t_start), "finished_at": to_datetime(t_end)}

    async def _evaluate(self, ev: Evaluator, item: Item, answer: Answer, trace: Trace,
                        attrs: dict[str, Any], truth_failure: str | None = None) -> Score:
        t0 = time.time()
        if answer.error is not None:
            score = Score(None, ScoreStatus.ERROR, f"no answer: {answer.error}", ev.name,
                          ev.version)
        elif truth_failure is not None and "ground_truth" in ev.requires:
            score = Score(None, ScoreStatus.ERROR, f"ground truth unavailable: {truth_failure}",
                          ev.name, ev.version)
        else:
            score = await evaluate_one(ev, item, answer)
        t1 = time.time()
        sid = trace.span("evaluator", ev.name, t0, t1,
                         status="error" if score.status == ScoreStatus.ERROR else "ok",
                         attributes={**attrs, "status": str(score.status),
                                     "score": score.value, "version": ev.version})
        ev_data = score.evidence or {}
        timing = ev_data.get("timing")
        if isinstance(timing, dict):
            r0, r1 = timing.get("render", [None, None])
            if r0 is not None:
                trace.span("render", ev.name, r0, r1, parent=sid)
            trace.requests(ev_data.get("attempts", []), sid,
                           str((ev_data.get("model") or {}).get("name", "")))
            if timing.get("parse_start") is not None:
                trace.span("parse", ev.name, timing["parse_start"], t1, parent=sid,
                           attributes={"how": (ev_data.get("parsed") or {}).get("how")})
        return score


def truth_from_row(t: dict[str, Any]) -> TruthSnapshot:
    return TruthSnapshot(t["provider"], t["instrument"], t["query"], _aware(t["fetched_at"]),
                         t["status"], t["fields"] or {}, t["source_fields"] or {}, None,
                         t["message"], t["market"], t["payload"])


async def evaluate_one(ev: Evaluator, item: Item, answer: Answer) -> Score:
    lacking = [name for name in ev.requires if name not in item.fields]
    if lacking:
        return Score(None, ScoreStatus.ERROR, f"item has no field "
                     f"{', '.join(repr(n) for n in lacking)} (line {item.line})", ev.name,
                     ev.version)
    try:
        aevaluate = getattr(ev, "aevaluate", None)
        if aevaluate is not None:
            result: Score = await aevaluate(item, answer)
            return result
        return ev.evaluate(item, answer)
    except AssayError:
        raise
    except Exception as exc:  # an evaluator's bug costs one result, not the run
        return Score(None, ScoreStatus.ERROR, f"evaluator failed: {type(exc).__name__}: {exc}",
                     ev.name, ev.version)


def _check_fillable(targets: Sequence[Target], evaluators: Sequence[Evaluator],
                    items: Sequence[Item], path: str) -> None:
    """Every prompt a target or judge will send must be fillable before any call is made."""
    for t in targets:
        build = getattr(t, "messages", None) or getattr(t, "request_body", None)
        if build is None:
            continue
        for item in items:
            try:
                build(item)
            except ConfigError as exc:
                raise ConfigError(f"{path}: {exc}") from None
    for ev in evaluators:
        messages = getattr(ev, "messages", None)
        if messages is None:
            continue
        for item in items:
            if all(n in item.fields for n in ev.requires):
                try:
                    messages(item, Answer("…"))
                except ConfigError as exc:
                    raise ConfigError(f"{path}: {exc}") from None


async def run_experiment(engine: Engine, spec: ExperimentSpec | None, *,
                         overrides: Overrides | None = None, resume: str | None = None,
                         models_file: Path | None = None, use_cache: bool = True,
                         progress: Progress | None = None) -> RunResult:
    """One owner per run (store/lease.py): a run another process is working on is refused,
    in one line, before anything is read or sent."""
    run_id = resume or "r-" + uuid.uuid4().hex[:12]
    with lease.held(engine, run_id, new=resume is None):
        return await _run_experiment(engine, spec, run_id=run_id, overrides=overrides,
                                     resume=resume, models_file=models_file,
                                     use_cache=use_cache, progress=progress)


async def _run_experiment(engine: Engine, spec: ExperimentSpec | None, *, run_id: str,
                          overrides: Overrides | None, resume: str | None,
                          models_file: Path | None, use_cache: bool,
                          progress: Progress | None) -> RunResult:
    overrides = overrides or Overrides()
    progress = progress or Progress()
    prior_answers: dict[tuple[str, str, int], Answer] = {}
    prior_results: dict[tuple[str, str, int], set[str]] = {}
    resumed_version: str | None = None
    exported_until: str | None = None  # newest span already sent over OTLP, for this run
    if resume is not None:
        row = repo.get_run(engine, resume)
        if row is None:
            raise ConfigError(f"no run '{resume}' in this store")
        if row["kind"] != "run":
            raise ConfigError(f"run '{resume}' is an `assay score` run; only `assay run` runs "
                              "can be resumed")
        manifest = row["manifest"]
        resumed_version = row["dataset_id"]
        exported_until = (row["summary"] or {}).get("otlp_exported_until")
        spec = parse_spec(manifest["spec"], Path(manifest["spec_path"]))
        overrides = Overrides(**manifest.get("overrides", {}))
        for a in repo.list_answers(engine, resume):
            prior_answers[(a["item_id"], a["target"], a["epoch"])] = Answer(
                a["text"], a["extras"] or {}, a["usage"] or {}, a["latency_s"], None, a["error"])
        for item_id, target, epoch, evaluator in repo.result_keys(engine, resume):
            prior_results.setdefault((item_id, target, epoch), set()).add(evaluator)
    if spec is None:
        raise ConfigError("an experiment spec is needed to start a run")
    spec = apply_overrides(spec, overrides)
    dataset = load_dataset(spec.dataset.path, field_map=spec.dataset.fields,
                           id_field=spec.dataset.id_field)
    if resumed_version is not None and dataset.version != resumed_version:
        raise ConfigError(f"{dataset.path} changed since run {resume} started (version "
                          f"{resumed_version[:12]}, now {dataset.version[:12]}); it cannot "
                          "be resumed on different data")
    chosen = select_items(dataset, spec, overrides.limit)
    factory = EvaluatorFactory(engine, use_cache=use_cache, models_file=models_file)
    targets: list[Target] = []
    try:
        targets = [build_target(t, client=factory.client, base=spec.base) for t in spec.targets]
        evaluators = [factory.build(e.name, e.mapping) for e in spec.evaluators]
        names = [ev.name for ev in evaluators]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ConfigError(f"evaluator given more than once: {', '.join(twice)}")
        _check_fillable(targets, evaluators, chosen, str(dataset.path))
        truth_cfg = TruthConfig.parse(spec.ground_truth, spec.truth, spec.base)
        capture = Capture(truth_cfg) if truth_cfg.mode != "stored" else None
        if resume is None:
            manifest = build_manifest(
                kind="run", name=spec.name, spec=spec.raw, spec_path=str(spec.path.resolve()),
                overrides=overrides.as_dict(),
                dataset={"path": dataset.path, "version": dataset.version,
                         "items": len(dataset.items), "selected": len(chosen),
                         "filter": spec.dataset.filter, "sample": spec.dataset.sample,
                         "limit": overrides.limit or spec.dataset.limit},
                targets={t.name: t.public() for t in targets},
                models=factory.public_models(),
                evaluators=[{"name": ev.name, "version": ev.version} for ev in evaluators],
                seed=spec.dataset.seed, repeats=spec.repeats, concurrency=spec.concurrency,
                ground_truth={"mode": truth_cfg.mode, "provider": truth_cfg.provider
                              if capture else None, "field": truth_cfg.code_field,
                              "market": truth_cfg.market, "window_s": truth_cfg.window_s,
                              "snapshots": str(truth_cfg.snapshots) if truth_cfg.snapshots
                              else None, "date": truth_cfg.date},
                tags=spec.tags)
            repo.save_dataset(engine, version=dataset.version, name=dataset.name,
                              path=dataset.path, fmt=dataset.format, rows=dataset.items)
            repo.create_run(engine, run_id=run_id, kind="run", dataset_id=dataset.version,
                            manifest=manifest)
        else:
            repo.set_run_status(engine, run_id, "running")
        prior_truth = {(t["item_id"], t["target"], t["epoch"]): truth_from_row(t)
                       for t in repo.list_truth(engine, run_id)} if resume else {}
        runner = Runner(engine, spec, run_id=run_id, targets=targets, evaluators=evaluators,
                        progress=progress, capture=capture, prior_truth=prior_truth)
        all_names = {ev.name for ev in evaluators}

        def work() -> Iterator[tuple[Item, Target, int, Answer | None, set[str]]]:
            for epoch in range(spec.repeats):
                for target in targets:
                    for item in chosen:
                        key = (item.id, target.name, epoch)
                        done = prior_results.get(key, set())
                        prior = prior_answers.get(key)
                        if prior is not None and all_names <= done:
                            continue
                        yield item, target, epoch, prior, done

        progress.total = len(chosen) * len(targets) * spec.repeats
        todo = list(work())
        progress.skipped = progress.total - len(todo)
        progress.done = progress.skipped
        progress.tick()
        status = "failed"
        try:
            with deferred_interrupt() as stop, long_lived_data_frozen():
                queue = iter(todo)

                async def worker() -> None:
                    while not stop.requested:
                        nxt = next(queue, None)
                        if nxt is None:
                            return
                        await runner.sample(*nxt)

                await asyncio.gather(*(worker() for _ in range(spec.concurrency)))
                status = "interrupted" if stop.requested else "finished"
        finally:
            summary = summarize(engine, run_id, {it.id: it for it in chosen}, spec.group_by)
            repo.finish_run(engine, run_id, status, {
                "samples": progress.total, "samples_done": progress.done,
                **summary.as_dict(), **({"otlp_exported_until": exported_until}
                                        if exported_until else {})})
    finally:
        for t in targets:
            await t.close()
        await factory.close()
    result = RunResult(run_id, status, spec, progress.total, progress.done, summary)
    endpoint = spec.otlp or endpoint_from_env()
    if endpoint:
        # every span not sent yet: a run killed before its export, or whose collector refused
        # it, sends its earlier spans with the next resume; none is sent twice
        since = datetime.fromisoformat(exported_until) if exported_until else None
        rows = [s for s in repo.list_spans(engine, run_id)
                if since is None or _aware(s["start_at"]) > since]
        try:
            sent = await asyncio.to_thread(export_spans, rows, endpoint, run_id=run_id)
            result.otlp = f"{sent} spans sent to {endpoint}"
            if rows:
                newest = max(_aware(s["start_at"]) for s in rows).isoformat()
                repo.merge_summary(engine, run_id, {"otlp_exported_until": newest})
        except ConfigError as exc:  # the run is stored; a collector's refusal is reported
            result.otlp = f"OTLP export failed: {exc}"
    return result


def _aware(t: Any) -> Any:
    from datetime import UTC

    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def summarize(engine: Engine, run_id: str, items: dict[str, Item], group_by: str) -> Summary:
    """The run's summary from what is stored (so a resumed run counts its earlier work):
    one row per evaluator, or per target and evaluator when the run has several targets.
    Only the columns it needs are read: evidence (judge prompts) can be ~10 KB a row."""
    rows = repo.result_scores(engine, run_id)
    several = len({r[1] for r in rows}) > 1
    summary = Summary()
    for item_id, target, evaluator, status, score, cost in rows:
        name = f"{target} · {evaluator}" if several else evaluator
        item = items.get(item_id)
        summary.add(name, item.get(group_by) if item else None, status, score, cost)
    return summary
