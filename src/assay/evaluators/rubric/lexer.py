"""One pass over an answer finds every word the reader cares about: field words, qualifiers
("盘后", "离岸", "52周"), periods ("年初至今", "this year") and instrument names from the
lexicon (indices, gold quotes, listings, pronouns).

One regex, built once as a trie of all those words, longest match first: on a 2-core machine
each extra pass over the answer costs as much as the rest of the reading, so the four
vocabularies share one."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from operator import itemgetter
from typing import Final

from . import words as F
from .instruments import SCAN_WORDS


@dataclass(frozen=True, slots=True)
class Role:
    field: str  # the field the word names ("" when it names none)
    qual: str  # the field it turns a nearby value into ("" when none)
    period: bool  # it puts a value in another period ("this year")
    scan: str  # "lex" / "listing" / "pronoun" / "" (see instruments.scan)


def _qualifier(word: str) -> str:
    """A word's qualifier: its own, or that of the longest qualifier it starts with
    ("盘后价" → after hours, "离岸人民币" → offshore, "52周最高" → 52-week)."""
    if word in F.QUALIFIERS:
        return F.QUALIFIERS[word]
    for k in range(len(word) - 1, 1, -1):
        q = F.QUALIFIERS.get(word[:k])
        if q is not None:
            return q
    return ""


def _roles() -> dict[str, Role]:
    # the first table a word is listed in wins, as in words.alternation
    first: dict[str, str] = {}
    for f, ws in F.ANSWER_WORDS.items():
        for w in ws:
            first.setdefault(w.lower(), f)
    periods = {w.lower() for w in F.PERIODS}
    everything = set(first) | {w.lower() for w in F.QUALIFIERS} | periods | set(SCAN_WORDS)
    out: dict[str, Role] = {}
    for w in everything:
        field = first.get(w, "")
        out[w] = Role(field, _qualifier(w), w in periods and not field, SCAN_WORDS.get(w, ""))
    return out


ROLES: Final = _roles()


@cache
def _tokens_re() -> re.Pattern[str]:
    """TOKENS: one regex over every word, longest match first (`words.alternation`). Built on
    first use: it decides only where the two halves' words overlap (never on the corpora), and
    building it was a third of this module's import."""
    return F.alternation({"token": tuple(ROLES)})[0]


# TOKENS's two halves (`words.alternation`: ASCII words, whole words only, tried first; the
# others), each as one alternative per first character led by it (`words.led_by_first`): the
# engine skips to a first character and drops the others in one test each, where TOKENS,
# led by lookaheads, enters the pattern at every character of the answer.
_ASCII_WORDS = [w for w in ROLES if w.isascii() and w[0].isalnum()]
_OTHER_WORDS = [w for w in ROLES if not (w.isascii() and w[0].isalnum())]
_ASCII = re.compile(F.led_by_first(_ASCII_WORDS, True, "etaoinshrdlcumwfgypbvkjxqz0123456789"))
_OTHER = re.compile(F.led_by_first(_OTHER_WORDS, False, "价收盘涨跌最开日成交市昨今高低股指年元"))
_START = itemgetter(0)
_OTHER_ASCII = tuple(w for w in _OTHER_WORDS if w.isascii())  # ("% change",)


def tokens(low: str) -> list[tuple[int, int, str, Role]]:
    """(start, end, word, role) for every word of the vocabularies in `low`, in order: what
    TOKENS.finditer gives. The two halves are searched apart (the others only in an answer
    that can hold one) and their words merged; where a word of one half overlaps one of the
    other (never on the corpora), TOKENS decides, as it tries the ASCII half first at each place
    and goes on after the word it took."""
    out = []
    for m in _ASCII.finditer(low):
        w = m.group()
        a = m.start()
        out.append((a, a + len(w), w, ROLES[w]))  # the match is the word: two calls, not four
    if low.isascii() and not F.any_in(_OTHER_ASCII, low):
        return out
    other = []
    for m in _OTHER.finditer(low):
        w = m.group()
        a = m.start()
        other.append((a, a + len(w), w, ROLES[w]))
    if not out or not other:
        return out or other
    out += other
    out.sort(key=_START)
    for k in range(1, len(out)):
        if out[k][0] < out[k - 1][1]:  # an overlap: the halves' searches may differ from one
            out = []
            for m in _tokens_re().finditer(low):
                w = m.group()
                a = m.start()
                out.append((a, a + len(w), w, ROLES[w]))
            break
    return out


_PERIOD_HINTS = ("近", "过去", "日涨", "日跌", "last ", "past ", "-day", "-week", "-month")


def has_numeric_period(low: str) -> bool:
    """Whether any of the hints (_PERIOD_HINTS) is in `low`: nine `in` tests cost less than one
    search of their alternation (BENCHMARKS, "Eleventh session"); written out, they cost less
    than a loop over the hints, which runs on every answer."""
    return ("近" in low or "过去" in low or "日涨" in low or "日跌" in low or "last " in low
            or "past " in low or "-day" in low or "-week" in low or "-month" in low)


assert all(has_numeric_period(w) for w in _PERIOD_HINTS)  # the test holds every hint


