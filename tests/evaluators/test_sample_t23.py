"""The bundled T2/T3 sample (examples/finsearch_t23_sample.json): every answer's expected score,
decided by hand from the written rules before the reader existed (its README:
tests/data/rubric_corpus/t23), is what `finance-rubric` gives — decided, never abstained.

These 79 answers were held out while the reader's rules were written: their first run found one
wrong decision (an em dash read as a minus sign), fixed in the reader, no label changed."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from assay.core.types import Answer, Item, ScoreStatus
from assay.evaluators.finance import FinanceRubricEvaluator
from assay.evaluators.historical import is_historical
from tests.conftest import SAMPLE, SAMPLE_T23

ROWS = json.loads(SAMPLE_T23.read_text("utf-8"))
RUBRIC = FinanceRubricEvaluator()
FAMILY = {"T2": "Simple_Historical_Lookup", "T3": "Complex_Historical_Investigation"}


@pytest.mark.parametrize("row", ROWS, ids=[r["prompt_id"] for r in ROWS])
def test_every_sample_answer_is_decided_as_labelled(row: dict) -> None:
    item = Item(row["prompt_id"], row)
    assert is_historical(item) and RUBRIC.lacking(item) == []
    score = RUBRIC.check(item, Answer(row["response"]))
    assert score.status == ScoreStatus.SCORED, score.reason
    assert score.value == row["expected_score"], score.reason


def test_sample_shape_and_ids() -> None:
    t1 = json.loads(SAMPLE.read_text("utf-8"))
    assert len(ROWS) == 79 and len({r["prompt_id"] for r in ROWS}) == 79
    # the T1 sample's format, without ground truth (the reference is the truth)
    assert all(list(r) == ["prompt_id", "question_id", "prompt", "response_reference", "time",
                           "label", "response", "answer_kind", "expected_score"] for r in ROWS)
    assert not {r["prompt_id"] for r in ROWS} & {r["prompt_id"] for r in t1}
    for r in ROWS:
        m = re.fullmatch(r"\((T[23])\)Assay_Sample_([HC]\d\d)_([a-z_]+)", r["prompt_id"])
        assert m is not None, r["prompt_id"]
        assert r["question_id"] == m[2] and r["answer_kind"] == m[3]
        assert r["label"].startswith(FAMILY[m[1]] + "(")
        assert (m[1] == "T2") == m[2].startswith("H")


def test_sample_covers_families_languages_and_every_tolerance_form() -> None:
    families = Counter(r["prompt_id"][:4] for r in ROWS)
    assert families == {"(T2)": 46, "(T3)": 33}
    zh = [r for r in ROWS if re.search(r"[\u4e00-\u9fff]", r["prompt"])]
    assert len(zh) == 45 and len(ROWS) - len(zh) == 34
    # three "coarser_rounds" answers (63亿元 for 62.57亿元 …) are right under the benchmark
    # rounding reading, the default since issue 24; they were "too_coarse" (0) under strict
    assert Counter(r["expected_score"] for r in ROWS) == {1: 44, 0: 35}
    refs = {r["response_reference"] for r in ROWS}
    forms = {  # each note form of the release, in Chinese and in English
        "rounding": ("四舍五入", "Rounding errors are allowed"),
        "absolute": ("允许有0.0001的误差", "An error of up to 0.0001 is allowed"),
        "percent": ("允许0.01%的误差", "may deviate by up to 0.01%"),
        "range": ("即可", "between"),
        "strict": ("严格一致", "must match the reference answer exactly"),
    }
    for form, words in forms.items():
        for w in words:
            assert any(w.lower() in ref.lower() for ref in refs), (form, w)
    kinds = Counter(r["answer_kind"] for r in ROWS)
    assert {"right", "rounded", "too_coarse", "coarser_rounds", "unit_changed", "wrong_scale", "missing_unit",
            "within", "outside", "in_range", "out_of_range", "partial", "extra",
            "reasoning_trap", "refusal", "wrong"} == set(kinds)


def test_every_decision_names_finance_rubric_and_its_own_version() -> None:
    """T1 decisions are stamped once, by the T1 reader, with `finance-rubric`'s version (both
    readers' hashes); T2/T3 and precheck decisions are restamped. Either way the version is the
    evaluator's, never the T1 reader's alone."""
    from assay.evaluators.finance import version
    from assay.evaluators.rubric.evaluator import FinanceRubric
    from assay.evaluators.rubric.evaluator import version as t1_version

    evaluator = FinanceRubricEvaluator()
    rows = [*json.loads(SAMPLE.read_text("utf-8")), *json.loads(SAMPLE_T23.read_text("utf-8"))]
    statuses = Counter()
    for k, row in enumerate(rows):
        score = evaluator.check(Item(f"i{k}", row), Answer(row.get("response") or ""))
        assert (score.evaluator, score.evaluator_version) == ("finance-rubric", version())
        statuses[str(score.status)] += 1
    assert version().startswith(t1_version() + "+") and statuses["scored"] > 150
    plain = FinanceRubric().check(Item("t1", rows[0]), Answer(rows[0]["response"]))
    assert plain.evaluator_version == t1_version()  # the T1 reader on its own: its own hash
