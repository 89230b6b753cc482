"""`finance-rubric`: one evaluator for the whole FinSearchComp benchmark. T1 items (live
quotes) go to the executable T1 rules, judged against the ground truth of the moment of the
answer; T2/T3 items (historical lookups) go to the reader of their reference answer and its
grading note. Both decide 1 or 0 in code, say null or error when they cannot judge, and
abstain with their candidates rather than guess."""

from __future__ import annotations

from functools import cache
from typing import Any

from assay.core.types import Answer, Item, Score, TruthSnapshot

from .base import CodeEvaluator, missing_fields
from .historical.kind import is_historical
from .historical.kind import version as historical_version
from .historical.rounding import rounding_reading
from .rubric.evaluator import NAME, FinanceRubric
from .rubric.evaluator import version as t1_version


@cache
def version() -> str:
    """Both readers' source hashes: a stored score names the exact code that produced it."""
    return f"{t1_version()}+{historical_version()}"


class FinanceRubricEvaluator(CodeEvaluator):
    name = NAME
    # every item needs these; a T1 item also needs its ground truth (checked per item, so
    # a file mixing T1 and T2/T3 items is judged whole)
    requires: tuple[str, ...] = ("prompt", "response_reference")
    uses_truth = True

    def __init__(self, rounding: str = "benchmark") -> None:
        # rounding: how T2/T3's "rounding errors are allowed" reads — "benchmark" (both at the
        # coarser precision shown, the release judge's reading) or "strict" (the reference's
        # and the question's decimals); docs/rubric.md sets them side by side
        self.rounding = rounding_reading(rounding)
        self.t1 = FinanceRubric(stamp=version())
        self._historical: Any = None  # the T2/T3 reader, loaded for the first such item

    @property
    def historical(self) -> Any:
        if self._historical is None:
            from .historical.evaluator import HistoricalRubric
            self._historical = HistoricalRubric(self.rounding)
        return self._historical

    @property
    def version(self) -> str:
        return version()

    def lacking(self, item: Item) -> list[str]:
        missing = missing_fields(self.requires, item)
        if "ground_truth" not in item.fields and not is_historical(item):
            missing.append("ground_truth")
        return missing

    def check(self, item: Item, answer: Answer, truth: TruthSnapshot | None = None) -> Score:
        if truth is None and "ground_truth" not in item.fields:
            score = self.historical.check(item, answer)
        else:
            score = self.t1.check(item, answer, truth)
            if score.evaluator_version == self.version:  # stamped by the T1 reader already
                return score
        # built directly: dataclasses.replace costs more than a quarter of a T1 decision
        return Score(score.value, score.status, score.reason, score.evaluator, self.version,
                     score.full_score, score.evidence, score.steps)
