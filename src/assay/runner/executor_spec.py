"""The `executor:` key of a spec: where the heavy targets and code evaluators run.

    executor:
      type: ray            # local (default) | ray
      address: auto        # or ray://head:10001; absent = the running cluster, else a local one
      workers: 4           # actors, each holding every moved target and code evaluator
      cpus_per_worker: 1
      code_evaluators: auto  # auto (default) | workers | coordinator: where code evaluators run

Only the shape is checked (runner/spec_models.py); Ray itself is imported when a run starts
(runner/ray/executor.py), so a spec that names it loads without it."""

from __future__ import annotations

from dataclasses import dataclass

EXECUTORS = ("local", "ray")
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
