"""The four worked examples of the FinSearchComp T1 judge prompt, and the project's sample set."""

from __future__ import annotations

import json

import pytest

from assay.core.types import Answer, Item, ScoreStatus
from assay.evaluators.rubric.evaluator import FinanceRubric
from tests.conftest import DATA, SAMPLE

EXAMPLES = json.loads((DATA / "t1_judge_examples.json").read_text(encoding="utf-8"))
SAMPLE_ITEMS = json.loads(SAMPLE.read_text(encoding="utf-8"))
RUBRIC = FinanceRubric()


def test_examples_are_the_four_of_the_spec() -> None:
    assert [e["expected"] for e in EXAMPLES] == [0, 1, 1, 0]


@pytest.mark.parametrize("index", range(4))
def test_judge_prompt_examples(index: int) -> None:
    ex = EXAMPLES[index]
    score = RUBRIC.check(Item(f"ex{index}", ex), Answer(ex["response"]))
    assert score.status == ScoreStatus.SCORED
    assert score.value == ex["expected"]


def test_example1_fails_on_the_after_hours_change_percent() -> None:
    ex = EXAMPLES[0]
    score = RUBRIC.check(Item("ex1", ex), Answer(ex["response"]))
    failed = [v for v in score.evidence["values"] if not v["pass"]]
    assert [(v["field"], v["value"]) for v in failed] == [("change_pct", "-0.47")]
    passed = {v["field"]: v["value"] for v in score.evidence["values"] if v["pass"]}
    assert passed == {"change_pct": "-0.59", "open": "112.91", "high": "114.67",
                      "low": "112.66"}
    assert "涨跌幅 -0.47%" in score.reason


def test_example2_ignores_the_central_parity_and_uses_the_day_range() -> None:
    ex = EXAMPLES[1]
    score = RUBRIC.check(Item("ex2", ex), Answer(ex["response"]))
    (value,) = score.evidence["values"]
    assert value["value"] == "7.1905"
    assert value["accepted"] == ["7.1855", "7.1934"]
    ignored = {i["field"] for i in score.evidence["ignored"]}
    assert "central_parity" in ignored
    assert score.evidence["truth"]["message"] == "removed trailing comma"


def test_example4_close_contradicts_latest_price() -> None:
    ex = EXAMPLES[3]
    score = RUBRIC.check(Item("ex4", ex), Answer(ex["response"]))
    values = [(v["field"], v["value"], v["pass"]) for v in score.evidence["values"]]
    assert values == [("last", "214.05", True), ("last", "213.88", False)]
    # the opening price is extra information and never counts against the answer
    assert [i["field"] for i in score.evidence["ignored"]] == ["open"]


@pytest.mark.parametrize("item", SAMPLE_ITEMS, ids=[i["prompt_id"] for i in SAMPLE_ITEMS])
def test_sample_dataset_decisions(item: dict) -> None:
    score = RUBRIC.check(Item(item["prompt_id"], item), Answer(item["response"]))
    expected = item["expected_score"]
    if expected is None:
        assert score.value is None
        assert score.status in (ScoreStatus.NULL, ScoreStatus.ERROR)
    else:
        assert score.status == ScoreStatus.SCORED, score.reason
        assert score.value == expected, score.reason


def test_sample_covers_markets_languages_and_rules() -> None:
    refs = " ".join(i["response_reference"] for i in SAMPLE_ITEMS)
    for wording in ("仅允许四舍五入误差", "答案落在最高价最低价区间即可", "允许误差范围绝对数值±",
                    "在最高价最低价区间基础上扩大范围绝对数值", "Only rounding errors are allowed",
                    "Any answer between the high and low price",
                    "The allowable error range is an absolute value of ±",
                    "Expand the high-low price range by an absolute value of"):
        assert wording in refs
    assert len({i["question_id"] for i in SAMPLE_ITEMS}) >= 30
    assert {i["tags"] for i in SAMPLE_ITEMS} >= {"Stock", "Index", "汇率"}
    kinds = {i["answer_kind"] for i in SAMPLE_ITEMS}
    assert kinds >= {"right", "rounded", "stale", "wrong_field", "contradictory", "empty"}


def test_sample_truth_is_the_copied_snapshot_rows() -> None:
    import csv

    folder = SAMPLE.parent / "data" / "market_snapshots"
    rows: dict[str, dict[str, str]] = {}
    for path in folder.glob("*_20251017T103505Z.csv"):
        with path.open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                rows[row["代码"]] = row
    checked = 0
    for item in SAMPLE_ITEMS:
        try:
            truth = json.loads(item["ground_truth"])
        except ValueError:
            continue
        if "代码" in truth:  # AKShare-shaped: every value is the snapshot's, unchanged
            row = rows[truth["代码"]]
            assert {k: row[k] for k in truth} == truth, item["prompt_id"]
            checked += 1
    assert checked >= 60
