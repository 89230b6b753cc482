"""`executor: ray`: the heavy, local parts of a run on a Ray cluster; everything else as before.

What moves: Python, command and baseline targets, and code evaluators (deterministic, built
without the run's context: `finance-rubric`). Each Ray worker is an async actor that rebuilds
them once, from the same registry build records the manifest keeps, and then answers batches of
calls. What stays in the coordinator's event loop: model and HTTP targets, recorded answers, LLM
judges and hybrids (they wait on the network, which one loop does well), the ground truth, the
traces and every write to the store — so resume, retry, replay and traces work unchanged.

Calls are batched per event-loop turn and spread over the workers by load: one remote call
carries many rubric checks, so Ray's per-call cost (~1 ms) is paid per batch, not per answer.
A worker that dies (killed, out of memory, its node lost) is restarted by Ray
(`max_restarts=-1`); the batches it held are sent again, here rather than by Ray's
`max_task_retries`, so the run can count them (`samples_retried` in the run's counts). A sample
is stored only when its call returns, by the coordinator alone: a retried sample is never stored
twice and never lost.

Ray is imported only here, and this module only when a spec asks for it."""

from __future__ import annotations

import asyncio
import logging
import math
import os
import socket
import time
from collections.abc import Awaitable
from dataclasses import replace
from pathlib import Path
from typing import Any

from assay.core.errors import ConfigError
from assay.core.registry import Built, built_from
from assay.core.types import Answer, Item, Score, Step, TruthSnapshot
from assay.evaluators.base import Evaluator
from assay.evaluators.registry import EVALUATORS
from assay.targets.base import Target

from .executor_spec import ExecutorSpec

# Target types whose work is local computation; the others wait on a network or read a file.
MOVED_TARGETS = ("python", "command", "baseline-quote-agent")
MAX_BATCH = 512  # calls per remote call: large enough to amortize it, small enough to spread
ATTEMPTS = 4  # sends of one batch before its samples fail with the worker's loss
DOWN_S = 2.0  # after a worker is lost, batches go to the others this long (it is restarting)

Outcome = tuple[bool, Any]  # (True, value) or (False, the exception the call raised)


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError("the ray executor needs the 'ray' package: "
                          "pip install 'assay-eval[ray]'") from None
    return ray


class WorkerLost(RuntimeError):
    """Every send of a batch found its worker gone: the samples fail, the run goes on."""


async def _outcome(call: Awaitable[Any]) -> Outcome:
    try:
        return True, await call
    except Exception as exc:  # the coordinator raises it in the sample's own await
        return False, exc


def _no_model(name: str) -> Any:
    raise ConfigError(f"model '{name}': model clients stay in the coordinator, not on a Ray "
                      "worker")


class Worker:
    """One Ray actor. Built once per worker process (and again after a restart) from build
    records, so a heavy target stays loaded between calls."""

    def __init__(self, targets: dict[str, dict[str, Any]],
                 evaluators: dict[str, dict[str, Any]], base: str) -> None:
        from assay.targets.build import rebuild_target

        self.targets = {k: rebuild_target(r, client=_no_model, base=Path(base))
                        for k, r in targets.items()}
        self.evaluators: dict[str, Evaluator] = {k: EVALUATORS.rebuild(r)
                                                 for k, r in evaluators.items()}
        self.place = {"host": socket.gethostname(), "pid": os.getpid()}
        self.items = 0
        self.busy_s = 0.0

    def placement(self) -> dict[str, Any]:
        return self.place

    def stats(self) -> dict[str, Any]:
        """Calls this process answered and the seconds it spent on them (for the bench)."""
        return {**self.place, "items": self.items, "busy_s": self.busy_s}

    async def answer(self, key: str, items: list[Item]) -> tuple[list[Outcome], dict[str, Any]]:
        target = self.targets[key]
        t0 = time.perf_counter()
        outs = await asyncio.gather(*(_outcome(target.answer(it)) for it in items))
        self.items += len(items)
        self.busy_s += time.perf_counter() - t0
        return list(outs), self.place

    async def evaluate(self, key: str, calls: list[tuple[Item, Answer, TruthSnapshot | None]]
                       ) -> tuple[list[Outcome], dict[str, Any]]:
        ev = self.evaluators[key]
        t0 = time.perf_counter()
        # a code evaluator never suspends: one after the other, no task per call
        outs = [await _outcome(ev.evaluate(item, answer, truth)) for item, answer, truth in calls]
        self.items += len(calls)
        self.busy_s += time.perf_counter() - t0
        return outs, self.place


class Pool:
    """The run's actors, the load each holds, and the batches sent again after a loss."""

    def __init__(self, ray: Any, actors: list[Any]) -> None:
        self.ray = ray
        self.actors = actors
        self.load = [0] * len(actors)
        self.down_until = [0.0] * len(actors)
        self.retried = 0  # calls sent again because their worker was lost
        self.tasks: set[asyncio.Task[None]] = set()

    def _pick(self) -> int:
        now = time.monotonic()
        up = [i for i in range(len(self.actors)) if self.down_until[i] <= now]
        return min(up or range(len(self.actors)), key=self.load.__getitem__)

    def send(self, method: str, key: str, batch: list[tuple[Any, asyncio.Future[Any]]]) -> None:
        task = asyncio.get_running_loop().create_task(self._send(method, key, batch))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _send(self, method: str, key: str,
                    batch: list[tuple[Any, asyncio.Future[Any]]]) -> None:
        from ray.exceptions import RayActorError

        payloads = [p for p, _ in batch]
        lost: Exception | None = None
        for attempt in range(ATTEMPTS):
            i = self._pick()
            self.load[i] += len(batch)
            try:
                outs, place = await getattr(self.actors[i], method).remote(key, payloads)
            except RayActorError as exc:  # the worker died with the batch: send it again
                if attempt == 0:
                    self.retried += len(batch)
                self.down_until[i] = time.monotonic() + DOWN_S
                lost = exc
                await asyncio.sleep(0.25 * (attempt + 1))
                continue
            except Exception as exc:  # not a lost worker: every sample of the batch sees it
                _fail(batch, exc)
                return
            finally:
                self.load[i] -= len(batch)
            for (_, fut), (ok, value) in zip(batch, outs, strict=True):
                if fut.done():  # its sample timed out meanwhile
                    continue
                if ok:
                    fut.set_result((value, place))
                else:
                    fut.set_exception(value)
            return
        _fail(batch, WorkerLost(f"its Ray worker was lost {ATTEMPTS} times ({lost})"))


def _fail(batch: list[tuple[Any, asyncio.Future[Any]]], exc: BaseException) -> None:
    for _, fut in batch:
        if not fut.done():
            fut.set_exception(exc)


class Batcher:
    """Calls of one method on one component, gathered for an event-loop turn and sent as
    batches spread over the workers."""

    def __init__(self, pool: Pool, method: str, key: str) -> None:
        self.pool = pool
        self.method = method
        self.key = key
        self.pending: list[tuple[Any, asyncio.Future[Any]]] = []

    async def call(self, payload: Any) -> tuple[Any, dict[str, Any]]:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()
        if not self.pending:
            loop.call_soon(self._flush)
        self.pending.append((payload, fut))
        return await fut  # type: ignore[no-any-return]

    def _flush(self) -> None:
        pending, self.pending = self.pending, []
        size = min(MAX_BATCH, math.ceil(len(pending) / len(self.pool.actors)))
        for start in range(0, len(pending), size):
            self.pool.send(self.method, self.key, pending[start:start + size])


class RemoteTarget:
    """A target whose answers come from the workers; to the pipeline it is the target."""

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


class RemoteEvaluator:
    """A code evaluator run on the workers; to the pipeline it is the evaluator."""

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
    record = built_from(target)
    return record if record is not None and record.name in MOVED_TARGETS else None


def movable_evaluator(ev: Evaluator) -> Built | None:
    record = built_from(ev)
    if record is None or not ev.deterministic:
        return None
    try:
        context = EVALUATORS.entry(record.name).context
    except ConfigError:
        return None
    return None if context else record  # one built from the run's context needs the run


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
                    base: Path) -> tuple[list[Target], list[Evaluator]]:
        """The run's targets and evaluators, those that move replaced by their remote twins;
        the workers are started and have built theirs before this returns, so a part that
        cannot be built on a worker stops the run before any sample."""
        t_records = {str(i): r for i, t in enumerate(targets)
                     if (r := movable_target(t)) is not None}
        e_records = {str(i): r for i, ev in enumerate(evaluators)
                     if (r := movable_evaluator(ev)) is not None}
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
                                   str(base.resolve()))
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
