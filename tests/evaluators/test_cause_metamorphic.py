"""Metamorphic tests of `finance-cause`, generated from the development cases: rewordings and
rearrangements that must not change the cause — the answer's wording around its numbers,
unrelated tool calls and their order, a failed call before a successful one, exchange suffixes,
prefixes and case of the symbols."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import pytest

from assay.core.types import Answer, Item
from assay.evaluators.cause import FinanceCause
from tests.evaluators.cause_cases import CASES, Case

EV = FinanceCause()
# decided cases with tool calls (the rules' own shapes; abstentions and null are left out)
DECIDED = [c for c in CASES if c.cause not in (None, "truth_unavailable") and c.calls]

Calls = list[dict[str, Any]]


def cause_of(case: Case, answer: str | None = None, calls: Calls | None = None) -> Any:
    fields = case.item_fields()
    if calls is not None:
        fields["tool_calls"] = calls
    return EV.check(Item(case.id, fields), Answer(answer or case.answer)).evidence.get("cause")


ZH_FRAMES = ("{}", "根据最新行情数据，{}", "{}\n\n（数据仅供参考，不构成投资建议）", "好的。{}",
             "**结论**：{}")
EN_FRAMES = ("{}", "Sure! {}", "{}\n\nNote: data may be delayed.", "Here is what I found: {}")


@pytest.mark.parametrize("case", DECIDED, ids=[c.id for c in DECIDED])
def test_wording_around_the_answer(case: Case) -> None:
    frames = ZH_FRAMES if re.search(r"[\u4e00-\u9fff]", case.answer) else EN_FRAMES
    for frame in frames:
        assert cause_of(case, frame.format(case.answer)) == case.cause, frame


UNRELATED: Calls = [
    {"name": "calendar", "arguments": {"q": "today"}, "result": "trading day"},
    {"name": "news", "arguments": {"q": "market"}, "result": "市场平稳运行"},
    {"name": "think", "arguments": {}, "result": None},
    {"name": "news", "arguments": {"q": "A股"}, "result": "沪深两市成交额1.2万亿元，较上日放量"},
]


def _transforms() -> dict[str, Callable[[Calls], Calls]]:
    return {
        "unrelated first": lambda calls: UNRELATED + calls,
        "unrelated last": lambda calls: calls + UNRELATED[::-1],
        "unrelated between": lambda calls: [x for c in calls for x in (c, UNRELATED[0])],
        "failed before": lambda calls: [
            {"name": calls[0]["name"], "arguments": calls[0].get("arguments"),
             "error": "HTTP 429 too many requests"}, *calls],
        "suffix and case": lambda calls: [_respell(c) for c in calls],
    }


_SPELLINGS: dict[str, str] = {"600519": "600519.sh", "000858": "000858.sz", "00700": "700.hk",
                              "0700.HK": "00700", "000858.SZ": "SZ000858",
                              "SH600519": "600519.SS", "aapl": "AAPL.O", "USDCNY": "usdcny"}


def _respell(call: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(call)
    args = out.get("arguments")
    if isinstance(args, dict):
        for k, v in list(args.items()):
            if isinstance(v, str) and v in _SPELLINGS:
                args[k] = _SPELLINGS[v]
    return out


@pytest.mark.parametrize("name", list(_transforms()))
@pytest.mark.parametrize("case", DECIDED, ids=[c.id for c in DECIDED])
def test_calls_rearranged(case: Case, name: str) -> None:
    assert case.calls is not None
    changed = _transforms()[name](copy.deepcopy(case.calls))
    assert cause_of(case, calls=changed) == case.cause


def test_respellings_reach_every_symbol_kind() -> None:
    """The suffix transform does change some case's calls (else it would test nothing)."""
    changed = [c.id for c in DECIDED if c.calls and [_respell(x) for x in c.calls] != c.calls]
    assert len(changed) >= 8
