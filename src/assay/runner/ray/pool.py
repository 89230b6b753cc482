"""The coordinator's side of the Ray workers: batching calls and surviving a lost worker.

Calls are batched per event-loop turn and spread over the workers by load: one remote call
carries many rubric checks, so Ray's per-call cost (~1 ms) is paid per batch, not per answer.
A worker that dies (killed, out of memory, its node lost) is restarted by Ray
(`max_restarts=-1`); the batches it held are sent again, here rather than by Ray's
`max_task_retries`, so the run can count them (`samples_retried` in the run's counts). A sample
is stored only when its call returns, by the coordinator alone: a retried sample is never stored
twice and never lost.

A lost worker gets no batches until a cheap call to it answers again. Ray restarts an actor
only where its resources are free: on the same node at once after a killed process, but after
a lost node only once another node has room — when an autoscaler has added one, minutes later,
or never. Meanwhile every call sent to it waits about 2 s and fails with
`ActorUnavailableError` (Ray 2.60, measured): batches sent there would stall their samples
and count as retried again and again.

Ray is imported here only inside a send (its exception types), never at import."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Coroutine
from typing import Any

MAX_BATCH = 512  # calls per remote call: large enough to amortize it, small enough to spread
ATTEMPTS = 4  # sends of one batch before its samples fail with the worker's loss
PROBE_S = 0.5  # between calls asking a lost worker whether Ray has restarted it

Outcome = tuple[bool, Any]  # (True, value) or (False, the exception the call raised)


class WorkerLost(RuntimeError):
    """Every send of a batch found its worker gone: the samples fail, the run goes on."""


class Pool:
    """The run's actors, the load each holds, and the batches sent again after a loss."""

    def __init__(self, ray: Any, actors: list[Any]) -> None:
        self.ray = ray
        self.actors = actors
        self.load = [0] * len(actors)
        self.down = [False] * len(actors)  # lost, and not yet seen answering again
        self.retried = 0  # calls sent again because their worker was lost
        self.tasks: set[asyncio.Task[None]] = set()

    def _pick(self) -> int:
        up = [i for i in range(len(self.actors)) if not self.down[i]]
        # every worker lost: send anyway, the call waits for a restart or fails into a retry
        return min(up or range(len(self.actors)), key=self.load.__getitem__)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def send(self, method: str, key: str, batch: list[tuple[Any, asyncio.Future[Any]]]) -> None:
        self._spawn(self._send(method, key, batch))

    def _lost(self, i: int) -> None:
        if not self.down[i]:
            self.down[i] = True
            self._spawn(self._probe(i))

    async def _probe(self, i: int) -> None:
        from ray.exceptions import RayActorError

        while True:
            try:
                await self.actors[i].placement.remote()
            except RayActorError:  # not restarted yet (or restarted while this call waited)
                await asyncio.sleep(PROBE_S)
                continue
            self.down[i] = False
            return

    async def stop(self) -> None:
        """The probes and sends still going (the run is over: nothing waits on them)."""
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

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
                self._lost(i)
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
