"""`executor: ray`: the heavy, local parts of a run on a Ray cluster; everything else as before.

What moves: the targets whose type's registration places them on the workers (their work is
local computation: Python, command and baseline targets; `placement` in targets/registry.py),
and code evaluators (deterministic, built without the run's context: `finance-rubric`). Each Ray
worker is an async actor (`ray_worker.Worker`) that rebuilds them once, from the same registry
build records the manifest keeps, and then answers batches of calls (`ray_pool`: batching, and
sending a lost worker's batches again). What stays in the coordinator's event loop: model and
HTTP targets, recorded answers, LLM judges and hybrids (they wait on the network, which one loop
does well), the ground truth, the traces and every write to the store — so resume, retry,
replay and traces work unchanged. Here: which parts move, their remote twins that the pipeline
sees, and the cluster connection and actors of one run.

Ray is imported only here and in `ray_pool` (its exception types), and these modules only when
a spec asks for it."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from assay.core.calls import BoundedElsewhere
from assay.core.errors import ConfigError
from assay.core.registry import Built, built_from, install_hint
from assay.core.types import Answer, Item, Score, Step, TruthSnapshot
from assay.evaluators.base import Evaluator
from assay.evaluators.registry import EVALUATORS
from assay.targets.base import Target
from assay.targets.registry import TARGETS, fact

from ..executor_spec import ExecutorSpec
from .pool import MAX_BATCH, Batcher, Pool
from .worker import Worker


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError("the ray executor needs the 'ray' package: "
                          + install_hint("ray")) from None
    return ray


class RemoteTarget(BoundedElsewhere):
    """A target whose answers come from the workers; to the pipeline it is the target. Each
    answer is bounded by the run's `timeout_s` on its worker (ray_worker.py)."""

    def __init__(self, local: Target, batcher: Batcher) -> None:
        self.name = local.name
        self.kind = local.kind
        self.local = local
        self.batcher = batcher

    def public(self) -> dict[str, Any]:
        return self.local.public()

    async def answer(self, item: Item) -> Answer:
        answer, place = await self.batcher.call(item)
        assert isinstance(answer, Answer)
        # kept with the answer and put on its span: which process answered
        return replace(answer, extras={**answer.extras, "ray_worker": place})

    async def close(self) -> None:  # the run closes the local one; the workers go with Ray
        return None


class RemoteEvaluator(BoundedElsewhere):
    """A code evaluator run on the workers; to the pipeline it is the evaluator. Each call is
    bounded on its worker as `evaluate` would bound it here (ray_worker.py)."""

    deterministic = True
    concurrency = 1

    def __init__(self, local: Evaluator, batcher: Batcher) -> None:
        self.name = local.name
        self.requires = local.requires
        self.uses_truth = local.uses_truth
        self.local = local
        self.batcher = batcher

    @property
    def version(self) -> str:
        return self.local.version

    def lacking(self, item: Item) -> list[str]:
        return self.local.lacking(item)

    def prompts(self, item: Item, answer: Answer) -> list[dict[str, str]] | None:
        return None

    async def evaluate(self, item: Item, answer: Answer,
                       truth: TruthSnapshot | None = None) -> Score:
        t0 = time.time()
        score, place = await self.batcher.call((item, answer, truth))
        assert isinstance(score, Score)
        step = Step("worker", f"{place['host']}:{place['pid']}", t0, time.time(),
                    attributes={"worker.host": place["host"], "worker.pid": place["pid"]})
        return replace(score, steps=(*score.steps, step))

    async def close(self) -> None:
        return None


def movable_target(target: Target) -> Built | None:
    """The build record of a target whose type's registration lets it go to the workers (its
    work is local computation: targets/registry.py); None if it stays in the coordinator."""
    record = built_from(target)
    if record is None or record.registry != TARGETS.name:
        return None
    return record if fact(record.name, "placement") == "workers" else None


def movable_evaluator(ev: Evaluator, place: str = "workers",
                      targets_moved: bool = False) -> Built | None:
    """The build record of a code evaluator that goes to the workers under `place`
    (executor_spec.PLACES); None if it stays in the coordinator."""
    record = built_from(ev)
    if record is None or not ev.deterministic or place == "coordinator":
        return None
    try:
        entry = EVALUATORS.entry(record.name)
    except ConfigError:
        return None
    if entry.context:  # one built from the run's context needs the run
        return None
    if place == "auto" and targets_moved and entry.meta.get("cost") == "microseconds":
        return None  # its trip to a worker would cost more than the check
    return record


class RayExecutor:
    """The Ray side of one run: the cluster connection, the actors and the wrapped parts."""

    def __init__(self, cfg: ExecutorSpec) -> None:
        self.cfg = cfg
        self.pool: Pool | None = None
        self.started_cluster = False
        self.moved: dict[str, list[str]] = {"targets": [], "evaluators": []}

    @property
    def retried(self) -> int:
        return self.pool.retried if self.pool is not None else 0

    def concurrency(self) -> int:
        """Samples in flight when the spec says `auto`: enough for a full batch per worker."""
        return MAX_BATCH * self.cfg.workers

    async def start(self, targets: list[Target], evaluators: list[Evaluator],
                    base: Path, timeout_s: float | None = None
                    ) -> tuple[list[Target], list[Evaluator]]:
        """The run's targets and evaluators, those that move replaced by their remote twins;
        the workers are started and have built theirs before this returns, so a part that
        cannot be built on a worker stops the run before any sample."""
        t_records = {str(i): r for i, t in enumerate(targets)
                     if (r := movable_target(t)) is not None}
        e_records = {str(i): r for i, ev in enumerate(evaluators)
                     if (r := movable_evaluator(ev, self.cfg.code_evaluators,
                                                bool(t_records))) is not None}
        if not t_records and not e_records:
            return targets, evaluators
        ray = import_ray()
        if not ray.is_initialized():
            ray.init(address=self.cfg.address, include_dashboard=False, log_to_driver=False,
                     logging_level=logging.WARNING, configure_logging=False)
            self.started_cluster = True
        actor_cls = ray.remote(num_cpus=self.cfg.cpus_per_worker, max_restarts=-1,
                               max_task_retries=0)(Worker)
        actors = [actor_cls.remote({k: r.as_dict() for k, r in t_records.items()},
                                   {k: r.as_dict() for k, r in e_records.items()},
                                   str(base.resolve()), timeout_s)
                  for _ in range(self.cfg.workers)]
        self.pool = Pool(ray, actors)
        try:
            await asyncio.gather(*(a.placement.remote() for a in actors))
        except Exception as exc:
            await self.close()
            raise ConfigError(f"the Ray workers could not build the run's targets and "
                              f"evaluators: {_first_line(exc)}") from None
        out_t: list[Target] = []
        for i, t in enumerate(targets):
            if str(i) in t_records:
                out_t.append(RemoteTarget(t, Batcher(self.pool, "answer", str(i))))
                self.moved["targets"].append(t.name)
            else:
                out_t.append(t)
        out_e: list[Evaluator] = []
        for i, ev in enumerate(evaluators):
            if str(i) in e_records:
                out_e.append(RemoteEvaluator(ev, Batcher(self.pool, "evaluate", str(i))))
                self.moved["evaluators"].append(ev.name)
            else:
                out_e.append(ev)
        return out_t, out_e

    async def stats(self) -> list[dict[str, Any]]:
        """Each worker's calls and busy seconds (the bench's per-worker figure)."""
        if self.pool is None:
            return []
        got = await asyncio.gather(*(a.stats.remote() for a in self.pool.actors))
        return list(got)

    async def close(self) -> None:
        if self.pool is not None:
            await self.pool.stop()  # first: a probe would take the killed actors for lost
            for actor in self.pool.actors:
                self.pool.ray.kill(actor)
            self.pool.actors = []
        if self.started_cluster:
            import_ray().shutdown()
            self.started_cluster = False


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    # Ray's text ends with the worker's exception (the informative part)
    return lines[-1].strip() if lines else type(exc).__name__
