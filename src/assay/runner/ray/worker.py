"""The Ray worker: one async actor per worker process, holding the run's moved targets and code
evaluators (Python, command and baseline targets; `finance-rubric`).

It rebuilds them once, from the same registry build records the manifest keeps, when Ray starts
the process — and again when Ray restarts it after a loss — so a heavy target stays loaded
between calls. Each call answers a whole batch; every call's exception is returned, not raised,
so one failing item does not fail the others of its batch. A model client is never built here:
model targets and judges stay in the coordinator.

This module imports no Ray: `ray.remote` wraps the class in the executor."""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from assay.core.calls import UserExit, within
from assay.core.errors import ConfigError
from assay.core.types import Answer, Item, TruthSnapshot
from assay.evaluators.base import Evaluator
from assay.evaluators.registry import EVALUATORS

from ..evaluate import evaluator_timeout, item_timeout, time_limit
from .pool import Outcome


async def _outcome(call: Awaitable[Any]) -> Outcome:
    try:
        return True, await call
    except Exception as exc:  # the coordinator raises it in the sample's own await
        return False, exc
    except SystemExit as exc:  # user code's that no wrapper turned into its error: the item's
        return False, UserExit(exc)  # (raised as SystemExit there, it would end the run)


def _no_model(name: str) -> Any:
    raise ConfigError(f"model '{name}': model clients stay in the coordinator, not on a Ray "
                      "worker")


class Worker:
    """One Ray actor. Built once per worker process (and again after a restart) from build
    records, so a heavy target stays loaded between calls."""

    def __init__(self, targets: dict[str, dict[str, Any]],
                 evaluators: dict[str, dict[str, Any]], base: str,
                 timeout_s: float | None = None) -> None:
        from assay.targets.build import rebuild_target

        self.targets = {k: rebuild_target(r, client=_no_model, base=Path(base))
                        for k, r in targets.items()}
        self.evaluators: dict[str, Evaluator] = {k: EVALUATORS.rebuild(r)
                                                 for k, r in evaluators.items()}
        self.place = {"host": socket.gethostname(), "pid": os.getpid()}
        # the run's bound on each call, kept here: the coordinator's timer would also end the
        # calls batched with a slow one (core/calls.BoundedElsewhere)
        self.timeout_s = timeout_s
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
        outs = await asyncio.gather(*(_outcome(within(target.answer(it), self.timeout_s,
                                                      item_timeout)) for it in items))
        self.items += len(items)
        self.busy_s += time.perf_counter() - t0
        return list(outs), self.place

    async def evaluate(self, key: str, calls: list[tuple[Item, Answer, TruthSnapshot | None]]
                       ) -> tuple[list[Outcome], dict[str, Any]]:
        ev = self.evaluators[key]
        t0 = time.perf_counter()
        limit = time_limit(ev, self.timeout_s)
        if limit is None:  # code that never suspends: one after the other, no task per call
            outs = [await _outcome(ev.evaluate(item, answer, truth))
                    for item, answer, truth in calls]
        else:  # user code in threads or coroutines: side by side, each within its limit
            outs = list(await asyncio.gather(*(_outcome(within(
                ev.evaluate(item, answer, truth), limit,
                lambda s: evaluator_timeout(ev, s))) for item, answer, truth in calls)))
        self.items += len(calls)
        self.busy_s += time.perf_counter() - t0
        return outs, self.place
