"""`words.Blanker` blanks what the trie pattern's substitution blanked: each word found left to
right, the longest at a place, replaced by as many blanks (the reader's fillers)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.evaluators.rubric import reader, words

FILLERS = [w for ws in reader._FILLER._by_first.values() for w in ws]


def _by_pattern(ws: list[str], text: str) -> str:
    return re.sub(words.trie(ws), lambda m: " " * len(m.group(0)), text)


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from([*FILLERS, "腾讯", "控股", "\x00", " ", "今", "日", "显", "数据",
                                 "5", "a", "为"]), max_size=8))
def test_the_fillers_are_blanked_as_by_the_trie(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert reader._FILLER.blank(text) == _by_pattern(FILLERS, text)


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.text("abcd", min_size=1, max_size=4), min_size=1, max_size=8),
       st.text("abcde ", max_size=30))
def test_any_words_are_blanked_as_by_the_trie(ws: list[str], text: str) -> None:
    assert words.Blanker(ws).blank(text) == _by_pattern(ws, text)


def test_examples() -> None:
    assert reader._FILLER.blank("另一数据源显示\x00  ") == "       \x00  "
    assert reader._FILLER.blank("腾讯控股") == "腾讯控股"
    # the longest at a place: "数据源" before "数据", "数据显示" before "数据"
    assert words.Blanker(["数据", "数据源", "源显"]).blank("数据源显") == "   显"
