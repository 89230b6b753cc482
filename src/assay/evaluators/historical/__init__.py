"""FinSearchComp T2/T3 (historical lookups): key points and the grading note read from the
reference answer, checked against the answer's final statement. See docs/rubric.md.

`HistoricalRubric` is loaded on first use: `is_historical` and `version` need none of it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .kind import is_historical, version

if TYPE_CHECKING:
    from .evaluator import HistoricalRubric

__all__ = ["HistoricalRubric", "is_historical", "version"]


def __getattr__(name: str) -> Any:
    if name == "HistoricalRubric":
        from .evaluator import HistoricalRubric
        return HistoricalRubric
    raise AttributeError(name)
