"""Readings that the held-out set (tests/data/rubric_corpus/t1/heldout.jsonl, written blind by a
second writer) showed missing: each a rule about the language, tested on answers other than
the held-out ones, with the value that must still fail beside the one that must pass."""

from __future__ import annotations

import pytest

from assay.core.types import ScoreStatus

from .test_reader import decided, score

# --- the base a change is measured from is the previous close --------------------------------


@pytest.mark.parametrize("answer", [
    "贵州茅台最新价1455.00元，较昨日收盘价1484.91下跌29.91元。",
    "贵州茅台最新价1455.00元，较昨日结算价1484.91下跌29.91元。",
    "贵州茅台报1455.00元，相比前一交易日收盘价1484.91下跌29.91元（-2.01%）。",
    "Kweichow Moutai last traded at 1455.00, down 29.91 from yesterday's close of 1484.91.",
])
def test_the_base_of_a_change_is_not_a_second_latest(answer: str) -> None:
    s = score(answer, "贵州茅台最新价")
    assert decided(s) == 1
    assert [v["value"] for v in s.evidence["values"]] == ["1455.00"]


def test_the_base_of_a_change_answers_the_previous_close() -> None:
    s = score("贵州茅台最新价1455.00元，较昨日收盘价1484.91下跌29.91元。", "贵州茅台昨收")
    assert decided(s) == 1
    assert [(v["field"], v["value"]) for v in s.evidence["values"]] == [
        ("prev_close", "1484.91")]


def test_a_wrong_latest_beside_the_base_still_fails() -> None:
    s = score("贵州茅台最新价1460.00元，较昨日结算价1484.91下跌24.91元。", "贵州茅台最新价")
    assert decided(s) == 0
    assert s.status == ScoreStatus.SCORED
