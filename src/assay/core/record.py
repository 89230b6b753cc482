"""`@record`: a dataclass with slots whose fields the type checker treats as read-only.

The domain types (core/types.py) are values: nothing may change an item, an answer or a score
once made. `frozen=True` enforced that at run time by setting every field through
`object.__setattr__` in `__init__`, about three times the cost of a plain slot store; one item
of `assay score` builds several of these, and the freezing alone cost 26 k instructions an item
with the finance rubric (3.4 %, `bench/score_instructions.sh`). mypy, which the project runs on
every change (`make check`), refuses an assignment to a `@record`'s field as it does a frozen
dataclass's (`dataclass_transform(frozen_default=True)`), so the rule is kept where it is
checked once, not paid for on every construction.

Unlike a frozen dataclass a record has no `__hash__` (equal values, no identity): none of these
types is hashable anyway, each holding a dict."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar, dataclass_transform

T = TypeVar("T")


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(cls: type[T]) -> type[T]:
    return dataclass(slots=True)(cls)
