"""regex, numeric, json-valid, json-schema, length, similarity: edge cases with their actual
scores, reasons and evidence, Chinese and full-width text included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.core.errors import ConfigError
from assay.core.types import ScoreStatus
from assay.evaluators.registry import EVALUATORS

from .helpers import check, value

# -- regex --------------------------------------------------------------------------------------


def test_regex_searches_anywhere() -> None:
    s = check("regex", "收盘价：1455.00元", pattern=r"(\d+)\.(\d{2})元")
    assert s.value == 1.0
    assert s.evidence["match"] == "1455.00元"
    assert s.evidence["span"] == [4, 12]
    assert s.evidence["groups"] == ["1455", "00"]
    assert check("regex", "A股", pattern=r"(?P<m>[A-Z])股").evidence["groups"] == {"m": "A"}
    s = check("regex", "none here", pattern=r"\d")
    assert (s.value, s.reason) == (0.0, r"no match for /\d/")


def test_regex_flags() -> None:
    assert value("regex", "YES", pattern="^yes$") == 0.0
    assert value("regex", "YES", pattern="^yes$", flags="i") == 1.0
    assert value("regex", "a\nYES", pattern="^yes$", flags=["IGNORECASE", "MULTILINE"]) == 1.0
    assert value("regex", "a\nyes", pattern="^yes$", flags="m") == 1.0
    with pytest.raises(ConfigError, match="unknown regex flag 'q'"):
        EVALUATORS.build("regex", pattern="x", flags="q")


def test_regex_bad_pattern_is_one_line_naming_the_evaluator() -> None:
    with pytest.raises(ConfigError) as err:
        EVALUATORS.build("regex", pattern="([0-9]+")
    assert str(err.value) == ("evaluator 'regex': pattern '([0-9]+' is not a valid regular "
                              "expression: missing ), unterminated subpattern at position 0")
    with pytest.raises(ConfigError, match="evaluator 'regex' needs 'pattern'"):
        EVALUATORS.build("regex")
    assert not EVALUATORS.build("regex", pattern="x").requires  # no reference needed


# -- numeric ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("answer", "reference"), [
    ("收盘价为1455.00元", "1455"),
    ("营收约1.2亿元", "120000000"),
    ("营收为120,000,000元", "1.2亿"),
    ("Revenue was 1.2 billion", "1,200,000,000"),
    ("收盘价为１，４５５．００元", "1455"),  # full-width digits and separators
    ("跌幅为−3.5%", "-3.5"),  # the Unicode minus
    ("12万股", "120000"),
    ("6 629,07", "6629.07"),  # European separators
])
def test_numeric_reads_numbers_as_the_rubric_does(answer: str, reference: str) -> None:
    assert value("numeric", answer, reference) == 1.0


@pytest.mark.parametrize(("answer", "reference", "read"), [
    # issue 28: the finance reader's exclusions are not a general check's
    ("12 minutes", "12", ["12"]),
    ("About 5 hours", "5", ["5"]),
    ("1440分钟", "1440", ["1440"]),
    ("3倍", "3", ["3"]),
    ("revenue grew 12.5x", "12.5", ["12.5"]),
    ("It takes 1,440 minutes, i.e. 1 day", "1440", None),  # two numbers: abstains
    ("a 10-day window", "10", ["10"]),
    ("5个交易日", "5", ["5"]),
])
def test_numeric_reads_durations_counts_and_multiples(answer: str, reference: str,
                                                      read: list[str] | None) -> None:
    s = check("numeric", answer, reference)
    if read is None:
        assert s.status == ScoreStatus.ABSTAINED
        assert s.evidence["candidates"] == ["1,440", "1"]
    else:
        assert (s.value, [r["text"] for r in s.evidence["read"]]) == (1.0, read)


def test_numeric_still_skips_dates_codes_and_glued_identifiers() -> None:
    assert value("numeric", "2025年10月17日: 3 days", "3") == 1.0  # the date is no number
    assert check("numeric", "A50 times", "50").reason == "the answer states no number"
    assert value("numeric", "营收1.2亿元，同比增长3倍", "120000000", pick="first") == 1.0


def test_numeric_tolerances() -> None:
    assert value("numeric", "1455.4", "1455") == 0.0
    assert value("numeric", "1455.4", "1455", abs=0.5) == 1.0
    assert value("numeric", "1455.6", "1455", abs=0.5) == 0.0
    assert value("numeric", "1456", "1455", rel=0.001) == 1.0  # 1.455 allowed
    assert value("numeric", "1457", "1455", rel=0.001) == 0.0
    assert value("numeric", "1457", "1455", rel=0.001, abs=2) == 1.0  # either suffices
    assert value("numeric", "-3.49", -3.5, abs=0.01) == 1.0
    assert value("numeric", "3.5", -3.5, abs=0.01) == 0.0  # the sign counts
    s = check("numeric", "about 1,456", 1455, rel=0.001)
    assert s.reason == "1,456 is within tolerance of 1455"
    assert s.evidence == {"expected": "1455", "expected_value": "1455", "abs": "0",
                          "rel": "0.001", "pick": "all",
                          "read": [{"text": "1,456", "value": "1456", "within": True}]}


def test_numeric_several_numbers_abstain_unless_picked() -> None:
    answer = "开盘1400元，收盘1455元"
    s = check("numeric", answer, "1455")
    assert s.status == ScoreStatus.ABSTAINED and s.value is None
    assert s.evidence["candidates"] == ["1400", "1455"]
    assert "set pick: first, last or any" in s.reason
    assert value("numeric", answer, "1455", pick="last") == 1.0
    assert value("numeric", answer, "1455", pick="first") == 0.0
    assert value("numeric", answer, "1455", pick="any") == 1.0
    # several numbers that agree decide together; dates are not numbers
    assert value("numeric", "2024年1月5日收盘1455元，即1,455.0元", "1455") == 1.0
    assert value("numeric", "开盘1400元，收盘1410元", "1455") == 0.0


def test_numeric_only_numbers_leaves_other_items_out() -> None:
    """Issue 28: in a mixed dataset numeric applies where the reference is a number."""
    s = check("numeric", "Paris", "Paris", only_numbers=True)
    assert (s.status, s.value) == (ScoreStatus.SKIPPED, None)  # as when: {reference: number}
    assert s.reason == "not applicable: the reference states no single number (only_numbers)"
    assert s.evidence == {"reference": "'Paris' states no number; the expected answer must "
                                       "state one"}
    assert value("numeric", "1440 minutes", "1440", only_numbers=True) == 1.0
    assert check("numeric", "Paris", "Paris").status == ScoreStatus.ERROR  # the default
    with pytest.raises(ConfigError, match="'only_numbers' must be true or false, not 'yes'"):
        EVALUATORS.build("numeric", only_numbers="yes")


def test_numeric_no_number_and_bad_expected() -> None:
    s = check("numeric", "不知道", "1455")
    assert (s.value, s.reason) == (0.0, "the answer states no number")
    s = check("numeric", "1455", "unknown")
    assert s.status == ScoreStatus.ERROR
    assert s.reason == ("expected answer: 'unknown' states no number; the expected answer "
                        "must state one (item line 3)")
    with pytest.raises(ConfigError, match="'expected': '1 or 2' states 2 numbers"):
        EVALUATORS.build("numeric", expected="1 or 2")
    with pytest.raises(ConfigError, match="'abs' must be a number ≥ 0, not -1"):
        EVALUATORS.build("numeric", abs=-1)
    with pytest.raises(ConfigError, match="'rel' must be a number ≥ 0, not 'x'"):
        EVALUATORS.build("numeric", rel="x")
    with pytest.raises(ConfigError, match="'pick' must be one of all, first, last, any"):
        EVALUATORS.build("numeric", pick="middle")
    assert value("numeric", "1455", expected=1455) == 1.0


# -- JSON ---------------------------------------------------------------------------------------


def test_json_valid() -> None:
    assert value("json-valid", '{"价格": 1455}') == 1.0
    assert check("json-valid", "[1, 2]").reason == "the answer is valid JSON (an array)"
    s = check("json-valid", '{"a": 1,}')
    assert s.value == 0.0
    assert s.reason == ("the answer is not JSON: Expecting property name enclosed in double "
                        "quotes at line 1 column 9")
    fenced = '```json\n{"a": 1}\n```'
    s = check("json-valid", fenced)
    assert s.value == 1.0 and s.evidence["fenced"] is True
    assert value("json-valid", fenced, fenced=False) == 0.0
    assert value("json-valid", "") == 0.0


SCHEMA = {"type": "object", "required": ["ticker", "price"],
          "properties": {"ticker": {"type": "string"}, "price": {"type": "number",
                                                                 "minimum": 0}}}


def test_json_schema_inline() -> None:
    assert value("json-schema", '{"ticker": "600519", "price": 1455.0}', schema=SCHEMA) == 1.0
    s = check("json-schema", '{"ticker": "600519", "price": -1}', schema=SCHEMA)
    assert s.value == 0.0
    assert s.reason == ("the answer breaks the schema (1 error): at /price: -1 is less than "
                        "the minimum of 0")
    assert s.evidence["errors"] == [{"at": "/price", "message":
                                     "-1 is less than the minimum of 0"}]
    s = check("json-schema", '{"price": "高"}', schema=SCHEMA)
    assert s.evidence["error_count"] == 2
    assert check("json-schema", "不是JSON", schema=SCHEMA).reason.startswith(
        "the answer is not JSON: Expecting value")


def test_json_schema_from_a_file_and_its_version(tmp_path: Path) -> None:
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(SCHEMA), encoding="utf-8")
    ev = EVALUATORS.build("json-schema", schema=str(path))
    assert check("json-schema", '{"ticker": "x", "price": 1}', schema=str(path)).value == 1.0
    yaml_path = tmp_path / "schema.yaml"
    yaml_path.write_text("type: array\nitems: {type: integer}\n", encoding="utf-8")
    assert value("json-schema", "[1, 2]", schema=str(yaml_path)) == 1.0
    assert value("json-schema", '["a"]', schema=str(yaml_path)) == 0.0
    # the schema is part of the version: a changed schema is a changed evaluator
    other = EVALUATORS.build("json-schema", schema={"type": "array"})
    assert ev.version != other.version
    assert ev.version == EVALUATORS.build("json-schema", schema=SCHEMA).version


def test_json_schema_bad_schema_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        EVALUATORS.build("json-schema", schema={"type": "objekt"})
    assert str(err.value).startswith("evaluator 'json-schema': the schema (inline) is not a "
                                     "valid JSON Schema: 'objekt' is not valid under any of "
                                     "the given schemas")
    with pytest.raises(ConfigError, match=r"schema file .*nope.json: no such file"):
        EVALUATORS.build("json-schema", schema=str(tmp_path / "nope.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("{oops", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad.json does not parse: Expecting property name"):
        EVALUATORS.build("json-schema", schema=str(bad))
    with pytest.raises(ConfigError, match="'schema' is a mapping or the path"):
        EVALUATORS.build("json-schema", schema=3)


# -- length -------------------------------------------------------------------------------------


def test_length_in_chars_and_words() -> None:
    assert value("length", "贵州茅台", max=4) == 1.0
    s = check("length", "贵州茅台股份", max=4)
    assert (s.value, s.reason) == (0.0, "6 chars, more than the maximum 4")
    assert s.evidence["length"] == 6
    assert value("length", "  ab  ", min=2, max=2) == 1.0  # the ends are stripped
    assert value("length", "  ab  ", min=2, max=2, strip=False) == 0.0
    # words: spaced words, and each CJK character alone
    assert check("length", "The price is 1,455.00", unit="words", min=1).evidence["length"] == 4
    assert check("length", "茅台 price 是1455元", unit="words", min=1).evidence["length"] == 6
    assert value("length", "too short", unit="words", min=3) == 0.0
    assert check("length", "", min=1).reason == "0 chars, fewer than the minimum 1"


def test_length_arguments() -> None:
    with pytest.raises(ConfigError, match="evaluator 'length' needs 'min', 'max' or both"):
        EVALUATORS.build("length")
    with pytest.raises(ConfigError, match=r"'min' \(5\) is above 'max' \(2\)"):
        EVALUATORS.build("length", min=5, max=2)
    with pytest.raises(ConfigError, match="'unit' must be chars or words, not 'tokens'"):
        EVALUATORS.build("length", max=2, unit="tokens")
    with pytest.raises(ConfigError, match=r"'max' must be a whole number ≥ 0, not 2\.5"):
        EVALUATORS.build("length", max=2.5)


# -- similarity ---------------------------------------------------------------------------------


def test_similarity_methods() -> None:
    assert value("similarity", "kitten", "sitting") == pytest.approx(1 - 3 / 7, abs=1e-6)
    assert value("similarity", "same", "same") == 1.0
    assert value("similarity", "world hello", "hello world", method="token-sort") == 1.0
    assert value("similarity", "abc", "xyz", method="ratio") == 0.0
    # ROUGE-L over words: LCS "the cat the mat" = 4 of 6 and 4 of 6 words
    assert value("similarity", "the cat sat on the mat", "the cat lay near the mat",
                 method="rouge-l") == pytest.approx(4 / 6, abs=1e-6)
    # Chinese: each character is a word; LCS 贵州茅台上涨 = 6, of 8 and of 6
    p, r = 6 / 8, 6 / 6
    assert value("similarity", "贵州茅台今日上涨", "贵州茅台上涨", method="rouge-l") == \
        pytest.approx(round(2 * p * r / (p + r), 6))
    assert value("similarity", "ＡＢＣ", "abc", fullwidth=True, ignore_case=True) == 1.0
    assert value("similarity", "", "", method="rouge-l") == 1.0


def test_similarity_threshold() -> None:
    s = check("similarity", "kitten", "sitting", threshold=0.5)
    assert (s.value, s.reason) == (1.0, "levenshtein similarity 0.571 ≥ threshold 0.5")
    assert s.evidence["similarity"] == pytest.approx(0.571429)
    assert value("similarity", "kitten", "sitting", threshold=0.6) == 0.0
    with pytest.raises(ConfigError, match=r"'threshold' must be a number in \[0, 1\], not 2"):
        EVALUATORS.build("similarity", threshold=2)
    with pytest.raises(ConfigError, match="'method' must be one of levenshtein"):
        EVALUATORS.build("similarity", method="bleu")


def test_every_check_is_cheap_code_without_truth() -> None:
    for name, args in [("exact", {}), ("regex", {"pattern": "x"}), ("numeric", {}),
                       ("json-valid", {}), ("length", {"max": 1}), ("similarity", {})]:
        ev = EVALUATORS.build(name, **args)
        assert ev.deterministic and not ev.uses_truth and ev.concurrency == 1
        assert len(ev.version) == 12


def test_versions_cover_the_code_that_decides() -> None:
    from assay.evaluators.builtin.base import source_version

    numeric = EVALUATORS.build("numeric")
    # the rubric's number reader decides what numeric reads: its source is in the version
    assert numeric.version == source_version("assay.evaluators.builtin.numeric",
                                             "assay.evaluators.rubric.numbers")
    assert numeric.version != source_version("assay.evaluators.builtin.numeric")
    assert EVALUATORS.build("similarity").version != source_version(
        "assay.evaluators.builtin.similarity")  # and rapidfuzz's installed version
