"""A target as an experiment spec states it: a name, a registered type and that type's
options. The options each type takes come from the target registry, so a new target type is
known to the spec checker as soon as it is registered."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from assay.core.errors import ConfigError

from .registry import TARGETS


@dataclass
class TargetSpec:
    name: str
    type: str
    options: dict[str, Any]


class _TargetKeys(Mapping[str, set[str]]):
    """Type → the options it takes (besides `name` and `type`), read live from the registry."""

    def __getitem__(self, kind: str) -> set[str]:
        try:
            entry = TARGETS.entry(kind)
        except ConfigError:
            raise KeyError(kind) from None
        return {a.name for a in TARGETS.arguments(entry) or ()} - {"name"}

    def __iter__(self) -> Iterator[str]:
        return iter(TARGETS.names())

    def __len__(self) -> int:
        return len(TARGETS.names())

    def __contains__(self, kind: object) -> bool:
        return kind in TARGETS


TARGET_KEYS: Mapping[str, set[str]] = _TargetKeys()


def required_options(kind: str) -> list[str]:
    """The options a target of this type cannot do without (`url` for http)."""
    return [a.name for a in TARGETS.arguments(TARGETS.entry(kind)) or ()
            if a.required and a.name != "name"]
