"""The cost sheet: per target, per judge, total, and per correct answer (0/1 evaluators)."""

from __future__ import annotations

import pytest

from assay.core.costs import EvaluatorCost, cost_sheet


def test_one_target_costs_per_judge_and_per_correct_answer() -> None:
    sheet = cost_sheet({"m": 0.30}, [
        EvaluatorCost("m", "finance-rubric", None, 6, True),  # code: free, 6 answers right
        EvaluatorCost("m", "judge@j", 0.10, 4, True),
        EvaluatorCost("m", "quality@j", 0.05, 0, False),  # a 1–5 scale: no "correct"
    ])
    assert sheet.targets == {"m": 0.30}
    assert sheet.judges == {"judge@j": 0.10, "quality@j": 0.05}
    assert sheet.total == pytest.approx(0.45)
    assert sheet.correct == {"finance-rubric": 6, "judge@j": 4}
    assert sheet.per_correct == {"finance-rubric": pytest.approx(0.075),
                                 "judge@j": pytest.approx(0.1125)}
    d = sheet.as_dict()
    assert d["total"] == 0.45 and d["per_correct"]["judge@j"] == 0.1125


def test_several_targets_are_named_like_the_summary_and_none_right_has_no_figure() -> None:
    sheet = cost_sheet({"a": 0.2, "b": 0.1}, [
        EvaluatorCost("a", "j@m", 0.02, 2, True), EvaluatorCost("b", "j@m", 0.01, 0, True)])
    assert sheet.judges == {"a · j@m": 0.02, "b · j@m": 0.01}
    assert sheet.per_correct == {"a · j@m": pytest.approx(0.11), "b · j@m": None}


def test_nothing_priced_is_an_empty_sheet() -> None:
    sheet = cost_sheet({"recorded": None}, [EvaluatorCost("recorded", "finance-rubric", None,
                                                          3, True)])
    assert sheet.empty and sheet.per_correct == {} and sheet.total == 0.0
