"""`finance-rubric` on a hostile tester's answers against the ninth session's readings (issue 24,
tests/data/rubric_corpus/hostile/session9.jsonl): each was a false accept or a wrong 0 when
found. The decision asserted is what a careful grader decides, or an abstention where the reader
cannot yet tell — never a 1 for a wrong answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay.core.types import Answer, Item, ScoreStatus
from assay.evaluators.finance import FinanceRubricEvaluator

CORPORA = Path(__file__).resolve().parents[1] / "data" / "rubric_corpus"
RUBRIC = FinanceRubricEvaluator()


def _load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]


ITEMS = {c: {r["id"]: r for r in _load(CORPORA / c / "items.jsonl")} for c in ("t1", "t23")}
CASES = _load(CORPORA / "hostile" / "session9.jsonl")


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['item']}:{c['response'][:24]}")
def test_hostile_answer(case: dict[str, Any]) -> None:
    item = ITEMS[case["corpus"]][case["item"]]
    s = RUBRIC.check(Item(case["item"], item), Answer(case["response"]), None)
    got: object = "abstain" if s.status == ScoreStatus.ABSTAINED else s.value
    assert got == case["expected"], s.reason
