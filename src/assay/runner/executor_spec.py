"""The `executor:` key of a spec: where the heavy targets and code evaluators run.

    executor:
      type: ray            # local (default) | ray
      address: auto        # or ray://head:10001; absent = the running cluster, else a local one
      workers: 4           # actors, each holding every moved target and code evaluator
      cpus_per_worker: 1
      code_evaluators: auto  # auto (default) | workers | coordinator: where code evaluators run

Only the shape is checked here; Ray itself is imported when a run starts (runner/ray_executor.py),
so a spec that names it loads without it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from assay.core.errors import ConfigError

EXECUTORS = ("local", "ray")
EXECUTOR_KEYS = {"type", "address", "workers", "cpus_per_worker", "code_evaluators"}
# auto: a light code evaluator (its registry entry says it takes microseconds) stays in the
# coordinator when a target moves, since sending an answer and its score costs more than
# checking it (bench/ray_bench.py); when no target moves (a score run) the evaluators are the
# work and move. workers / coordinator: every movable code evaluator moves / none does.
PLACES = ("auto", "workers", "coordinator")


@dataclass
class ExecutorSpec:
    type: str = "local"
    address: str | None = None
    workers: int = 2
    cpus_per_worker: float = 1.0
    code_evaluators: str = "auto"

    @property
    def remote(self) -> bool:
        return self.type != "local"


def parse_executor(value: Any, fail: Callable[..., ConfigError]) -> ExecutorSpec:
    """`executor: ray` or a mapping; `fail(message, *keys)` names the file and line."""
    if value is None:
        return ExecutorSpec()
    if isinstance(value, str):
        value = {"type": value}
    if not isinstance(value, dict):
        raise fail("must be local, ray or a mapping with 'type'", "executor")
    unknown = sorted(set(value) - EXECUTOR_KEYS)
    if unknown:
        raise fail(f"unknown key (known: {', '.join(sorted(EXECUTOR_KEYS))})", "executor",
                   unknown[0])
    kind = value.get("type", "local")
    if kind not in EXECUTORS:
        raise fail(f"unknown executor '{kind}' (known: {', '.join(EXECUTORS)})", "executor",
                   "type")
    workers = value.get("workers", 2)
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise fail("must be a whole number ≥ 1", "executor", "workers")
    cpus = value.get("cpus_per_worker", 1)
    if not isinstance(cpus, int | float) or isinstance(cpus, bool) or cpus <= 0:
        raise fail("must be a positive number", "executor", "cpus_per_worker")
    address = value.get("address")
    if address is not None and (not isinstance(address, str) or not address):
        raise fail("must be 'auto', ray://HOST:PORT or HOST:PORT", "executor", "address")
    place = value.get("code_evaluators", "auto")
    if place not in PLACES:
        raise fail(f"must be one of {', '.join(PLACES)}", "executor", "code_evaluators")
    return ExecutorSpec(str(kind), address, workers, float(cpus), str(place))
