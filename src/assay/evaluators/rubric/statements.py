"""An answer cut into statements: sentences of prose and list items, and table cells with
their column header and row label. A statement that does not name its instrument inherits one:
a table's cells from their row label or column header, a list item or a sentence from the
heading or the sentence before it. Spans are offsets in the normalised answer."""

from __future__ import annotations

import itertools
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from .instruments import Name

Span = tuple[int, int]

_SENT_END = re.compile(r"[。！？!?；;.](?:(?<!\.)|(?=\s|$))")  # [。！？!?；;]|\.(?=\s|$), faster
# The characters _SENT_END matches: where a clause end (`reader`'s, a superset) is one of them,
# it is a sentence end too, so the reader's one pass over the answer gives both.
SENT_CHARS = frozenset("。！？!?；;.")
_BULLET = re.compile(r"\s*(?:[-+•·▪◦>]|\d{1,2}[.、)）](?!\d)|[（(]\d{1,2}[)）]|[a-hA-H][.)](?=\s))\s*")
_SEPARATOR = re.compile(r"\s*:?-{2,}:?\s*")
# the characters a _BULLET match's mark can start with, besides a decimal digit
_BULLET_FIRST = frozenset("-+•·▪◦>（(abcdefghABCDEFGH")


# What a statement speaks of: the name that gives it its subject (its `mine`: the item's
# instrument or another one; its `text`), the Name itself rather than a copy built per answer.
Subject = Name


@dataclass(slots=True)  # built per answer: see numbers.Mention on why not frozen
class Unit:
    start: int
    end: int
    cell: bool = False
    header: Span | None = None  # a table cell's column header
    label: Span | None = None  # a table row's first cell, or a list item's "label:" part
    inherited: Subject | None = None  # from a heading, the sentence before, the row, the table
    row: Span | None = None  # a table cell's whole row
    group: int = 0  # units of one table, or of one paragraph or list, share a group


@dataclass(slots=True)
class Layout:
    units: list[Unit]
    starts: list[int]
    groups: dict[int, Span]  # group → the text it covers

    def unit_at(self, pos: int) -> Unit | None:
        i = bisect_right(self.starts, pos) - 1
        if i < 0:
            return None
        u = self.units[i]
        return u if u.start <= pos < u.end else None


def _lines(text: str) -> list[Span]:
    out = []
    start = 0
    for part in text.split("\n"):
        out.append((start, start + len(part)))
        start += len(part) + 1
    return out


def _first_subject(names: list[Name], lo: int, hi: int, fallback: Subject | None
                   ) -> Subject | None:
    for n in names:
        if lo <= n.start < hi:
            if n.mine is None:
                return fallback
            return n
        if n.start >= hi:
            break
    return None


def _cells(text: str, s: int, e: int) -> list[Span]:
    line = text[s:e]
    bars = [i for i, ch in enumerate(line) if ch == "|"]
    out = []
    for a, b in itertools.pairwise(bars):
        out.append((s + a + 1, s + b))
    if bars and line[bars[-1] + 1:].strip():  # a row without its closing bar
        out.append((s + bars[-1] + 1, e))
    if bars and line[:bars[0]].strip():  # ... or without its opening bar
        out.insert(0, (s, s + bars[0]))
    return out


def layout(text: str, names: list[Name], in_number: bytearray,
           cuts: list[int] | None = None) -> Layout:
    """Cut `text` (normalised) into units, in order of position. `cuts`: the sentence ends
    outside numbers, in order, when the caller found them already (else found here)."""
    if cuts is None:
        cuts = [m.start() for m in _SENT_END.finditer(text) if not in_number[m.start()]]
    if "\n" not in text and "|" not in text and ":" not in text and "：" not in text:
        return _sentences(text, names, cuts)
    units: list[Unit] = []
    section: Subject | None = None
    prev: Subject | None = None
    lines = _lines(text)
    group = 0
    i = 0
    while i < len(lines):
        s, e = lines[i]
        line = text[s:e]
        stripped = line.strip()
        if not stripped:
            prev = None
            group += 1
            i += 1
            continue
        if stripped.count("|") >= 2:
            j = i
            while j < len(lines) and text[lines[j][0]:lines[j][1]].count("|") >= 2:
                j += 1
            if j - i >= 2:  # a table has a header and a row; one line of pipes is prose
                group += 1
                units.extend(_table(text, lines[i:j], section, group))
                group += 1
                prev = None
                i = j
                continue
        own = _first_subject(names, s, e, prev or section)
        has_value = in_number.find(1, s, e) >= 0
        heading = stripped.startswith("#") or (not has_value and stripped[-1:] in ":：")
        if heading and own is not None:
            section = own
            prev = None
        # a bullet's mark is the line's first non-blank character: only then the regex
        bullet = _BULLET.match(line) if stripped[0] in _BULLET_FIRST or \
            stripped[0].isdecimal() else None
        body = s + (bullet.end() if bullet else len(line) - len(line.lstrip()))
        label: Span | None = None
        # the first ":" or "：" of the line's body ([:：] searched, without a regex call)
        half, full = text.find(":", body, e), text.find("：", body, e)
        colon = half if full < 0 or 0 <= half < full else full
        if colon >= 0 and in_number.find(1, body, colon) < 0:
            label = (body, colon)
        if bullet is not None and own is None and section is not None:
            prev = None  # a list item without a name speaks of its section
        start = s
        # the line's sentence ends (a line ends at "\n" or the text's end, so these are what
        # _SENT_END.finditer(text, s, e) finds)
        for cut in [*cuts[bisect_left(cuts, s):bisect_left(cuts, e)], e]:
            if cut + 1 <= start and cut != e:
                continue
            end = cut + 1 if cut < e else e
            if text[start:end].strip():
                inherited = prev or section
                units.append(Unit(start, end, False, None,
                                  label if label and label[0] >= start and label[1] <= end
                                  else None, inherited, None, group))
                subj = _first_subject(names, start, end, inherited)
                if subj is not None:
                    prev = subj
            start = end
        i += 1
    groups: dict[int, Span] = {}
    for u in units:
        a, b = groups.get(u.group, (u.start, u.end))
        groups[u.group] = (min(a, u.start), max(b, u.end))
    return Layout(units, [u.start for u in units], groups)


def _sentences(text: str, names: list[Name], cuts: list[int]) -> Layout:
    """One line of prose without labels (most short answers): its sentences, each inheriting
    the subject of the one before."""
    units: list[Unit] = []
    starts: list[int] = []  # kept as they come: no comprehension (a function) per answer
    prev: Subject | None = None
    start = 0
    e = len(text)
    for cut in [*cuts, e]:
        end = cut + 1 if cut < e else e
        if end <= start:
            continue
        if text[start:end].strip():
            units.append(Unit(start, end, False, None, None, prev, None, 0))
            starts.append(start)
            subj = _first_subject(names, start, end, prev)
            if subj is not None:
                prev = subj
        start = end
    if not units:
        return Layout([], [], {})
    return Layout(units, starts, {0: (units[0].start, units[-1].end)})


def _table(text: str, rows: list[Span], section: Subject | None, group: int) -> list[Unit]:
    cells = [_cells(text, s, e) for s, e in rows]
    header: list[Span] = []
    body = cells
    if len(cells) >= 2 and cells[1] and all(_SEPARATOR.fullmatch(text[a:b])
                                            for a, b in cells[1]):
        header, body = cells[0], cells[2:]
    elif cells and not any(ch.isdigit() for a, b in cells[0] for ch in text[a:b]):
        header, body = cells[0], cells[1:]
    out: list[Unit] = []
    for row in body:
        if not row or all(_SEPARATOR.fullmatch(text[a:b]) for a, b in row):
            continue
        label = row[0]
        span = (row[0][0], row[-1][1])
        for j, (a, b) in enumerate(row):
            head = header[j] if j < len(header) else None
            out.append(Unit(a, b, True, head, label if j > 0 else None, section, span, group))
    return out
