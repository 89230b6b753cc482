"""`numbers._INDEX_LEFT_REV` (an index name right before a number, read in the reversed text)
decides as the two-alternative pattern it replaced, which held two CJK ranges: the name followed
by neither a letter nor a CJK character, or by a CJK character."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.evaluators.rubric import numbers

_REV = numbers._rev_words(numbers._INDEX_WORDS)
OLD = re.compile(rf"\s*{_REV}(?![a-z]|(?-i:[\u4e00-\u9fff]))|\s*{_REV}(?=(?-i:[\u4e00-\u9fff]))",
                 re.IGNORECASE)
# what can stand around an index name: its own letters, other letters (those IGNORECASE takes
# for ASCII ones too), CJK characters, digits, blanks and marks
PIECES = st.sampled_from([*numbers._INDEX_WORDS, *(w.upper() for w in numbers._INDEX_WORDS),
                          "的", "指", "数", "收", "x", "S", "ſ", "\u212a", "\u0130", "\u0131",
                          "é", "3", " ", "  ", "\t", "(", "-", "：", "全", "港"])


@settings(max_examples=3000, deadline=None)
@given(st.lists(PIECES, max_size=6))
def test_it_decides_as_the_two_alternatives_did(pieces: list[str]) -> None:
    left = "".join(pieces)[::-1]  # the text before a number, reversed, as `_not_a_value` reads it
    assert bool(numbers._INDEX_LEFT_REV.match(left)) == bool(OLD.match(left))


def test_examples() -> None:
    for before, expected in (("沪深", True), ("的沪深", True), ("CSI ", True), ("标普", True),
                             ("nasdaq", True), ("xnasdaq", False), ("的 a股", True),
                             ("data", False), ("价格", False)):
        assert bool(numbers._INDEX_LEFT_REV.match(before[::-1])) is expected, before
        assert bool(OLD.match(before[::-1])) is expected, before
