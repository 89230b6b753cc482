"""`words.FirstChar` answers what the whole alternation answers (whether one alternative matches
at a place), trying only the alternatives that can start with the first non-blank character
there (one pattern for all ASCII letters). Checked for the number reader's two alternations on
texts built from their own words, letters of both cases, digits, CJK characters and blanks."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.evaluators.rubric import numbers
from assay.evaluators.rubric.words import FirstChar

PIECES = st.sampled_from([
    "Oct", "october", "JAN", "2,", "17", "5", " ", "  ", "\t", ".", ",", "-", "/", ":", "：", "(",
    "（", "年", "月", "日", "号", "时", "点", "分", "码代", "edoc", "#", "第", "on.", "st", "TH",
    "of", "am", "p.m.", "bn", "pts", "usd", "美元", "兑", "x", "Y", "q3", "ads", "shares", "股",
    "=", "元", "个月", "etf", "minutes", "wk", "ſ", "\u212a", "a", "Z", "٣"])


@settings(max_examples=4000, deadline=None)
@given(st.lists(PIECES, max_size=7), st.integers(0, 3))
def test_it_answers_what_the_whole_alternation_answers(pieces: list[str], pos: int) -> None:
    text = "".join(pieces)
    pos = min(pos, len(text))
    for first_char in (numbers._LEFT_REV, numbers._RIGHT):
        whole = re.compile("|".join(first_char._alternatives), first_char._flags)
        assert first_char.match(text, pos) == (whole.match(text, pos) is not None), text


def test_all_ascii_letters_share_one_pattern() -> None:
    fc = FirstChar([r"\s*jan(?![a-z])", r"\s*feb", r"\s*年", r"\d+x"], re.IGNORECASE)
    assert fc.match(" Jan 5") and fc.match("feb") and fc.match("年") and fc.match("12x")
    assert not fc.match("janet") and not fc.match("月") and not fc.match("x12")
    patterns = {id(fc._by[c]) for c in "Jfx"}
    assert len(patterns) == 1  # one compile for the letters met
    assert fc._by["年"] is not fc._by["j"]
