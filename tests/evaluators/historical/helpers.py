"""Calling the T2/T3 reader the way `finance-rubric` will, and saying what it decided."""

from __future__ import annotations

from typing import Any

from assay.core.types import Answer, Item, Score, ScoreStatus
from assay.evaluators.historical import HistoricalRubric

# The rule tests below were written for the strict reading of "rounding errors are allowed"
# (the reference's and the question's decimals); BENCHMARK reads it as the release judge does
# (both at the coarser precision shown), the default since issue 24.
RUBRIC = HistoricalRubric("strict")
BENCHMARK = HistoricalRubric()
ABSTAIN = "abstain"


def score(reference: str, answer: str, question: str = "", item_id: str = "(T2)x") -> Score:
    item = Item(item_id, {"prompt_id": item_id, "prompt": question,
                          "response_reference": reference})
    return RUBRIC.check(item, Answer(answer))


def decide(reference: str, answer: str, question: str = "") -> Any:
    """1, 0 or "abstain"; anything else (an error) fails the test that called it."""
    s = score(reference, answer, question)
    if s.status == ScoreStatus.ABSTAINED:
        return ABSTAIN
    assert s.status == ScoreStatus.SCORED, (s.status, s.reason)
    assert s.value is not None
    return int(s.value)
