"""What a target is, to the runner, and what a target factory is given beside its options."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from assay.core.errors import ConfigError
from assay.core.numbers import number_problem
from assay.core.types import Answer, Item


class Target(Protocol):
    name: str
    kind: str

    def public(self) -> dict[str, Any]:
        """The target's configuration as stored in a run's manifest: never a secret."""
        ...

    async def answer(self, item: Item) -> Answer:
        """The target's answer; a failure is `Answer(text=None, error=…)`, not an exception."""
        ...

    async def close(self) -> None: ...


class Recorded(Protocol):
    """A target whose answers were recorded before the run. `recorded = True` says so: nothing
    is called, so the pipeline times and traces no call for it, and a sample's root span names
    where its answer came from. `lookup` reads an answer without waiting, so a score run's
    samples are read in one pass, without a coroutine each. A target that only says
    `recorded = True` (an online trace's output, read through `answer`) gets the first and not
    the second."""

    recorded: bool

    def lookup(self, item: Item) -> Answer:
        """The recorded answer; a missing one is `Answer(text=None, error=…)`."""
        ...


def answers_recorded(target: object) -> bool:
    """Whether `target` says its answers were given before the run (`Recorded`)."""
    return getattr(target, "recorded", False) is True


def recorded_lookup(target: object) -> Callable[[Item], Answer] | None:
    """A recorded target's `lookup`; None for a target that is called, and for a recorded one
    that reads its answers only through `answer`."""
    if getattr(target, "recorded", False) is not True:
        return None
    lookup: Callable[[Item], Answer] | None = getattr(target, "lookup", None)
    return lookup


@dataclass(frozen=True)
class TargetContext:
    """What a run lends its targets and a manifest does not hold: the model client of a name
    (shared with the judges, so one model has one connection pool and one adaptive limit) and
    the spec's folder, against which relative paths and `module:function` references resolve."""

    client: Callable[[str], Any]
    base: Path


def mapping_option(value: Any, key: str, name: str) -> dict[str, Any]:
    """An option that must be a mapping (`headers`, `params`); absent means empty."""
    value = value or {}
    if not isinstance(value, dict):
        raise ConfigError(f"target '{name}': {key} must be a mapping")
    return value


def timeout_option(value: Any, name: str) -> float:
    """A target's own `timeout_s`: a finite number > 0 (≤ 0 waited forever, NaN timed out
    every item at once)."""
    problem = number_problem(value, above=True)
    if problem is not None:
        raise ConfigError(f"target '{name}': timeout_s {problem}")
    return float(value)
