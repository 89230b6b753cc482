"""One pass over an answer finds every word the reader cares about: field words, qualifiers
("盘后", "离岸", "52周"), periods ("年初至今", "this year") and instrument names from the
lexicon (indices, gold quotes, listings, pronouns).

One regex, built once as a trie of all those words, longest match first: on a 2-core machine
each extra pass over the answer costs as much as the rest of the reading, so the four
vocabularies share one."""

from __future__ import annotations

from dataclasses import dataclass
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
TOKENS, _ = F.alternation({"token": tuple(ROLES)})


def tokens(low: str) -> list[tuple[int, int, str, Role]]:
    """(start, end, word, role) for every word of the vocabularies in `low`, in order."""
    out = []
    for m in TOKENS.finditer(low):
        w = m.group()
        a = m.start()
        out.append((a, a + len(w), w, ROLES[w]))  # the match is the word: two calls, not four
    return out


_PERIOD_HINTS = ("近", "过去", "日涨", "日跌", "last ", "past ", "-day", "-week", "-month")


def has_numeric_period(low: str) -> bool:
    """Whether any of the hints is in `low`: nine `in` tests cost less than one search of
    their alternation (BENCHMARKS, "Eleventh session")."""
    return F.any_in(_PERIOD_HINTS, low)


