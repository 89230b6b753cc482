"""One run engine for `assay run`, `assay score`, resume and the Python API.

A run is a spec (dataset, targets, evaluators, ground truth) executed sample by sample through
the one `SamplePipeline`, with a commit policy: `group` (a transaction per event-loop turn,
for runs that call targets) or `batch` (thousands of rows per transaction, for recorded
answers). Resume (`--resume RUN`) rebuilds the run from its manifest and skips every stored
answer and result; retry deletes the failed ones first, so only they are done again.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.core.costs import CostSheet
from assay.core.errors import ConfigError
from assay.core.tally import Summary
from assay.core.types import is_conversation
from assay.datasets.loader import load_dataset
from assay.datasets.named import load_named, parse_ref
from assay.datasets.select import select_items
from assay.models.budget import Budget, BudgetExceeded
from assay.store import lease, repo
from assay.store.costs import run_cost_sheet
from assay.store.dataset_names import NamedVersion
from assay.store.db import Engine
from assay.targets.base import Target
from assay.targets.build import build_target
from assay.traces.otlp_out import endpoint_from_env, export_new_spans
from assay.truth.capture import Capture, TruthConfig

from .checks import check_answers, check_evaluators, check_fillable
from .commit import BatchCommit, GroupCommit
from .gc_tuning import building_long_lived_data, long_lived_data_frozen
from .manifest import build_manifest
from .overrides import Overrides, apply_overrides
from .pipeline import Progress, SamplePipeline
from .resume import Prior, load_prior
from .scope import applies_per_item, check_scope
from .session import RunSession, built, evaluator_records, ground_truth_record
from .spec import ExperimentSpec
from .spending import budget_record, run_budget
from .stop import deferred_interrupt
from .work import Work, work_list

if TYPE_CHECKING:  # imported when a spec asks for it (it is cheap; Ray itself is not)
    from .ray.executor import RayExecutor

OnFlush = Callable[[list[dict[str, Any]]], None]


@dataclass
class RunResult:
    run_id: str
    status: str
    spec: ExperimentSpec
    total: int
    done: int
    summary: Summary = field(default_factory=Summary)
    otlp: str | None = None  # what happened to the OTLP export, when one was configured
    kind: str = "run"
    dataset_name: str = ""
    stop_reason: str | None = None  # interrupted by: "budget" or "signal" (Ctrl-C)
    budget: dict[str, Any] = field(default_factory=dict)  # usd, spent, refused
    costs: CostSheet | None = None  # None: no priced model took part
    notes: list[str] = field(default_factory=list)  # what the user should know (one line each)
    # conversations per outcome, per target (none when the run had no conversation item)
    outcomes: dict[str, dict[str, int]] = field(default_factory=dict)


async def run_experiment(engine: Engine, spec: ExperimentSpec | None, *,
                         overrides: Overrides | None = None, resume: str | None = None,
                         models_file: Path | None = None, use_cache: bool = True,
                         progress: Progress | None = None, kind: str = "run",
                         on_flush: OnFlush | None = None,
                         run_id: str | None = None, max_cost: float | None = None,
                         timeout_s: float | None = None) -> RunResult:
    """One owner per run (store/lease.py): a run another process is working on is refused,
    in one line, before anything is read or sent. `timeout_s` replaces the spec's for this
    start or continuation (`--timeout`)."""
    if run_id is not None and resume is None:
        check_new_run_id(engine, run_id)
    run_id = resume or run_id or (("s-" if kind == "score" else "r-") + uuid.uuid4().hex[:12])
    prior: Prior | None = None
    with lease.held(engine, run_id, new=resume is None):
        if resume is not None:
            prior = load_prior(engine, resume)
            spec, overrides, kind = prior.spec, prior.overrides, prior.kind
        if spec is None:
            raise ConfigError("an experiment spec is needed to start a run")
        async with RunSession.open(engine, run_id, new=None, judge_model=spec.judge_model,
                                   use_cache=use_cache, models_file=models_file) as session:
            return await _run(session, spec, prior, overrides=overrides, progress=progress,
                              kind=kind, on_flush=on_flush, max_cost=max_cost,
                              timeout_s=timeout_s)


RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def check_new_run_id(engine: Engine, run_id: str) -> None:
    """A run id chosen by the user (`--run-id`): a short plain name no run has yet."""
    if not RUN_ID.match(run_id):
        raise ConfigError(f"--run-id '{run_id[:80]}': use up to 64 letters, digits, '.', '_' "
                          "or '-', starting with a letter or digit")
    if repo.get_run(engine, run_id) is not None:
        raise ConfigError(f"run {run_id} exists in the store {repo.store_name(engine)}: choose "
                          f"another --run-id, or continue it with --resume {run_id}")


async def _run(session: RunSession, spec: ExperimentSpec, prior: Prior | None, *,
               overrides: Overrides | None, progress: Progress | None, kind: str,
               on_flush: OnFlush | None, max_cost: float | None = None,
               timeout_s: float | None = None) -> RunResult:
    engine, run_id, factory = session.engine, session.run_id, session.factory
    resume = run_id if prior is not None else None
    progress = progress or Progress()
    overrides = overrides or Overrides()
    if timeout_s is not None:  # an override like the start's, kept for the next resume and
        overrides = replace(overrides, timeout_s=timeout_s)  # a replay to bound checks alike
        if prior is not None:
            repo.merge_overrides(engine, run_id, {"timeout_s": timeout_s})
    spec = apply_overrides(spec, overrides)
    named: NamedVersion | None = None
    if spec.dataset.name is not None:  # items from the store, as the version was added
        version = spec.dataset.version
        pinned = (prior.manifest.get("dataset") or {}).get("ref") if prior else None
        if pinned:  # a resume runs the version its run started on, not a newer latest
            version = parse_ref(str(pinned))[1]
        with building_long_lived_data():
            dataset, named = load_named(engine, spec.dataset.name, version)
    else:
        with building_long_lived_data():
            dataset = load_dataset(spec.dataset.path, field_map=spec.dataset.fields,
                                   id_field=spec.dataset.id_field)
    if prior is not None and dataset.version != prior.dataset_version:
        raise ConfigError(f"{dataset.path} changed since run {resume} started (version "
                          f"{prior.dataset_version[:12]}, now {dataset.version[:12]}); it "
                          "cannot be resumed on different data")
    ds = spec.dataset
    chosen = select_items(dataset.items, filter=ds.filter, sample=ds.sample, seed=ds.seed,
                          limit=overrides.limit or ds.limit)
    targets: list[Target] = []
    executor: RayExecutor | None = None  # when the spec says executor: ray
    try:
        targets = [build_target(t, client=factory.client, base=spec.base) for t in spec.targets]
        evaluators = session.evaluators(spec.evaluators)
        scope = session.scope(spec.evaluators, evaluators)
        truth_cfg = TruthConfig.parse(spec.ground_truth, spec.truth, spec.base)
        capture = Capture(truth_cfg) if truth_cfg.mode != "stored" else None
        where = _display(dataset.path)
        # conversation items are checked as the turns they will be answered and judged as;
        # the conversation modules are imported for a dataset that has some (a tenth of a
        # second of every other run's start-up)
        talks = [it for it in chosen if is_conversation(it)]
        simulators = _simulator_models(talks, factory.client, where)
        checked = chosen
        if talks:
            from assay.core.conversation import probe_items

            checked = probe_items(chosen)
        # Without a condition or an item naming its evaluators, nothing is asked per item: a
        # 100,000-item score run paid ~12 k instructions an item for asking (BENCHMARKS.md);
        # a conversation's turns may name theirs
        per_item = applies_per_item(scope, checked)
        active = scope if per_item else None
        check_evaluators(evaluators, checked, where, truth_captured=capture is not None,
                         scope=active)
        notes = check_scope(scope, [ev.name for ev in evaluators], checked, where) \
            if per_item else []
        notes += check_answers(targets, checked, where)
        check_fillable(targets, evaluators, checked, where, scope=active)
        if spec.jury is not None and sum(not ev.deterministic for ev in evaluators) < 2:
            judges = [ev.name for ev in evaluators if not ev.deterministic]
            raise ConfigError(f"--jury {spec.jury} needs two or more model judges (have "
                              f"{', '.join(judges) or 'none'})")
        # every model is built by now: an unpriced one under a budget stops the run here
        budget = run_budget(engine, run_id, spec_usd=spec.budget_usd, max_cost=max_cost,
                            resumed=prior is not None, clients=factory.clients.values())
        run_targets, run_evaluators = targets, evaluators
        if spec.executor.remote:  # imported only then: `import ray` takes seconds
            from .ray.executor import RayExecutor

            executor = RayExecutor(spec.executor)
            run_targets, run_evaluators = await executor.start(targets, evaluators, spec.base,
                                                                   spec.timeout_s)
        manifest: dict[str, Any] = {}
        if prior is None:
            manifest = build_manifest(
                kind=kind, name=spec.name, spec=spec.raw, spec_path=str(spec.path.resolve()),
                overrides=overrides.as_dict(),
                dataset={"path": dataset.path, "version": dataset.version,
                         **({"name": named.name, "ref": named.ref,
                             "source": named.source} if named else {}),
                         "items": len(dataset.items), "selected": len(chosen),
                         "filter": ds.filter, "sample": ds.sample,
                         "limit": overrides.limit or ds.limit},
                targets={t.name: {**t.public(), **built(t)} for t in targets},
                models=factory.public_models(),
                evaluators=evaluator_records(evaluators, scope),
                seed=ds.seed, repeats=spec.repeats, concurrency=spec.concurrency,
                commit=spec.commit, jury=spec.jury,
                ground_truth=ground_truth_record(truth_cfg, capture),
                **({"conversation": _conversation_record(spec, talks, simulators)}
                   if talks else {}),
                tags=spec.tags, **({"executor": {
                    "type": spec.executor.type, "address": spec.executor.address,
                    "workers": spec.executor.workers,
                    "code_evaluators": spec.executor.code_evaluators, **executor.moved}}
                    if executor is not None else {}))
            if named is None:  # a named version's items are stored already
                with building_long_lived_data():
                    repo.save_dataset(engine, version=dataset.version, name=dataset.name,
                                      path=dataset.path, fmt=dataset.format,
                                      rows=dataset.items)
        session.start(kind=kind, dataset_id=dataset.version, manifest=manifest,
                      resumed=prior is not None, dataset_ref=named.ref if named else None)
        writer = (BatchCommit(engine, on_flush) if spec.commit == "batch"
                  else GroupCommit(engine, on_flush))
        pipeline = SamplePipeline(run_id, evaluators=run_evaluators, writer=writer,
                                  progress=progress, capture=capture,
                                  prior_truth=prior.truth if prior else None,
                                  timeout_s=spec.timeout_s, truth_mode=truth_cfg.mode,
                                  jury=spec.jury, scope=active)
        if talks:
            from assay.store.conversations import conversation_turns

            from .conversation import ConversationPlayer

            pipeline.player = ConversationPlayer(
                pipeline, spec.conversation, factory.client,
                conversation_turns(engine, run_id) if prior is not None else None)
        todo = work_list(chosen, run_targets, spec.repeats, prior,
                         {ev.name for ev in evaluators})
        progress.total = len(chosen) * len(targets) * spec.repeats
        progress.skipped = progress.done = progress.total - len(todo)
        progress.tick()
        status, stop_reason = await _execute(session, pipeline, todo, spec, progress,
                                             budget, executor)
    finally:
        for t in targets:
            await t.close()
        if executor is not None:
            await executor.close()
    rows = pipeline.tallies if prior is None else repo.result_scores(engine, run_id)
    summary = session.summarize(rows, {it.id: it for it in chosen}, spec.group_by)
    costs = None
    if factory.clients:  # a run that called no model has cost nothing: no query for it
        costs = run_cost_sheet(engine, run_id)
        repo.merge_summary(engine, run_id, {"costs": costs.as_dict()})
    outcomes: dict[str, dict[str, int]] = {}
    if talks:
        from assay.store.conversations import outcome_counts

        outcomes = outcome_counts(engine, run_id)
    result = RunResult(run_id, status, spec, progress.total, progress.done, summary, kind=kind,
                       dataset_name=dataset.name, stop_reason=stop_reason,
                       budget=budget_record(budget).get("budget", {}), costs=costs,
                       notes=notes, outcomes=outcomes)
    endpoint = spec.otlp or endpoint_from_env()
    if endpoint:
        result.otlp = await export_new_spans(engine, run_id, endpoint,
                                             prior.exported_until if prior else None)
    return result


def _simulator_models(talks: list[Any], client: Callable[[str], Any], where: str
                      ) -> list[str]:
    """The models the simulated users of these conversations run on, each built now: an
    unknown one stops the run before anything is sent, and every one is in the manifest."""
    models: list[str] = []
    if not talks:
        return models
    from assay.core.conversation import plan_of

    for item in talks:
        try:
            plan = plan_of(item)
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        if plan.simulated is not None and plan.simulated.model not in models:
            try:
                client(plan.simulated.model)
            except ConfigError as exc:
                raise ConfigError(f"{where}: item {item.id} (line {item.line}): "
                                  f"simulated_user.model: {exc}") from None
            models.append(plan.simulated.model)
    return models


def _conversation_record(spec: ExperimentSpec, talks: list[Any], simulators: list[str]
                         ) -> dict[str, Any]:
    """The manifest's `conversation`: the settings, how many items, the simulated users'."""
    from .simulator import prompt_record

    return {**spec.conversation.to_json(), "items": len(talks),
            **({"simulator": {**prompt_record(), "models": simulators}} if simulators else {})}


def _display(path: str | Path) -> str:
    """A path as the user would write it: relative when under the working folder."""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(p)


async def _execute(session: RunSession, pipeline: SamplePipeline, todo: list[Work],
                   spec: ExperimentSpec, progress: Progress, budget: Budget | None,
                   executor: RayExecutor | None = None) -> tuple[str, str | None]:
    """The worker pool; on Ctrl-C — or when the budget refuses a request — no new sample
    starts, those in flight finish and are written, and the run is marked interrupted
    (resumable), with the reason."""
    status = "failed"
    reason: str | None = None
    try:
        with deferred_interrupt() as stop, long_lived_data_frozen():
            queue = iter(todo)

            chunk = pipeline.chunk(list({w.target.name: w.target for w in todo}.values()))

            async def worker() -> None:
                nonlocal reason
                while not stop.requested:
                    works = list(islice(queue, chunk))
                    if not works:
                        return
                    try:
                        await pipeline.samples(works)
                    except BudgetExceeded:  # nothing was sent for it: resume does it
                        reason = "budget"
                        stop.requested = True

            auto = executor.concurrency() if executor is not None and executor.pool \
                else auto_concurrency(pipeline)
            workers = max(1, min(spec.concurrency or auto, len(todo)))
            try:
                await asyncio.gather(*(worker() for _ in range(workers)))
            finally:
                await pipeline.writer.close()  # what finished is written, also on failure
            status = "interrupted" if stop.requested else "finished"
            if stop.requested and reason is None:
                reason = "signal"
    finally:
        counts: dict[str, Any] = {"samples": progress.total, "samples_done": progress.done,
                                  **({"stop_reason": reason} if reason else {}),
                                  **budget_record(budget)}
        if executor is not None:  # calls sent again after a Ray worker was lost
            counts["samples_retried"] = executor.retried
        session.finish(status, counts)
    return status, reason


def auto_concurrency(pipeline: SamplePipeline) -> int:
    """Samples in flight when the spec says `auto`: one when every evaluator is code (it never
    waits: more workers only add switching), else twice the largest endpoint limit, so a free
    request slot always has a sample ready; the endpoints' limiters bound the actual calls."""
    judges = [ev.concurrency for ev in pipeline.evaluators if not ev.deterministic]
    return max(16, 2 * max(judges)) if judges else 1
