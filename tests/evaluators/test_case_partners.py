"""Words matched case-insensitively are looked up by the word they stand for.

Under IGNORECASE, `re` matches "ſ" (long s) as s, "K" (Kelvin) as k, and "İ" and "ı" as i; but
`.lower()` leaves "ſ" and "ı" as they are, so a matched "ſept" looked up as "ſep" in a table of
months raised KeyError and the check crashed (a review found "5 ſept 2023"). Each reader that
looks a matched word up now folds it first (`core.text.word_key`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.core.casing import word_key
from assay.core.types import Answer, Item
from assay.evaluators.finance import FinanceRubricEvaluator
from assay.evaluators.historical import keys, periods, quantities
from assay.evaluators.rubric import dates

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.mark.parametrize(("word", "key"), [
    ("ſept", "sept"), ("SEP", "sep"), ("\u212aB", "kb"), ("İn", "in"), ("ıt", "it"),
    ("Twenty", "twenty"), ("百分之", "百分之")])
def test_word_key_is_the_word_an_ignorecase_match_stands_for(word: str, key: str) -> None:
    assert word_key(word) == key


def _odd(text: str) -> str:
    """The same words with the letters IGNORECASE reads as ASCII ones swapped in."""
    return text.replace("s", "ſ").replace("k", "\u212a").replace("i", "ı")


ANSWERS = [
    "贵州茅台收盘价1455.00元（5 Sept 2023）",
    "The ten-year yield was 1455 on 31 Dec 2024.",
    "**six** quotes; nineteen ninety-six close 1455.00",
    "Close 1455.00 (Dec25 contract), up sixteen percent",
    "It rose to twenty-five thousand, then six-year high 1455",
]


@pytest.mark.parametrize("answer", ANSWERS)
def test_an_answer_with_case_partners_is_checked_not_crashed(answer: str) -> None:
    rows = json.loads((EXAMPLES / "finsearch_t1_sample.json").read_text("utf-8"))
    t23 = json.loads((EXAMPLES / "finsearch_t23_sample.json").read_text("utf-8"))
    e = FinanceRubricEvaluator()
    for row in (rows[0], t23[0]):
        plain = e.check(Item(id="p", fields=row), Answer(text=answer))
        odd = e.check(Item(id="o", fields=row), Answer(text=_odd(answer)))
        assert odd.status in ("scored", "abstained", "null"), (answer, odd.reason)
        assert plain.status in ("scored", "abstained", "null")


def test_the_readers_read_a_case_partner_word_as_the_word() -> None:
    assert [v for _, v in dates.find_dates("on 5 ſept 2023")] == \
        [v for _, v in dates.find_dates("on 5 Sept 2023")]
    assert periods.period_of("ſeptember 2023") == periods.period_of("September 2023")
    assert [m.q for m in quantities.read_mentions("ſix million shares")] == \
        [m.q for m in quantities.read_mentions("six million shares")]
    assert [m.q for m in quantities.read_mentions("6 billion US dollarſ, 5 percent")] == \
        [m.q for m in quantities.read_mentions("6 billion US dollars, 5 percent")]
    # the unit word is kept as written; what it means is the same
    assert [(m.q.value, m.q.dim, m.q.currency, m.q.per)
            for m in quantities.read_mentions("10 ſhares; 5 USD/ſhare")] == \
        [(m.q.value, m.q.dim, m.q.currency, m.q.per)
         for m in quantities.read_mentions("10 shares; 5 USD/share")] == \
        [(10, "shares", None, ""), (5, "money", "USD", "share")]
    assert keys.month_key("ſeptember 2023") == keys.month_key("September 2023") == "M9"
