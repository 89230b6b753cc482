"""The canonical form's "currency mark apart" step ("为HK$607.5" → "为 HK$607.5") finds the marks
and tests the character before in code; it inserts the blanks the lookbehind pattern it replaced
inserted, on texts built from marks, CJK characters, letters and digits."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.evaluators.canonical import quotes

OLD = re.compile(r"(?<=[\u4e00-\u9fff])(?=(?:HK|US|NT|S|A|C)\$)")
PIECES = st.sampled_from(["HK$", "US$", "NT$", "S$", "A$", "C$", "$", "H", "K", "U", "S", "N",
                          "T", "A", "C", "为", "收", "约", "价", "〇", "ー", "607.5", " ", "\n",
                          "（", "SUS$", "AHK$"])


def _apart(text: str) -> str:
    return quotes._CURRENCY_MARK.sub(quotes._currency_apart, text)


@settings(max_examples=3000, deadline=None)
@given(st.lists(PIECES, max_size=8))
def test_it_inserts_what_the_lookbehind_inserted(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert _apart(text) == OLD.sub(" ", text)


def test_examples() -> None:
    assert _apart("腾讯收于HK$607.5，苹果为US$233") == "腾讯收于 HK$607.5，苹果为 US$233"
    assert _apart("price HK$607.5") == "price HK$607.5"
    assert _apart("为SUS$1") == "为SUS$1"  # "US$" follows a letter
