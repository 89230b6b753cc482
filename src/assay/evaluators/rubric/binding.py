"""Tying each value in an answer to the field it speaks of.

A value belongs to the nearest field word before it in the same clause ("开盘价为112.91美元，
最高价114.67美元"); failing that, the nearest one after it in the clause ("112.91 (open)").
"分别 / respectively" sentences pair their field words and values in order. A direction word
("下跌", "fell") names a change and gives it its sign; "跌至 / fell to" name a level.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from decimal import Decimal

from . import fields as F
from .dates import Day, find_dates
from .numbers import Mention, normalise, read_numbers

_CLAUSE_END = re.compile(r"[，,、；;。！？!?\n]|\.(?=\s|$)|\s[-–—]\s")
_SCOPE_END = re.compile(r"[；;。！？!?\n]|\.(?=\s|$)")
# Words that put a value in the past. Comparisons ("较前一交易日下跌") are not among them.
_EARLIER = re.compile(r"前几天|前几日|几天前|此前|之前|上周|earlier|previously|days? ago|last week",
                      re.IGNORECASE)
_RESPECTIVELY = re.compile(r"分别|respectively", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Bound:
    """A value with the field it was tied to and the words that tied it."""

    field: str
    mention: Mention
    value: Decimal  # signed: direction words applied
    via: str  # the field word, or "fallback" / "respectively"
    day: Day | None = None  # the date its clause or sentence gives it, if any
    earlier: bool = False  # its sentence says it is from before ("前几天", "earlier")


@dataclass(frozen=True, slots=True)
class _Word:
    start: int
    end: int
    text: str
    field: str


def _boundaries(text: str, pattern: re.Pattern[str], in_number: bytearray) -> list[int]:
    # a comma or dot inside "1,234.5" is not a boundary
    return [b.start() for b in pattern.finditer(text) if not in_number[b.start()]]


def _segment(pos: int, bounds: list[int], length: int) -> tuple[int, int]:
    start, end = 0, length
    for b in bounds:
        if b < pos:
            start = b + 1
        else:
            end = b
            break
    return start, end


def _direction(words: list[_Word], lo: int, hi: int) -> int:
    """-1 / +1 from the nearest direction word in [lo, hi), 0 when there is none."""
    for w in reversed(words):
        if w.start >= hi or w.start < lo:
            continue
        t = w.text.lower()
        if t in F.FALL_SET:
            return -1
        if t in F.RISE_SET:
            return 1
    return 0


def _resolve(word: _Word, mention: Mention) -> str:
    """The field a field word gives a value, adjusted for the value's unit."""
    field = word.field
    if field == F.CHANGE and (mention.percent or word.text.lower() in F.PCT_WORDS):
        return F.CHANGE_PCT
    if field == F.CHANGE_PCT and mention.unit == "bp":
        return F.CHANGE
    return field


def bind(answer: str, required: tuple[str, ...] = ()) -> list[Bound]:
    """Every value of `answer` tied to a field; values with no field word are tied only when
    one field is required and the value is of its kind (a bare "$157.91" answers "the price")."""
    text = normalise(answer)
    mentions = read_numbers(text)
    if not mentions:
        return []
    lowered = text.lower()
    owner = F.ANSWER_OWNER
    words = [_Word(m.start(), m.end(), m.group(0), owner[m.group(0)])
             for m in F.ANSWER_RE.finditer(lowered)]
    quals = [(q.start(), F.QUALIFIERS[q.group(0)]) for q in F.QUALIFIER_RE.finditer(lowered)]
    # Words that overlap a number (e.g. "m" of "3M") are not field words.
    in_number = bytearray(len(text))
    for m in mentions:
        in_number[m.start:m.end] = b"\x01" * (m.end - m.start)
    words = [w for w in words if not in_number[w.start]]
    clause_bounds = _boundaries(text, _CLAUSE_END, in_number)
    out: list[Bound] = []
    paired = _respectively(text, mentions, words, in_number)
    for mention in mentions:
        if id(mention) in paired:
            field = paired[id(mention)]
            out.append(_finish(field, mention, words, (0, mention.start), "respectively"))
            continue
        cs, ce = _segment(mention.start, clause_bounds, len(text))
        before = [w for w in words if cs <= w.start and w.end <= mention.start]
        after = [w for w in words if mention.end <= w.start and w.end <= ce]
        word = before[-1] if before else (after[0] if after else None)
        if word is None:
            if len(required) == 1 and _fits(required[0], mention):
                out.append(Bound(required[0], mention, mention.value, "fallback"))
            continue
        field = _resolve(word, mention)
        if field == F.LAST:
            for qpos, qfield in quals:
                if cs <= qpos < mention.start:
                    field = qfield
        out.append(_finish(field, mention, words, (cs, mention.start), word.text))
    return out


def with_days(answer: str, bound: list[Bound]) -> list[Bound]:
    """Give each value its date: the date in its own clause ("7.12（10月15日）"), else the last
    one before it in its sentence, else the first after; and flag values said to be earlier.

    Separate from `bind` because only a field with several values needs it, and reading dates
    on every answer cost more than the rest of the binding."""
    text = normalise(answer)
    in_number = bytearray(len(text))
    for b in bound:
        in_number[b.mention.start:b.mention.end] = b"\x01" * (b.mention.end - b.mention.start)
    dates = find_dates(text)
    markers = [m.start() for m in _EARLIER.finditer(text)]
    if not dates and not markers:
        return bound
    clauses = _boundaries(text, _CLAUSE_END, in_number)
    sentences = _boundaries(text, _SCOPE_END, in_number)
    out = []
    for b in bound:
        start, end = b.mention.start, b.mention.end
        cs, ce = _segment(start, clauses, len(text))
        ss, se = _segment(start, sentences, len(text))
        day = None
        for lo, hi in ((cs, ce), (ss, se)):
            before = [d for pos, d in dates if lo <= pos < start]
            after = [d for pos, d in dates if end <= pos < hi]
            if before or after:
                day = before[-1] if before else after[0]
                break
        earlier = any(ss <= pos < start for pos in markers)
        out.append(replace(b, day=day, earlier=earlier) if day or earlier else b)
    return out


def _finish(field: str, mention: Mention, words: list[_Word], span: tuple[int, int],
            via: str) -> Bound:
    value = mention.value
    if field in (F.CHANGE, F.CHANGE_PCT) and not mention.signed:
        sign = _direction(words, span[0], span[1] + 1)
        if sign < 0:
            value = -value
    return Bound(field, mention, value, via)


def _fits(field: str, mention: Mention) -> bool:
    if mention.unit:
        return False
    return mention.percent == (field in F.PERCENT_FIELDS)


def _respectively(text: str, mentions: list[Mention], words: list[_Word],
                  in_number: bytearray) -> dict[int, str]:
    """"开盘价、最高价、最低价分别为112.91、114.67、112.66": pair words and values in order.

    Within the sentence part holding 分别/respectively, the last run of field words that is
    followed by a run of as many values is paired one to one."""
    out: dict[int, str] = {}
    if not _RESPECTIVELY.search(text):
        return out
    bounds = _boundaries(text, _SCOPE_END, in_number)
    for r in _RESPECTIVELY.finditer(text):
        ss, se = _segment(r.start(), bounds, len(text))
        tokens: list[tuple[int, object]] = [(m.start, m) for m in mentions if ss <= m.start < se]
        tokens += [(w.start, w) for w in words if ss <= w.start < se and _pairable(w)]
        tokens.sort(key=lambda t: t[0])
        runs: list[tuple[list[_Word], list[Mention]]] = []
        for _, tok in tokens:
            if isinstance(tok, _Word):
                if not runs or runs[-1][1]:
                    runs.append(([], []))
                runs[-1][0].append(tok)
            elif isinstance(tok, Mention) and runs:
                runs[-1][1].append(tok)
        for ws, ms in reversed(runs):
            if len(ws) >= 2 and len(ws) == len(ms):
                for w, m in zip(ws, ms, strict=True):
                    out[id(m)] = _resolve(w, m)
                break
    return out


def _pairable(word: _Word) -> bool:
    t = word.text.lower()
    return (word.field != F.OTHER and t not in F.FALL_SET and t not in F.RISE_SET
            and t not in ("to", "至"))
