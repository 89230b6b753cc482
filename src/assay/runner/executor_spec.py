"""The `executor:` key of a spec: where the heavy targets and code evaluators run.

    executor:
      type: ray            # local (default) | ray
      address: auto        # or ray://head:10001; absent = the running cluster, else a local one
      workers: 4           # actors, each holding every moved target and code evaluator
      cpus_per_worker: 1
      code_evaluators: auto  # auto (default) | workers | coordinator: where code evaluators run

Only the shape is checked here; Ray itself is imported when a run starts (runner/ray/executor.py),
so a spec that names it loads without it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field, StrictFloat, StrictInt, field_validator, model_validator

from assay.core.specmodel import SpecModel, problem

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


class ExecutorSection(SpecModel):
    """`executor: ray`, or a mapping."""

    type: str = Field("local", description="local or ray")
    address: str | None = Field(None, min_length=1,
                                description="'auto', ray://HOST:PORT or HOST:PORT")
    workers: StrictInt = Field(2, ge=1, description="a whole number ≥ 1")
    cpus_per_worker: StrictFloat = Field(1.0, gt=0, allow_inf_nan=False,
                                         description="a positive number")
    code_evaluators: Literal["auto", "workers", "coordinator"] = Field(
        "auto", description=f"one of {', '.join(PLACES)}")

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"type": value}
        if not isinstance(value, dict):
            raise problem("must be local, ray or a mapping with 'type'")
        return value

    @field_validator("type")
    @classmethod
    def _known(cls, kind: str) -> str:
        if kind not in EXECUTORS:
            raise problem(f"unknown executor '{kind}' (known: {', '.join(EXECUTORS)})")
        return kind

    def build(self) -> ExecutorSpec:
        return ExecutorSpec(self.type, self.address, self.workers, self.cpus_per_worker,
                            self.code_evaluators)
