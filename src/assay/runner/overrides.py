"""CLI flags that override a spec; stored in the manifest so a resume applies them too."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from assay.core.errors import ConfigError

from .evaluator_entries import EntryError
from .executor_spec import EXECUTORS
from .spec import ExperimentSpec, parse_entry


@dataclass
class Overrides:
    limit: int | None = None
    concurrency: int | None = None
    targets: list[str] = field(default_factory=list)
    evaluators: list[str] = field(default_factory=list)
    executor: str | None = None  # --executor ray: the spec's other executor settings stay
    max_cost: float | None = None  # --max-cost: the spec's budget, or one where it has none
    timeout_s: float | None = None  # --timeout: the spec's timeout_s

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v not in (None, [])}


def apply_overrides(spec: ExperimentSpec, o: Overrides) -> ExperimentSpec:
    if o.max_cost is not None:
        spec.budget_usd = o.max_cost
    if o.timeout_s is not None:
        spec.timeout_s = o.timeout_s
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
        try:  # `-e python:checks.py:f` is relative to where the command runs
            spec.evaluators = [parse_entry(e, Path.cwd()) for e in o.evaluators]
        except EntryError as exc:
            raise ConfigError(f"--evaluator: {exc}") from None
    if o.executor is not None and o.executor not in EXECUTORS:
        raise ConfigError(f"--executor {o.executor}: use {' or '.join(EXECUTORS)}")
    if o.executor is not None:  # the spec's address, workers and cpus stay
        spec.executor = replace(spec.executor, type=o.executor)
    return spec
