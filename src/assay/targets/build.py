"""Target specs → targets, through the target registry. Model targets share the evaluators'
client per model, so a model that both answers and judges has one connection pool and one
adaptive limit."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from assay.core.errors import ConfigError
from assay.core.registry import Built

from .base import Target, TargetContext
from .registry import TARGETS
from .spec import TargetSpec


def build_target(spec: TargetSpec, *, client: Callable[[str], Any], base: Path) -> Target:
    try:
        return TARGETS.build(spec.type, TargetContext(client, base), name=spec.name,
                             **spec.options)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"target '{spec.name}': {exc}") from None


def rebuild_target(record: Built | Mapping[str, Any], *, client: Callable[[str], Any],
                   base: Path) -> Target:
    """A target as its build record (in a run's manifest) describes it."""
    return TARGETS.rebuild(record, TargetContext(client, base))
