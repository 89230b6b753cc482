"""What `HistoricalRubric` returns besides the decision: which items it takes, its name and
version, the evidence and the reasons, and abstentions with their candidates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.core.types import Answer, Item, ScoreStatus
from assay.evaluators.historical import HistoricalRubric, is_historical, version

from .helpers import ABSTAIN, decide, score

# shared/ sits beside the checkout (/work/shared beside /work/main, or a worktree's parents)
RELEASE = next((p / "shared/data/finsearchcomp/chat-test-eval.json"
                for p in Path(__file__).resolve().parents
                if (p / "shared/data/finsearchcomp/chat-test-eval.json").exists()),
               Path("/nonexistent"))


@pytest.mark.parametrize("fields, expected", [
    ({"prompt_id": ["(T2)Simple_Historical_Lookup_537"]}, True),
    ({"prompt_id": "['(T3)Complex_Historical_Investigation_b027']"}, True),
    ({"label": "Complex_Historical_Investigation"}, True),
    ({"prompt_id": ["(T1)Time_Sensitive_Data_Fetching_165"], "response_reference": "x"}, False),
    ({"response_reference": "62.57亿元，答案允许四舍五入的误差"}, True),  # no id, no ground truth
    ({"response_reference": "必答点：海天味业的最新收盘价\n精度要求：仅允许四舍五入误差"}, False),
    ({"response_reference": "Required Content: The latest closing price"}, False),
    ({"response_reference": "62.57亿元", "ground_truth": '{"x": 1}'}, False),
    ({"prompt": "no reference"}, False),
])
def test_is_historical(fields: dict[str, object], expected: bool) -> None:
    assert is_historical(Item("i", fields)) is expected


def test_is_historical_on_the_release() -> None:
    if not RELEASE.exists():
        pytest.skip("shared/ not beside the project")
    rows = json.loads(RELEASE.read_text("utf-8"))
    seen = {str(r["prompt_id"][0])[:4]: is_historical(Item("x", r)) for r in rows}
    assert seen == {"(T1)": False, "(T2)": True, "(T3)": True}


def test_name_version_and_evidence() -> None:
    s = score("62.57亿元，答案允许四舍五入的误差", "初步估计为58.10亿元。\n因此，现金流净额为63亿元。",
              "保利发展经营活动现金流净额预计多少亿元？（数值保留2位小数）")
    assert (s.evaluator, s.status, s.value) == ("finance-rubric", ScoreStatus.SCORED, 0.0)
    assert s.evaluator_version == version() == HistoricalRubric().version
    assert s.evaluator_version.startswith("h-") and len(s.evaluator_version) == 14
    ev = s.evidence
    assert ev["key_points"] == [{"id": "p1", "kind": "number", "text": "62.57亿元",
                                 "value": "6257000000.00", "unit": "money/CNY"}]
    assert ev["note"] == {"kind": "rounding", "text": "答案允许四舍五入的误差", "rounding": True}
    assert ev["question_decimals"] == 2
    (point,) = ev["points"]
    assert point["outcome"] == "fail" and point["final_statement"] == "因此"
    (value,) = point["values"]
    assert value["text"] == "63亿元" and value["value"] == "6300000000"
    assert value["accepted"] == ["6256500000.00", "6257500000.00"]
    assert value["rule"] == "rounds half-up to 6257000000.00 at 1000000.00"
    assert s.reason == "要点错误或缺失：62.57亿元：回复「63亿元」不符合（以最终答案为准），得0分。"
    assert "58.10" not in json.dumps(point["values"], ensure_ascii=False)


def test_abstention_lists_candidates() -> None:
    s = score("-16.97%\nRounding errors are allowed.", "The change was 16.97%.")
    assert s.status == ScoreStatus.ABSTAINED and s.value is None
    assert s.reason.startswith("Cannot decide: -16.97%: the answer's «16.97%» may or may not "
                               "meet it (the rule cannot settle it: rounds half-up to -16.97")
    (cand,) = s.evidence["candidates"]
    assert cand["outcome"] == "unsure"
    assert cand["values"][0]["text"] == "16.97%"
    assert "without its sign" in cand["values"][0]["rule"]


def test_a_reference_it_cannot_read_abstains_never_guesses() -> None:
    s = score("", "anything")
    assert s.status == ScoreStatus.ABSTAINED and "empty" in s.reason
    assert decide("请结合公司战略分析其原因", "原因是……") == ABSTAIN


def test_english_reason() -> None:
    s = score("\"$1408 million, rounding errors are allowed.\"", "$1,408 million")
    assert s.value == 1.0
    assert s.reason == ("Every key point is right: $1408 million: the answer's «$1,408 "
                        "million» meets it (the final statement): score 1.")


def test_the_size_of_a_fall_when_the_question_asks_for_it() -> None:
    assert decide("25个基点", "央行下调了0.25个百分点。", "2024年2月，5年期LPR下调了多少个基点？") == 1
    # the question does not speak of a fall: "下调" states −25bp against a reference of +25bp
    assert decide("25个基点", "央行下调了0.25个百分点。", "2024年2月，5年期LPR变动了多少个基点？") == 0


def test_release_items() -> None:
    """The release's own answers: the judge accepted "63亿元" for 62.57亿元; the rules do not."""
    if not RELEASE.exists():
        pytest.skip("shared/ not beside the project")
    rubric = HistoricalRubric()
    got = {}
    for row in json.loads(RELEASE.read_text("utf-8")):
        item = Item(str(row["prompt_id"][0]), row)
        if not is_historical(item):
            continue
        s = rubric.check(item, Answer(row["dialogues"][-1]["model_response"]))
        got[item.id.split("_")[-1]] = s.value
    assert got == {"b027": 0.0, "062": 0.0, "020": 1.0, "b016": 0.0, "028": 0.0, "231": 0.0,
                   "093": 1.0, "606": 0.0, "050": 0.0}
