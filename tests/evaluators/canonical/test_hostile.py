"""Findings of the hostile review of the canonical form (issue 24), one test each: answers are
untrusted text, so no input may raise, hang or change what an answer means."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay.core.types import Answer, Item, ScoreStatus
from assay.evaluators.canonical import MAX_CHARS, canonical
from assay.evaluators.finance import FinanceRubricEvaluator
from assay.evaluators.judge.parse import ScoreSchema, parse_reply

ITEMS = {json.loads(x)["id"]: json.loads(x) for x in (
    Path(__file__).resolve().parents[2] / "data" / "rubric_corpus" / "t1" / "items.jsonl"
).read_text("utf-8").splitlines() if x.strip()}
RUBRIC = FinanceRubricEvaluator()


def score(item: str, text: str) -> tuple[Any, Any]:
    s = RUBRIC.check(Item(item, ITEMS[item]), Answer(text), None)
    return s.status, s.value


RIGHT = (ScoreStatus.SCORED, 1.0)


@pytest.mark.parametrize("tail", [
    "{'a': 1+2j}", "{'a': b'x'}", "{'a': {1, 2}}", "{'a': ...}", "{'a': 0x" + "f" * 4000 + "}",
    '[{"a":' * 500 + "1" + "}]" * 500,  # nested deeper than the recursion limit
    "{" * 8000, "[{" * 4000, "<think>" * 3000,
    "<reason>x</think>" * 3000, "\\boxed{" * 3000, "\u2063 Previously it was $249.34.",
])
def test_hostile_tails_neither_raise_nor_change_a_right_answer(tail: str) -> None:
    """Each of these once raised (TypeError, ValueError, RecursionError), took seconds
    (quadratic scans), or changed the decision; a right answer stays right."""
    assert score("q-aapl-yf", "Apple latest price $247.45. " + tail) == RIGHT


def test_a_literal_nested_past_the_scan_is_prose_read_in_bounded_time() -> None:
    """A Python literal 1,000 deep (once 1.1 s of re-parsing at every brace) is left as text;
    the number inside it is a number the answer states."""
    text = "Apple latest price $247.45. " + "{'a':" * 1000 + "1" + "}" * 1000
    assert canonical(text).text == text


@pytest.mark.parametrize("text", [
    "Apple (AAPL) latest price: $247.45\nEPS 6.43",
    "Apple (AAPL) latest price: $247.45\nDividend 0.26",
    "Apple's latest stock price: $247.45\nApple 10-K 2024",
    "Apple (AAPL) latest price: $247.45. Note the market correction last month, when AAPL "
    "traded at $220.10.",
    "Apple latest price: $247.45. Actually, over the past year it ranged from $169.21 to "
    "$260.10.",
    "Apple latest price: $247.45. Note: my answer omits </think> tags",
    "Analysis: Apple latest price $247.45.\nAnswer: see above",
    '{"index": 0, "symbol": "AAPL", "close": 247.45}',
    '{"ticker": "AAPL", "price": 247.45, "market_cap": 3.67, "unit": "trillion"}',
])
def test_right_english_answers_stay_right(text: str) -> None:
    assert score("q-aapl-yf", text) == RIGHT


@pytest.mark.parametrize(("item", "text"), [
    ("q-moutai-latest", "贵州茅台最新价1455.00元\n股息 0.96元"),
    ("q-moutai-latest", "贵州茅台最新价1455.00元。数据可能有误差，仅供参考。"),
    ("q-au9999-spot", "Au99.99: 981.02"),
])
def test_right_chinese_and_code_answers_stay_right(item: str, text: str) -> None:
    assert score(item, text) == RIGHT


@pytest.mark.parametrize(("text", "expected"), [
    ("营收二十亿零五百万元", "营收2005000000元"), ("五十铃", "五十铃"), ("三十而立", "三十而立"),
    ("May-15 2024", "May-15 2024"), ("(Oct-17)", "(Oct-17)"), ("version 1.2.2024", "version 1.2.2024"),
    ("NVDA rose today (1.10%)", "NVDA rose today (1.10%)"), ("占比（12.5%）", "占比(12.5%)"),
    ("Tax rate: (21%)", "Tax rate: (21%)"), ("USDCNY 7.12", "USDCNY 7.12"),
    ("BRK.B: $488.81", "BRK.B: $488.81"), ("ANSWER: 247.45", "ANSWER: 247.45"),
])
def test_meanings_are_kept(text: str, expected: str) -> None:
    assert canonical(text).text == expected


def test_an_answer_over_the_limit_is_not_read_and_says_so() -> None:
    s = RUBRIC.check(Item("q-aapl-yf", ITEMS["q-aapl-yf"]), Answer("Apple $247.45 " * 10000),
                     None)
    assert s.status == ScoreStatus.ERROR
    assert f"{MAX_CHARS:,}" in s.reason


@pytest.mark.parametrize(("reply", "expected"), [
    # a verdict whose reason mentions a tag is still the verdict
    ('{"score": 1, "reason": "The response hid its work in a <think> block, but it matches."}', 1),
    ('{"reason": "compare <reason>", "score": 1}', 1),
    # a draft before the final verdict does not win
    ('Draft: {"score": 0}\nFinal: {"score": 1, "reason": "ignores the <think> part"}', 1),
    ('<think>draft {"score": 0}</think>\n{"score": 1}', 1),
    ('<think>\n```json\n{"score": 0}\n```\n</think>\n{"score": 1}', 1),
    ('<|channel|>final<|message|>{"score": 1}<|end|><|start|>assistant<|channel|>analysis'
     '<|message|>hmm {"score": 0}', 1),
    ('Analysis: the answer states 247.45, matching.\n{"score": 1, "reason": "match"}\n'
     'Answer: correct', 1),
    ('{"a": ' + "[" * 3000 + "]" * 3000 + '}\n{"score": 0}', 0),  # nested deeper than recursion
])
def test_judge_replies_are_read_by_their_final_verdict(reply: str, expected: int) -> None:
    j = parse_reply(reply, ScoreSchema())
    assert (j.status, j.score) == (ScoreStatus.SCORED, float(expected))


@pytest.mark.parametrize("reply", [
    '<think>the answer is right: {"score": 1}</think>',  # a verdict only inside the reasoning
    '<think>{"score": 1}',  # never closed
])
def test_a_verdict_only_inside_the_reasoning_is_unscored(reply: str) -> None:
    j = parse_reply(reply, ScoreSchema())
    assert (j.status, j.score) == (ScoreStatus.UNSCORED, None)
    assert j.reasoning and "score" in j.reasoning[0]
    assert "reasoning" in j.reason
