"""FinSearchComp T2/T3 (historical lookups): key points and the grading note read from the
reference answer, checked against the answer's final statement. See docs/rubric.md."""

from .evaluator import HistoricalRubric, is_historical, version

__all__ = ["HistoricalRubric", "is_historical", "version"]
