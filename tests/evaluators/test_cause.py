"""`finance-cause` on the development cases (tests/evaluators/cause_cases.py): each case's
exact cause, its score and the values side by side in the evidence."""

from __future__ import annotations

import pytest

from assay.core.types import Answer, Item, ScoreStatus
from assay.evaluators.cause import CAUSES, FinanceCause
from assay.evaluators.cause.instrument import core
from assay.evaluators.registry import EVALUATORS
from assay.truth.vocabulary import snapshot_from_payload
from tests.evaluators.cause_cases import CASES, MOUTAI, Case, M, quote

EV = FinanceCause()


def judge(case: Case) -> tuple[str | None, object]:
    item = Item(case.id, case.item_fields())
    score = EV.check(item, Answer(case.answer))
    return score.evidence.get("cause"), score


def test_every_cause_has_cases() -> None:
    assert len(CASES) >= 30
    assert {c.cause for c in CASES} >= set(CAUSES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case) -> None:
    item = Item(case.id, case.item_fields())
    s = EV.check(item, Answer(case.answer))
    ev = s.evidence
    assert ev.get("cause") == case.cause, (s.status, s.reason, ev.get("calls"))
    if case.cause == "right":
        assert (s.status, s.value) == (ScoreStatus.SCORED, 1.0)
    elif case.cause == "truth_unavailable":
        assert s.status == ScoreStatus.NULL and s.reason.startswith("truth_unavailable: ")
        return
    elif case.cause is not None:
        assert (s.status, s.value) == (ScoreStatus.SCORED, 0.0)
        assert s.reason.startswith(f"{case.cause}: ")
    elif case.causes:
        assert s.status == ScoreStatus.ABSTAINED
        assert tuple(ev["candidates"]) == case.causes
    else:  # nothing recorded
        assert s.status == ScoreStatus.NULL and "no tool calls recorded" in s.reason
        return
    assert ev["answer_value"] == case.answer_value
    assert (ev.get("tool_value") or {}).get("value") == case.tool_value
    assert ev["truth_value"]["value"] == case.truth_value
    assert ev["rubric"] and ev["asked"]["codes"] is not None


def test_reason_names_the_values() -> None:
    case = next(c for c in CASES if c.id == "m_stale_copied")
    _, s = judge(case)
    assert s.reason == ("stale_data: the tool's 最新价 1448.0 (call 1, quote) fails "  # type: ignore[attr-defined]
                        "仅允许四舍五入误差 against the truth 1455.0; the answer copied it")
    case = next(c for c in CASES if c.id == "w_wrong_moutai")
    _, s = judge(case)
    assert s.reason == ("wrong_instrument: asked 000858 五粮液, the tools returned 600519 "  # type: ignore[attr-defined]
                        "贵州茅台 (quote, call 2); the answer's latest price 1455.00 fails "
                        "仅允许四舍五入误差 against the truth 142.50")
    ev = s.evidence  # type: ignore[attr-defined]
    assert ev["tool"] == {"call": 2, "name": "quote", "instrument": "other",
                          "codes": ["600519"], "names": ["贵州茅台"]}
    assert ev["tool_value"]["arguments"] == {"symbol": "600519", "market": "SH"}
    assert [c["data"] for c in ev["calls"]] == [False, True]


def test_captured_truth_snapshot_is_the_truth() -> None:
    """A run that captured the truth at answer time: that snapshot, not the item's field."""
    case = next(c for c in CASES if c.id == "m_stale_copied")
    item = Item("x", case.item_fields())
    live = snapshot_from_payload({**MOUTAI, "最新价": "1448.0"}, provider="akshare")
    s = EV.check(item, Answer(case.answer), live)
    assert s.evidence["cause"] == "right" and s.value == 1.0
    failed = snapshot_from_payload("not json {", provider="akshare")
    s = EV.check(item, Answer(case.answer), failed)
    assert s.status == ScoreStatus.NULL and s.evidence["cause"] == "truth_unavailable"


def test_rubric_abstains_on_the_answer() -> None:
    """Two readings of the answer decide differently: the rubric abstains, and so does the
    cause, with `right` first among its candidates and the wrong cause the calls show."""
    case = Case("a", "moutai", "最新价1455元；Foo Holdings最新价1400元。",
                [quote({"symbol": "600519"}, {"最新价": 1455.0})], None)
    s = EV.check(Item("a", case.item_fields()), Answer(case.answer))
    assert s.status == ScoreStatus.ABSTAINED
    assert s.evidence["candidates"] == ["right", "misread"]
    assert s.reason.startswith("abstained: the rubric cannot tell whether the answer is right")


def test_a_tool_value_read_two_ways_abstains() -> None:
    """A text result the rubric reads two ways: stale or misread cannot be told, no 0."""
    case = Case("a", "moutai", "最新价1400元",
                [quote(M, "最新价1455元；Foo Holdings最新价1448元。", "search")], None)
    s = EV.check(Item("a", case.item_fields()), Answer(case.answer))
    assert s.status == ScoreStatus.ABSTAINED
    assert s.evidence["candidates"] == ["stale_data", "misread"]
    assert s.evidence["cause"] is None


def test_a_row_named_in_another_language_beside_the_asked_code() -> None:
    """Arguments ask for 600519 and the row names itself in words the question does not use:
    nothing sure says it is another instrument (no call names another), so it is read as the
    question's; its own code would decide."""
    row = {"name": "Kweichow-Moutai Co., Ltd. Class A", "last": 1448.0}
    case = Case("a", "moutai", "1448元", [quote(M, row)], None)
    s = EV.check(Item("a", case.item_fields()), Answer(case.answer))
    assert s.evidence["cause"] == "stale_data"
    row = {"代码": "000858", "name": "Kweichow-Moutai Co., Ltd. Class A", "last": 1448.0}
    case = Case("a", "moutai", "1448元", [quote(M, row)], None)
    s = EV.check(Item("a", case.item_fields()), Answer(case.answer))
    assert s.evidence["cause"] == "wrong_instrument"


def test_registered() -> None:
    entry = EVALUATORS.entry("finance-cause")
    assert entry.kind == "code"
    ev = EVALUATORS.build("finance-cause")
    assert isinstance(ev, FinanceCause) and ev.deterministic and ev.uses_truth
    assert ev.lacking(Item("x", {"prompt": "p", "response_reference": "r"})) == []


def test_a_row_name_the_question_never_uses_beside_the_asked_code() -> None:
    row = {"name": "KMC Corp", "last": 1448.0}
    case = Case("a", "moutai", "1448元", [quote(M, row)], None)
    s = EV.check(Item("a", case.item_fields()), Answer(case.answer))
    assert s.evidence["cause"] == "stale_data"
    assert s.evidence["assumed"].startswith("no call names its instrument")


@pytest.mark.parametrize(("written", "same_as"), [
    ("600519", "600519.SH"), ("sh600519", "600519"), ("SZ.000858", "000858"),
    ("1.600519", "600519.SS"), ("0.000858", "000858.SZ"), ("116.00700", "0700.HK"),
    ("700.hk", "00700"), ("CNY=X", "USD/CNY"), ("usdcnh", "USD/CNH"), ("aapl.o", "AAPL")])
def test_code_spellings(written: str, same_as: str) -> None:
    assert core(written) == core(same_as)


def test_onshore_and_offshore_differ() -> None:
    assert core("USD/CNY") != core("USD/CNH")
