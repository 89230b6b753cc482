"""exact, contains, contains-all, contains-any: the expected answer, the folds (case, blanks,
punctuation, full-width) on both sides, Chinese text, and the evidence each score carries."""

from __future__ import annotations

import pytest

from assay.core.errors import ConfigError
from assay.core.registry import built_from
from assay.core.types import ScoreStatus
from assay.evaluators.registry import EVALUATORS

from .helpers import check, value


def test_exact_is_exact_by_default_but_strips_the_ends() -> None:
    assert value("exact", "Paris", "Paris") == 1.0
    assert value("exact", "  Paris\n", "Paris") == 1.0  # a trailing newline is no answer
    assert value("exact", "paris", "Paris") == 0.0
    assert value("exact", "Paris.", "Paris") == 0.0
    assert value("exact", "  Paris\n", "Paris", strip=False) == 0.0
    s = check("exact", "Parsi", "Paris")
    assert s.status == ScoreStatus.SCORED
    assert s.reason == "the answer differs from the expected answer at character 3"
    assert s.evidence == {"expected": "Paris", "answer": "Parsi", "differs_at": 3}


def test_exact_folds() -> None:
    assert value("exact", "PARIS", "paris", ignore_case=True) == 1.0
    assert value("exact", "贵州 茅台\t股份", "贵州茅台股份", ignore_whitespace=True) == 1.0
    assert value("exact", "贵州茅台股份", "贵州 茅台股份") == 0.0
    # Chinese and ASCII punctuation both go
    assert value("exact", "是的，涨了。", "是的涨了", ignore_punctuation=True) == 1.0
    assert value("exact", "Yes!", "yes", ignore_punctuation=True, ignore_case=True) == 1.0
    # full-width letters, digits and the ideographic space fold to ASCII (NFKC)
    assert value("exact", "ＡＢＣ　１２３", "ABC 123", fullwidth=True) == 1.0
    assert value("exact", "ＡＢＣ　１２３", "ABC 123") == 0.0
    assert value("exact", "ａｂｃ", "ABC", fullwidth=True, ignore_case=True) == 1.0
    s = check("exact", "ＡＢＣ", "abc", fullwidth=True, ignore_case=True)
    assert s.evidence["normalised"] == ["ignore_case", "fullwidth"]


def test_expected_argument_wins_over_the_reference_and_is_recorded() -> None:
    assert value("exact", "42", "41", expected="42") == 1.0
    ev = EVALUATORS.build("exact", expected="42", ignore_case=True)
    assert ev.requires == ()  # no reference_output needed
    assert EVALUATORS.build("exact").requires == ("reference_output",)
    record = built_from(ev)
    assert record is not None
    assert record.as_dict() == {"registry": "evaluators", "name": "exact",
                                "args": {"expected": "42", "ignore_case": True}}
    assert EVALUATORS.rebuild(record).expected == "42"


def test_a_number_reference_compares_as_written() -> None:
    assert value("exact", "42", 42) == 1.0
    assert value("exact", "0.5", 0.5) == 1.0


def test_contains() -> None:
    s = check("contains", "贵州茅台今日收盘价为1455元", "1455元")
    assert (s.value, s.reason) == (1.0, "the answer contains '1455元'")
    assert s.evidence["at"] == 10
    assert value("contains", "收盘价为１４５５元", "1455元") == 0.0
    assert value("contains", "收盘价为１４５５元", "1455元", fullwidth=True) == 1.0
    assert value("contains", "The answer is PARIS", "paris", ignore_case=True) == 1.0
    assert check("contains", "no", "yes").reason == "the answer does not contain 'yes'"


def test_contains_all_and_any_with_lists() -> None:
    ref = ["茅台", "1455"]
    s = check("contains-all", "茅台收盘1455元", ref)
    assert s.value == 1.0
    assert s.evidence["found"] == ["茅台", "1455"] and s.evidence["missing"] == []
    s = check("contains-all", "茅台收盘", ref)
    assert s.value == 0.0
    assert s.reason == "the answer lacks 1 of 2 expected strings: '1455'"
    assert s.evidence["missing"] == ["1455"]
    assert value("contains-any", "五粮液 1455", ref) == 1.0
    s = check("contains-any", "五粮液", ref)
    assert (s.value, s.reason) == (0.0, "the answer contains none of '茅台', '1455'")


def test_contains_all_cuts_a_text_reference_at_the_separator() -> None:
    assert value("contains-all", "AAPL and MSFT", "AAPL|MSFT", separator="|") == 1.0
    assert value("contains-all", "AAPL only", "AAPL|MSFT", separator="|") == 0.0
    # without a separator a text is one value
    assert value("contains-all", "AAPL|MSFT", "AAPL|MSFT") == 1.0
    assert value("contains-any", "ｍｓｆｔ", ["AAPL", "MSFT"], fullwidth=True,
                 ignore_case=True) == 1.0


def test_contains_all_with_nothing_to_look_for() -> None:
    s = check("contains-all", "x", "", separator="|")
    assert s.status == ScoreStatus.ERROR
    assert "no values to look for" in s.reason and "(item line 3)" in s.reason
    with pytest.raises(ConfigError, match="no values to look for"):
        EVALUATORS.build("contains-any", expected=[])


def test_no_answer_text_is_an_empty_answer() -> None:
    assert value("exact", None, "x") == 0.0
    assert value("contains", "", "x") == 0.0


@pytest.mark.parametrize("name", ["exact", "contains", "contains-all", "contains-any"])
def test_unknown_and_bad_arguments(name: str) -> None:
    with pytest.raises(ConfigError) as err:
        EVALUATORS.build(name, ignore_cases=True)
    msg = str(err.value)
    assert msg.startswith(f"evaluator '{name}': unknown option 'ignore_cases'; did you mean "
                          "ignore_case?")
    assert "(known: expected, " in msg and "label" in msg
    with pytest.raises(ConfigError, match="'ignore_case' must be true or false, not 'yes'"):
        EVALUATORS.build(name, ignore_case="yes")


def test_label_names_the_scores() -> None:
    s = check("contains", "abc", "b", label="has-b")
    assert s.evaluator == "has-b"
    with pytest.raises(ConfigError, match="'label' must be a non-empty name"):
        EVALUATORS.build("contains", label="")
