"""Case facts of text that the readers' regular expressions depend on, tested in C.

`re` under IGNORECASE matches four non-ASCII letters as ASCII ones: İ and ı as i, K (Kelvin) as
k, ſ (long s) as s. A word matched that way is looked up by `word_key`; and since every English
word the readers match holds a letter without such a partner, text without an ASCII letter
holds none of them (`has_ascii_letter` gates those searches)."""

from __future__ import annotations

_CASE_PARTNERS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u212a": "k", "\u017f": "s"})


def word_key(word: str) -> str:
    """The lower-case word an IGNORECASE match stands for ("ſept" → "sept", "SEP" → "sep"): the
    key to look a matched word up with in a table of lower-case words, where `.lower()` leaves
    "ſ" as it is and the lookup fails."""
    return word.translate(_CASE_PARTNERS).lower()


def has_ascii_letter(text: str) -> bool:
    """Whether `text` holds an ASCII letter ([A-Za-z]), without a regex call: its ASCII
    characters upper- and lower-cased differ exactly where one is a letter."""
    b = text.encode("ascii", "ignore")
    return b.lower() != b.upper()


def has_ascii_upper(text: str) -> bool:
    """Whether `text` holds an ASCII capital ([A-Z]), without a regex call."""
    b = text.encode("ascii", "ignore")
    return b.lower() != b
