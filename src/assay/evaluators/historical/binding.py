"""Binding each number key point to the answer's final statement of it, and judging it.

The answer's values of the point's kind (a money amount for 亿元, a percent or a bare number for
15.67% …) are taken from the first final block that has any (see `final`). Each value is read
every way the rules call equal (a bare number in the reference's unit or as written; 0.1567 as
15.67%) and judged by the note (see `tolerance`). A value that fails this point but passes
another key point of the same kind belongs to that point; a value stated under another key
point's label ("建设银行43.24万亿元") is not this point's. When the values left do not all decide
alike, narrower readings are tried in order (`_decide`), and when they still disagree the point
is unsure, with every candidate listed.

Keyed lists (by month, quarter, year) are bound by key — the table row, the key word right
before a value, "… in 2023" right after it — never by value, so a swapped pair is wrong.
Names are bound in `names`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from typing import Any

from assay.core.decimals import plain, round_half_up

from . import final as FN
from . import periods as P
from .keys import aliases, label_key, last_key, name_key, spellings
from .quantities import Mention
from .reference import KeyPoint, Reference
from .rounding import BENCHMARK
from .tolerance import FAIL, PASS, UNSURE, Verdict, check

_HEDGED = re.compile(r"可能|也许|大概是|不确定|无法确认|无法确定|不能确定|猜测|(?<![a-z])(?:maybe|possibly|"
                     r"perhaps|might|not\s+sure|cannot\s+(?:verify|confirm)|can't\s+(?:verify|"
                     r"confirm)|unable\s+to\s+(?:verify|confirm)|guess)(?![a-z])", re.IGNORECASE)
# the question itself speaks of a fall: "下调了多少个基点", "maximum drawdown (as a magnitude)"
_FALL_ASKED = re.compile(r"下调|下降|下跌|跌幅|降幅|降息|减少|回撤|亏损|跌了|(?<![a-z])(?:cut|cuts|"
                         r"decline|declined|drop|dropped|fall|fell|drawdown|decrease|decreased|"
                         r"loss|lowered|reduce|reduced)(?![a-z])", re.IGNORECASE)
_RESTATE = re.compile(r"(?:即|约合|折合|相当于|换算|约|大约|i\.e\.|or\s+about|about|roughly|"
                      r"approximately|around|≈)\s*[:：]?\s*$", re.IGNORECASE)


@dataclass
class Reading:
    """One answer value read for one key point."""

    mention: Mention
    verdict: Verdict
    value: Decimal | None  # as compared (the reading that decided), in the point's units
    how: str  # how the answer's text was read ("as written", "bare number in 亿", "0.1567 = 15.67%")
    explained_by: str = ""  # another key point this value passes
    unlabelled: bool = False  # stated with no key point's label beside it (bound by value)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.mention.text,
                               "span": [self.mention.start, self.mention.end],
                               "value": None if self.value is None else plain(self.value),
                               "read": self.how, "accepted": self.verdict.span(),
                               "rule": self.verdict.how, "outcome": self.verdict.outcome}
        if self.explained_by:
            out["belongs_to"] = self.explained_by
        return out


@dataclass
class PointResult:
    point: KeyPoint
    outcome: str  # PASS | FAIL | UNSURE
    why: str
    where: str = ""  # the block it was read in
    used: list[Reading] = field(default_factory=list)  # the values that decided
    set_aside: list[dict[str, Any]] = field(default_factory=list)  # values read, not used

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"point": self.point.id, "text": self.point.text,
                               "outcome": self.outcome, "why": self.why}
        if self.where:
            out["final_statement"] = self.where
        if self.used:
            out["values"] = [r.as_dict() for r in self.used]
        if self.set_aside:
            out["set_aside"] = self.set_aside
        return out


# ------------------------------------------------------------------------- readings
def _alternatives(p: KeyPoint, m: Mention, fall_asked: bool = False
                  ) -> list[tuple[Decimal, Decimal, str]] | str | None:
    """Ways to read `m` in the units of `p` as (value, quantum, how); a string when `m` is of
    the point's kind but in a wrong unit; None when `m` is not about a quantity of this kind."""
    pq = p.qty
    assert pq is not None
    q = m.q
    if m.spelled and m.q.dim == "count" and not (
            pq.dim == "count" or (pq.dim == "bare" and not pq.scaled and pq.quantum == 1
                                  and 0 <= pq.value <= 12)):
        return None  # "one of …" is not a value unless a count is asked for
    a = q.value
    if not m.signed and m.direction < 0 and a > 0 and (pq.value < 0 or not fall_asked):
        a = -a  # "fell 16.97%" is -16.97%, unless the question asks how much it fell
    elif fall_asked and a < 0 < pq.value:
        a = -a  # "下调了多少个基点？" answered "↓0.25pp" / "-25bp": the size of the cut
    dim = pq.dim
    if dim == "percent":
        if q.dim == "percent":
            return [(a, q.quantum, "as written")]
        if q.dim == "bare" and not q.scaled:
            return [(a, q.quantum, "a bare number in %"),
                    (a * 100, q.quantum * 100, f"{plain(q.value)} as a fraction = "
                     f"{plain(q.value * 100)}%")]
        return None
    if q.dim == "percent":
        if dim == "bare" and not pq.scaled:
            return [(a / 100, q.quantum / 100, f"{m.text} = {plain(q.value / 100)}")]
        return None
    if dim == "money":
        if q.dim == "money":
            if q.currency and pq.currency and q.currency != pq.currency:
                return f"in {q.currency}, not {pq.currency}"
            if q.per and pq.per and q.per != pq.per:
                return f"per {q.per}, not per {pq.per}"
            return [(a, q.quantum, "as written")]
        if q.dim == "bare":
            return _bare(pq.scale, pq.scale_word, a, q.quantum, q.scaled)
        return None
    if dim == "bare":
        if q.dim in ("bare", "money", "count", "points"):
            if pq.scaled and q.dim == "bare" and not q.scaled:
                return _bare(pq.scale, pq.scale_word, a, q.quantum, False)
            return [(a, q.quantum, "as written")]
        return None
    # a unit: energy, area, years, count …
    if q.dim == dim:
        return [(a, q.quantum, "as written")]
    if q.dim == "bare":
        return _bare(pq.scale, pq.scale_word, a, q.quantum, q.scaled)
    if {q.dim, dim} <= {"count", "bare"}:
        return [(a, q.quantum, "as written")]
    return None


def _bare(scale: Decimal, word: str, a: Decimal, quantum: Decimal,
          scaled: bool) -> list[tuple[Decimal, Decimal, str]]:
    if scaled or scale == 1:
        return [(a, quantum, "as written (unit left out)")]
    return [(a * scale, quantum * scale, f"a bare number in the reference's unit ({word})"),
            (a, quantum, "as written")]


def read_value(p: KeyPoint, ref: Reference, m: Mention, question_q: Decimal | None,
               fall_asked: bool = False, rounding: str = BENCHMARK) -> Reading | None:
    """Judge one answer value for one key point; None when it is not about this kind.
    `fall_asked`: the question asks for the size of a fall ("下调了多少"), so "下调0.25个百分点"
    states 0.25, not −0.25."""
    alts = _alternatives(p, m, fall_asked)
    if alts is None:
        return None
    if isinstance(alts, str):
        return Reading(m, Verdict(FAIL, None, f"wrong unit: {alts}"), None, alts)
    assert p.qty is not None
    readings: list[Reading] = []
    for value, quantum, how in _plausible(p.qty.value, alts):
        v = check(p, ref.note, value, question_q, quantum, rounding)
        if (p.qty.value < 0 and value > 0 and not m.signed and m.direction == 0
                and p.qty.dim == "percent" and v.outcome == FAIL
                and check(p, ref.note, -value, question_q, quantum, rounding).outcome != FAIL):
            # "16.97%" for a change of −16.97%: the size of the fall without its sign. An
            # amount (−11.6 billion) written without its sign is a different amount: wrong.
            v = Verdict(UNSURE, v.accepted, v.how + "; the answer gives the size of the change "
                        "without its sign or a fall word")
        if m.bound and v.outcome != FAIL:
            v = Verdict(UNSURE, v.accepted, v.how + "; stated as a bound (超过/more than …)")
        readings.append(Reading(m, v, value, how))
    outcomes = {r.verdict.outcome for r in readings}
    if len(outcomes) == 1:
        return readings[0]
    # two plausible readings of one number decide differently ("0.00021" for 0.01%: 0.00021%
    # or 0.021%?): the rules cannot tell which the answer meant
    first = readings[0]
    return Reading(m, Verdict(UNSURE, first.verdict.accepted, "the number reads two ways that "
                              "decide differently: " + "; ".join(
                                  f"{r.how} → {r.verdict.outcome}" for r in readings)),
                   first.value, first.how)


def _plausible(ref: Decimal, alts: list[tuple[Decimal, Decimal, str]]
               ) -> list[tuple[Decimal, Decimal, str]]:
    """Of the ways to read a number, those within a factor of ten of the reference ("15.67"
    for 15.67% is 15.67%, not 1567%); all of them when none is."""
    if len(alts) < 2 or ref == 0:
        return alts
    near = [a for a in alts if a[0] != 0 and Decimal("0.1") < abs(a[0] / ref) < 10]
    return near or alts


def _agree(rs: list[Reading]) -> str | None:
    outs = {r.verdict.outcome for r in rs}
    if outs == {PASS}:
        return PASS
    if outs == {FAIL}:
        return FAIL
    return None


# ------------------------------------------------------------------------- context
def _period_of_value(text: str, m: Mention, mentions: list[Mention] | None = None
                     ) -> P.Period:
    """The period a value is said of: a year right after it, else the words before it in its
    clause or table row, with a period its own words state after it ("2.9% y/y in November
    2024, edging up to 3.0% in December", "543.45亿元（2023年末数据）", "62.57亿元是2024年半年报
    数据", "…，这是2024年三季度末的数")."""
    after = P.dated_after(text, m.end)
    if after:
        return P.Period(frozenset({after}), frozenset(), frozenset(), False)
    row = FN.row_of(text, m.start)
    if row is None:
        # a day in brackets is a gloss on the clause (a release date), not the period its
        # value is of: "Initial BLS print (Jan 10, 2025): +256K … for December 2024"
        before = _GLOSS.sub(_day_gloss, text[clause_start(text, m.start):m.start])
        tail = own_tail(text, m, mentions or [])
        said = P.period_of(tail)
        if said.years or said.days or said.part:
            return said  # what the value's own words say after it is the more specific
        if said.months:
            return P.period_of(before + " " + tail)
        return P.period_of(before)
    return P.period_of(text[row[0]:m.start] + " " + FN.column_header(text, m.start))


def _day_gloss(g: re.Match[str]) -> str:
    return " " if P.period_of(g.group(0)).days else g.group(0)


# what a value is said to be right after it: "，这是2024年三季度末的数", "(that was the prior week",
# "? That was the 30 December fixing"
_POINTER = re.compile(r"[，,；;。.?？!！]?\s*[(（]?\s*(?:这是|此为|那是|这为|系|即为|that\s+was|that's|"
                      r"that\s+is|this\s+was|this\s+is|which\s+was|which\s+is)", re.IGNORECASE)


def own_tail(text: str, m: Mention, mentions: list[Mention]) -> str:
    """A value's own words after it: to the end of its clause (or the next value), a bracket
    right after it, and a clause that points back at it ("这是…", "that was …")."""
    end = _own_end(text, m, mentions)
    # words that run into the next value are more its words than this one's ("由2023年的62.57
    # 亿元回落至2024年的41.12亿元": «回落至2024年的» leads to 41.12)
    tail = "" if any(o.start == end for o in mentions) else text[m.end:end]
    rest = text[end:]
    if rest[:1] in _OPEN or (rest[:2].strip()[:1] in _OPEN and rest[:1] == " "):
        close = min([k for k in (rest.find(c) for c in _CLOSE) if k > 0] or [0])
        if close:
            # the bracket's words up to its own next value or clause: "(that was the prior
            # week; for May 19-23 it was 12.10%)" says only "that was the prior week" of this one
            inner = [k for k in (rest.find(c, 1, close) for c in ";；，,") if k > 0]
            inner += [o.start - end for o in mentions if end < o.start < end + close]
            tail += " " + rest[:min([*inner, close + 1])]
            rest = rest[close + 1:]
    pointer = _POINTER.match(rest) or (_POINTER.match(rest, 1) if rest[:1] in " " else None)
    if pointer is not None:
        stop = [k for k in (rest.find(c, pointer.end()) for c in "，,；;。\n)）") if k > 0]
        nxt = [o.start - end for o in mentions if o.start >= end + pointer.end()]
        tail += " " + rest[:min(stop + nxt + [len(rest)])]
    return tail


_GLOSS = re.compile(r"[(（][^()（）]{0,40}[)）]")


_STOP_CJK = set("的为是了在和与及年月日约达共计其中该公司")
_STOP_EN = {"the", "was", "were", "and", "for", "with", "its", "that", "this", "which", "are",
            "has", "had", "approximately", "about", "around", "total", "value"}


def _label_words(label: str, question: str) -> tuple[int, int]:
    """(words of `label` found in the question, words not found): CJK characters and English
    words, digits and filler left out."""
    cjk = [c for c in label if "\u4e00" <= c <= "\u9fff" and c not in _STOP_CJK]
    words = [w for w in re.findall(r"[a-z]{3,}", label.lower()) if w not in _STOP_EN]
    ql = question.lower()
    hit = sum(1 for c in cjk if c in question) + sum(1 for w in words if w in ql)
    return hit, len(cjk) + len(words) - hit


def _in(span: tuple[int, int], m: Mention) -> bool:
    return span[0] <= m.start < span[1]


@dataclass
class Context:
    text: str
    question: str
    ref: Reference
    mentions: list[Mention]
    blocks: list[FN.Block]
    question_decimals: int | None
    asked: P.Period
    fall_asked: bool = False
    keys: dict[int, str] = field(default_factory=dict)  # mention start → key (keyed lists)
    rounding: str = BENCHMARK  # the reading of "rounding errors are allowed"
    compare_asked: int = 0  # the question asks how much lower (-1) or higher (+1) A is than B
    # values no later narrowing may set aside by their words: a part after 其中 that names
    # what the question asks as much as its whole does (which of the two is meant is unclear)
    protected: set[int] = field(default_factory=set)

    def read(self, p: KeyPoint, m: Mention) -> Reading | None:
        r = read_value(p, self.ref, m, self.question_q(p), self.fall_asked, self.rounding)
        if r is not None and r.verdict.outcome != FAIL and self.compare_asked:
            said = _comparison_before(self.text, m.start)
            if said and said != self.compare_asked:
                # "工行比建行低多少个百分点？" answered "工行比建行高0.38个百分点": the other way round
                r.verdict = Verdict(FAIL, r.verdict.accepted, "the answer compares the other "
                                    "way round from the question (higher / lower)")
        return r

    def question_q(self, p: KeyPoint) -> Decimal | None:
        if self.question_decimals is None or p.qty is None:
            return None
        return Decimal(1).scaleb(-self.question_decimals) * (
            p.qty.scale if p.qty.dim != "percent" else 1)


@lru_cache(maxsize=1024)
def _question_reading(question: str) -> tuple[P.Period, bool, int]:
    """What the question asks (its period, a fall, a comparison), once a question."""
    return (P.period_of(question), bool(_FALL_ASKED.search(question)),
            _comparison_asked(question))


def make_context(text: str, question: str, ref: Reference, mentions: list[Mention],
                 decimals: int | None, rounding: str = BENCHMARK, tool_end: int = -1
                 ) -> Context:
    asked, fall_asked, compare_asked = _question_reading(question)
    ctx = Context(text, question, ref, mentions, FN.blocks(text, tool_end), decimals,
                  asked, fall_asked, rounding=rounding, compare_asked=compare_asked)
    if ref.keyed:
        ctx.keys = {m.start: k for m in mentions if (k := mention_key(text, m, mentions,
                                                                     ref.keyed))}
        ctx.keys.update(_range_keys(text, mentions, ref.keyed))
    return ctx


# A range of keys, then the values in that order: "2020–2024：2.2% / 8.4% / 3.1% / 5.2% / 5%",
# "1—6月制造业PMI依次为：49.2、49.1、50.8、50.4、49.5、49.5", "Q1–Q4: 26.0 / 30.0 / 35.1 / 39.3"
_YEAR_RANGE = re.compile(r"(?<!\d)((?:19|20)\d{2})\s*(?:年)?\s*[–—\-~至到]\s*((?:19|20)\d{2})(?!\d)")
_MONTH_RANGE = re.compile(r"(?<!\d)(1[0-2]|0?[1-9])\s*(?:月)?\s*[–—\-~至到]\s*(1[0-2]|0?[1-9])\s*月")
_QUARTER_RANGE = re.compile(r"\bQ([1-4])\s*[–—\-~]\s*Q([1-4])\b", re.IGNORECASE)
_LIST_GAP = re.compile(r"\s*(?:[、,，/|;；]|\s)\s*")


def _range_keys(text: str, mentions: list[Mention], kind: str) -> dict[int, str]:
    """Keys for values listed in order after a range of keys: exactly as many values as the
    range has keys, one after the other with only separators between them."""
    rx, fmt = {"year": (_YEAR_RANGE, "Y{}"), "month": (_MONTH_RANGE, "M{}"),
               "quarter": (_QUARTER_RANGE, "Q{}")}.get(kind, (None, ""))
    out: dict[int, str] = {}
    if rx is None:
        return out
    for m in rx.finditer(text):
        a, b = int(m.group(1)), int(m.group(2))
        if not 1 < b - a + 1 <= 24:
            continue
        after = [x for x in mentions if x.start >= m.end()]
        seq = after[:b - a + 1]
        if len(seq) < b - a + 1 or text[m.end():seq[0].start].count("\n") > 1 or any(
                not _LIST_GAP.fullmatch(text[x.end:y.start])
                for x, y in itertools.pairwise(seq)):
            continue
        out.update({x.start: fmt.format(a + k) for k, x in enumerate(seq)})
    return out


def mention_key(text: str, m: Mention, mentions: list[Mention], kind: str) -> str | None:
    """The key a value is stated under: a year right after it ("$36.8 billion in 2023"), its
    table row's key cell, else the last key word between it and the value before it on its
    line ("1月：0.90911，2月：0.90836")."""
    if kind == "year" and (after := P.dated_after(text, m.end)):
        return f"Y{after}"
    row = FN.row_of(text, m.start)
    if row is not None:
        for cell in text[row[0]:m.start].split("|"):
            k = label_key(cell, kind)
            if k:
                return k
        return None
    return last_key(key_text(text, m, mentions), kind)


def key_text(text: str, m: Mention, mentions: list[Mention]) -> str:
    """The words a value is stated under: its table row before it, else the text between it
    and the value before it on its line."""
    row = FN.row_of(text, m.start)
    if row is not None:
        return text[row[0]:m.start]
    floor = text.rfind("\n", 0, m.start) + 1
    for other in mentions:
        if other.end <= m.start and other.end > floor:
            floor = other.end
    return text[floor:m.start]


def _labels_named(segment: str, points: list[KeyPoint]) -> set[str]:
    """Which of the points' labels `segment` names (工商银行, Annualized volatility …)."""
    seg = name_key(segment)
    out = set()
    for p in points:
        if p.label and len(name_key(p.label)) >= 2 and any(
                v and v in seg for v in spellings(p.label)):
            out.add(p.id)
    return out


def _label_hinted(segment: str, points: list[KeyPoint]) -> set[str]:
    """The one label whose distinctive parts `segment` names ("工行" for 工商银行 beside 建设银行,
    "turnover" for Weekly turnover rate): enough to say a value is stated under a label, never
    to move it to another point (a synonym may share a character: 振幅 is not 涨跌幅)."""
    parts = {p.id: _parts(p.label) for p in points if p.label}
    common = set.intersection(*parts.values()) if parts else set()
    low = segment.lower()
    words = set(re.findall(r"[a-z]{3,}", low))
    hits = {pid for pid, ps in parts.items()
            if any((t in low) if not t.isascii() else any(w.startswith(t[:max(3, len(w))])
                                                          or t.startswith(w) for w in words)
                   for t in ps - common)}
    return hits if len(hits) == 1 else set()


def _parts(label: str) -> set[str]:
    """A label's characters (CJK) and words (Latin), the units that tell labels apart."""
    low = label.lower()
    return {c for c in low if "\u4e00" <= c <= "\u9fff"} | set(re.findall(r"[a-z]{3,}", low))


_ASK_LOWER = re.compile(r"比.{1,30}?(?:低|少|小)(?:了)?多少|(?:lower|less|smaller|below)\s+than\b.{0,60}?"
                        r"(?:by\s+how\s+much|how\s+many)|how\s+much\s+(?:lower|less|smaller)",
                        re.IGNORECASE)
_ASK_HIGHER = re.compile(r"比.{1,30}?(?:高|多|大)(?:了)?多少|(?:higher|more|greater|above)\s+than\b"
                         r".{0,60}?(?:by\s+how\s+much|how\s+many)|how\s+much\s+(?:higher|more|"
                         r"greater)", re.IGNORECASE)
_SAID = re.compile(r"(?:高|多|大|higher|more|greater|above)|(?P<low>低|少|小|lower|less|smaller|below)",
                   re.IGNORECASE)


def _comparison_asked(question: str) -> int:
    lower, higher = _ASK_LOWER.search(question), _ASK_HIGHER.search(question)
    return -1 if lower and not higher else 1 if higher and not lower else 0


def _comparison_before(text: str, pos: int) -> int:
    """The comparison word nearest before `pos` in its clause: -1 lower, +1 higher, 0 none."""
    start = max(text.rfind(c, 0, pos) for c in "，,。；;\n") + 1
    found = list(_SAID.finditer(text, start, pos))
    if not found:
        return 0
    return -1 if found[-1].group("low") else 1


def by_value_only(results: list[PointResult]) -> list[PointResult]:
    """Labelled key points that pass only by values stated under no label the reader knows:
    when two or more do, the answer's labels may be swapped ("ICBC 48.82 | CCB 43.24 | ABC
    40.57" for 工商银行 48.82, 建设银行 40.57, 农业银行 43.24) and the values alone cannot tell:
    unsure, not passed. One such point among labelled ones cannot be swapped with another."""
    loose = [r for r in results if r.outcome == PASS and r.point.label and r.used
             and all(u.unlabelled for u in r.used)]
    if len(loose) < 2:
        return results
    for r in loose:
        r.outcome = UNSURE
        r.why = (f"the value is not stated under «{r.point.label}» or another label the reader "
                 "knows, and other key points are bound the same way: the labels may be swapped")
    return results


# ------------------------------------------------------------------------- numbers
def bind_number(p: KeyPoint, ctx: Context, others: list[KeyPoint]) -> PointResult:
    keyed = ctx.ref.keyed is not None and p.id in ctx.ref.keys
    want = ctx.ref.keys.get(p.id)
    if keyed and not ctx.keys:
        # values before a self-correction or a tool output are replaced, not given
        floor = min((b.start for b in ctx.blocks), default=0)
        any_value = any(ctx.read(p, m) for m in ctx.mentions if m.start >= floor)
        if any_value:
            return PointResult(p, UNSURE, f"values are given, but none under a "
                               f"{ctx.ref.keyed} the reader recognises")
    labelled = [o for o in others if o.kind == "number" and o.label]
    for block in ctx.blocks:
        readings: list[Reading] = []
        for m in ctx.mentions:
            if not (block.start <= m.start < block.end):
                continue
            if keyed and ctx.keys.get(m.start) != want:
                continue
            named: set[str] | None = None
            if not keyed and p.label and labelled:
                said_under = key_text(ctx.text, m, ctx.mentions)
                named = set(_labels_named(said_under, labelled))
                if named and p.id not in named:
                    continue  # said under another key point's label: 建设银行43.24万亿元
                if not named and len(labelled) >= 2 and _TOTAL.search(said_under) and not \
                        _TOTAL.search(p.label) and _sum_of_others(m, ctx.mentions):
                    continue  # "四大行合计167.69万亿元": the total of the points, none of them
            r = ctx.read(p, m)
            if r is None:
                continue
            if named is not None and not named and len(labelled) >= 2 and _label_hinted(
                    key_text(ctx.text, m, ctx.mentions), labelled) != {p.id}:
                r.unlabelled = True  # "ICBC 48.82 | CCB 43.24": no label the reader knows
            if r.verdict.outcome == FAIL and not keyed:
                for o in others:
                    if o is p or o.kind not in ("number", "range"):
                        continue
                    ro = ctx.read(o, m)
                    if ro is not None and ro.verdict.outcome == PASS:
                        r.explained_by = o.id
                        break
            readings.append(r)
        relevant = [r for r in readings if not r.explained_by]
        if not relevant:
            continue
        aside = [dict(r.as_dict(), why="the value of another key point")
                 for r in readings if r.explained_by]
        result = _decide(p, ctx, block, relevant, aside, keyed)
        if result.outcome == PASS and any(
                _HEDGED.search(FN.sentence_of(ctx.text, r.mention.start)) for r in result.used):
            # "我无法确认，但可能是62.57亿元": a guess under a refusal is not a final answer
            result.outcome = UNSURE
            result.why = "the value is given as a guess (可能 / cannot confirm / maybe)"
        return result
    return PointResult(p, FAIL, "the answer states no value for this key point"
                       + (f" (under {want})" if keyed else ""))


def _sum_of_others(m: Mention, mentions: list[Mention]) -> bool:
    """The value is the sum of two or more of the answer's other values of its kind (within
    the rounding of the coarsest): a total, not a figure of its own."""
    # as written (a table's bare 48.82 under «万亿元» beside «合计167.69万亿元»)
    def written(o: Mention) -> tuple[Decimal, Decimal]:
        return o.q.value / o.q.scale, o.q.quantum / o.q.scale

    mine, quantum = written(m)
    others = [written(o) for o in mentions if o is not m and o.q.dim != "percent"
              and o.q.value > 0][:10]
    if len(others) < 2 or m.q.dim == "percent":
        return False
    tol = max([q for _, q in others] + [quantum])
    return any(abs(sum(v for v, _ in c) - mine) <= tol * k for k in range(2, len(others) + 1)
               for c in itertools.combinations(others, k))


_TOTAL = re.compile(r"合计|总计|共计|合共|加总|总和|(?<![a-z])(?:in\s+total|total|combined|"
                    r"altogether|in\s+all|sum)(?![a-z])", re.IGNORECASE)


def _decide(p: KeyPoint, ctx: Context, block: FN.Block, rel: list[Reading],
            aside: list[dict[str, Any]], keyed: bool) -> PointResult:
    """One outcome from the values read for `p` in `block`, narrowing step by step while
    they disagree; unsure when no step leaves values that decide alike."""
    why_aside: dict[int, str] = {}
    cur = list(rel)

    def done(outcome: str, why: str) -> PointResult:
        extra = [dict(r.as_dict(), why=why_aside.get(id(r), "not the final statement"))
                 for r in rel if r not in cur]
        return PointResult(p, outcome, why, block.why, cur, aside + extra)

    out = _agree(cur)
    if out:
        return done(out, "the final statement" if len(cur) == 1 else
                    "every value stated in the final statement decides alike")
    assert p.qty is not None
    pair = _restated_otherwise(ctx, cur)
    if pair is not None:
        # "186.07亿元（≈ RMB 1.86 billion）", "+256K (i.e. 2.56 million)": the answer states the
        # value twice, and the second time it is another amount — it contradicts itself
        cur = list(pair)
        return done(FAIL, "the answer restates the value as a different amount "
                    f"(«{pair[0].mention.text}», i.e. «{pair[1].mention.text}»)")
    steps: list[tuple[str, str, Callable[[], list[Reading]]]] = [
        # "…，以年报为准", "我们采用后者": the answer says itself which figure is final
        ("not the figure the answer itself chooses (以…为准 / 采用后者)", "the figure the "
         "answer chooses", lambda: _chosen(ctx, cur)),
        # a conversion into another currency beside the value in the reference's currency
        ("a conversion into another currency", "the value in the reference's currency",
         lambda: [r for r in cur if r.mention.q.currency in (None, p.qty.currency)]
         if p.qty and p.qty.currency else cur),
        # "略高于543亿元，约为543.4亿元", "just under $1.24 trillion — $1,239.0 billion": a bound
        # beside the value it bounds
        ("a bound (more than / just under …) beside a value", "the value, with its bound set "
         "aside", lambda: [r for r in cur if not r.mention.bound]),
        # 25个基点 beside the rate levels 3.35% → 3.10%; a bare 0.90911 beside a 41% growth
        ("written in another kind of unit than the reference", "the value written in the "
         "reference's kind of unit", lambda: [r for r in cur if _same_kind(p, r.mention, ctx.text)]),
        ("an approximate restatement of a more precise value", "the precise value, with its "
         "rounded restatement set aside", lambda: [r for r in cur if not _restated(ctx, r, cur)]),
        ("said of another period than the question's", "the values for the period the "
         "question asks about", lambda: cur if keyed else [
             r for r in cur if not _period_of_value(ctx.text, r.mention, ctx.mentions
                                                   ).differs_from(ctx.asked)]),
        ("where a move started (from X to Y)", "where the move ended",
         lambda: _not_move_start(ctx, cur)),
        ("said by its own words to be an earlier figure (that was the prior week / 上月 …)",
         "the current figure", lambda: _not_earlier(ctx, cur)),
        ("another release than the one asked (initial / revised)", "the values of the "
         "release the question asks about", lambda: _vintage(ctx, cur)),
        ("a part of the total stated beside it", "the total, with its parts set aside",
         lambda: _without_parts(cur)),
        ("a part or its whole (其中 / of which), the one the question does not ask",
         "of a whole and its parts (其中), the one the question asks", lambda: _not_of_which(
             ctx, cur)),
        ("outside the conclusion sentence", "the conclusion sentence",
         lambda: _conclusion(ctx, block, cur)),
        ("a forecast or an expectation, not the figure itself", "the figure itself, with "
         "forecasts set aside", lambda: _not_forecasts(ctx, cur)),
        ("said of something the question does not ask about", "the value said in the "
         "question's own words", lambda: cur if keyed else _question_words(ctx, cur)),
        ("said of another thing than the one asked (its own words name something the question "
         "and the reference do not)", "the value whose own words name what is asked",
         lambda: _said_of_asked(ctx, cur)),
    ]
    for aside_why, why, keep_fn in steps:
        keep = keep_fn()
        if keep and len(keep) < len(cur):
            for r in cur:
                if r not in keep:
                    why_aside[id(r)] = aside_why
            cur = keep
            out = _agree(cur)
            if out:
                return done(out, why)
    why = ("the answer states values for this point that decide differently, and none is "
           "clearly the final one")
    if all(r.verdict.outcome == UNSURE for r in cur):
        why = "the rule cannot settle it: " + "; ".join(sorted({r.verdict.how for r in cur}))
    return PointResult(p, UNSURE, why, block.why, cur,
                       aside + [dict(r.as_dict(), why=why_aside.get(id(r), "")) for r in rel
                                if r not in cur])


_CHANGE_WORDS = re.compile(r"较|比|下降|上升|下调|上调|降|升|涨|跌|变动|变化|增|减|(?<![a-z])(?:change[ds]?|"
                           r"fall|fell|falling|rise|rose|rising|up|down|cut|cuts|raised?|hike[ds]?|"
                           r"widened|narrowed|gained?|lost|drop(?:ped)?|over|y/y|yoy)(?![a-z])",
                           re.IGNORECASE)


def _same_kind(p: KeyPoint, m: Mention, text: str = "") -> bool:
    assert p.qty is not None
    pq, q = p.qty, m.q
    if pq.dim == "percent":
        points = ("pp", "bp")
        if q.dim == "percent" and q.unit_word == "bp" and pq.unit_word not in points \
                and not m.signed and m.direction == 0 and not _CHANGE_WORDS.search(
                    text, clause_start(text, m.start), m.start):
            return True  # "不良贷款率95bp": a level in basis points, not a change
        return q.dim == "percent" and ((pq.unit_word in points) == (q.unit_word in points))
    return q.dim != "percent"


def _restated(ctx: Context, r: Reading, cur: list[Reading]) -> bool:
    """"约63亿元" after "62.57亿元": the same value rounded, not a second answer."""
    if r.value is None or _RESTATE.search(ctx.text[max(0, r.mention.start - 8):r.mention.start]
                                          ) is None:
        return False
    rq = _scaled_quantum(r)
    return any(o is not r and o.value is not None and _scaled_quantum(o) < rq
               and round_half_up(o.value, rq) == r.value for o in cur)


_SAYS_AGAIN = re.compile(r"^\s*[,，]?\s*[(（]?\s*(?:≈|=|即|也就是|亦即|i\.e\.,?|that\s+is,?|or)\s*[(（]?\s*$",
                        re.IGNORECASE)


def _restated_otherwise(ctx: Context, cur: list[Reading]) -> tuple[Reading, Reading] | None:
    """A value right after another, marked as the same one (≈ / = / 即 / i.e.), in the same
    currency, that fails where the first passes and is no rounding of it."""
    by_start = sorted(cur, key=lambda r: r.mention.start)
    for a, b in itertools.pairwise(by_start):
        if a.verdict.outcome != PASS or b.verdict.outcome != FAIL or a.value is None \
                or b.value is None or b.how.startswith(("in ", "per ")):
            continue
        if not _SAYS_AGAIN.match(ctx.text[a.mention.end:b.mention.start]):
            continue
        qa, qb = a.mention.q, b.mention.q
        if qa.currency and qb.currency and qa.currency != qb.currency:
            continue  # a conversion, set aside elsewhere
        if round_half_up(a.value, _scaled_quantum(b)) == b.value:
            continue  # "62.57亿元（约63亿元）": the same value rounded
        return a, b
    return None


def _without_parts(cur: list[Reading]) -> list[Reading]:
    """"纯电动771.9万辆，插混514.7万辆，合计1286.6万辆": values that add up to another value
    stated beside them are its parts (reasoning), the sum is the answer."""
    from itertools import combinations

    vals = [(r, r.value) for r in cur if r.value is not None]
    if len(vals) > 12:  # sums of up to four parts among many values: too many to try
        return cur
    for total, tv in vals:
        # the sum comes after its parts; "建行13.48%，工行13.10%，低0.38%" is a difference
        others = [(r, v) for r, v in vals if r is not total and v is not None
                  and r.mention.start < total.mention.start]
        for k in range(2, min(4, len(others)) + 1):
            for combo in combinations(others, k):
                assert tv is not None
                tol = max(_scaled_quantum(r) for r, _ in combo)
                if abs(sum(v for _, v in combo if v is not None) - tv) <= tol:
                    parts = {id(r) for r, _ in combo}
                    return [r for r in cur if id(r) not in parts]
    return cur


_INITIAL = re.compile(r"初值|初次公布|首次公布|初步|(?<![a-z])(?:initial|first|preliminary|"
                      r"advance|flash)(?:\s+(?:print|release|estimate|reading|report))?(?![a-z])",
                      re.IGNORECASE)
_REVISED = re.compile(r"修正|修订|上修|下修|终值|(?<![a-z])(?:revised|revision|later\s+revised|"
                      r"final\s+(?:print|reading|estimate))(?![a-z])", re.IGNORECASE)


def _vintage(ctx: Context, cur: list[Reading]) -> list[Reading]:
    """"according to the initial release": a value said as revised is another release's
    figure ("+256K … (Later revised to +307K)"), and the other way round."""
    asks_initial = bool(_INITIAL.search(ctx.question)) and not _REVISED.search(ctx.question)
    asks_revised = bool(_REVISED.search(ctx.question)) and not _INITIAL.search(ctx.question)
    if not (asks_initial or asks_revised):
        return cur
    other = _REVISED if asks_initial else _INITIAL
    text = ctx.text
    return [r for r in cur
            if not other.search(text[clause_start(text, r.mention.start):r.mention.start] + " "
                                + own_tail(text, r.mention, ctx.mentions))]


_CHOICE = re.compile(r"以([\u4e00-\u9fff]{2,10}?)(?:口径|数据|数字|数值|披露)?为准")
_LATTER = re.compile(r"(?:采用|以|取|选用)后者|(?<![a-z])(?:the\s+latter|use\s+the\s+second)(?![a-z])",
                     re.IGNORECASE)
_FORMER = re.compile(r"(?:采用|以|取|选用)前者|(?<![a-z])(?:the\s+former|use\s+the\s+first)(?![a-z])",
                     re.IGNORECASE)


def _chosen(ctx: Context, cur: list[Reading]) -> list[Reading]:
    """"62.57亿元是快报口径；年报披露口径为58.30亿元，以年报为准", "6602.57亿元（非国际财务报告准则下为
    6710.20亿元，我们采用后者）": the figure the answer itself declares final."""
    text = ctx.text
    ordered = sorted(cur, key=lambda r: r.mention.start)
    if len(ordered) >= 2:
        # right after the two figures it chooses between
        after = text[ordered[-1].mention.end:ordered[-1].mention.end + 40]
        if _LATTER.search(after):
            return [ordered[-1]]
        if _FORMER.search(after):
            return [ordered[-2]]
    choice = _CHOICE.search(text)
    if choice is None:
        return cur
    key = choice.group(1)
    said = [r for r in cur
            if key in text[clause_start(text, r.mention.start):r.mention.start]
            and not (choice.start() <= r.mention.start < choice.end())]
    return said if said else cur


_EARLIER = re.compile(r"上周|上月|上年|去年|前一[日周月年季]|上一[交易日周月年季]|此前|(?<![a-z])(?:prior|"
                      r"previous|earlier|last\s+(?:week|month|quarter|year)|a\s+(?:week|month|year)"
                      r"\s+(?:earlier|before|ago))(?![a-z])", re.IGNORECASE)


def _not_earlier(ctx: Context, cur: list[Reading]) -> list[Reading]:
    """"15.67% (that was the prior week; for May 19-23 it was 12.10%)": a value its own words
    after it call earlier is not the current one (unless the question asks for an earlier one)."""
    if _EARLIER.search(ctx.question):
        return cur
    return [r for r in cur if not _EARLIER.search(own_tail(ctx.text, r.mention, ctx.mentions))]


_MOVE_FROM = re.compile(r"(?:(?<![a-z])from|由|从)\s*[^,，。;；]{0,24}$", re.IGNORECASE)
_MOVE_TO = re.compile(r"(?:(?<![a-z])to|至|到)\s*[^,，。;；\d]{0,12}$", re.IGNORECASE)


def _not_move_start(ctx: Context, cur: list[Reading]) -> list[Reading]:
    """"rose 8% from 2023's RMB 609,015 million to RMB 660,257 million", "由2.1503%下行至
    2.1395%": the value after «from» is where the move started, when a value after «to»
    follows it in the same sentence."""
    text = ctx.text

    def before(r: Reading) -> str:
        lo = max([o.end for o in ctx.mentions if o.end <= r.mention.start] +
                 [FN.sentence_start(text, r.mention.start)])
        return text[lo:r.mention.start]

    starts = [r for r in cur if _MOVE_FROM.search(before(r)) and any(
        o.mention.start > r.mention.start and _MOVE_TO.search(before(o))
        and FN.sentence_start(text, o.mention.start) == FN.sentence_start(text, r.mention.start)
        for o in cur)]
    return [r for r in cur if r not in starts]


_OF_WHICH = re.compile(r"(?:其中|内含|包括|(?<![a-z])(?:of\s+which|including|among\s+which|"
                       r"of\s+this))[^。；;\n]{0,24}$", re.IGNORECASE)


def _not_of_which(ctx: Context, cur: list[Reading]) -> list[Reading]:
    """"43.85万亿元，其中出口25.45万亿元，进口18.39万亿元", "$35,462 billion, of which debt held by
    the public ≈ $28.3 trillion": values after 其中 / of which are parts of the value before them
    in their sentence, and the whole is the answer — unless a part's own words say clearly more
    of the question ("净利润3669.03亿元，其中归属于母公司股东的净利润3658.63亿元" for 归母净利润):
    then that part is the answer and the whole is set aside."""
    text = ctx.text
    q_u = _units(ctx.question)
    aside: set[int] = set()
    for r in cur:
        if not _OF_WHICH.search(text, max(0, r.mention.start - 40), r.mention.start):
            continue
        sentence = FN.sentence_start(text, r.mention.start)
        wholes = [w for w in cur if w.mention.start < r.mention.start
                  and FN.sentence_start(text, w.mention.start) == sentence
                  and not _OF_WHICH.search(text, max(0, w.mention.start - 40), w.mention.start)]
        if not wholes:
            continue
        asked = set(q_u)
        part = set(_units(own_words(text, r.mention, ctx.mentions)))
        whole = set().union(*(_units(own_words(text, w.mention, ctx.mentions)) for w in wholes))
        part_asked, whole_asked = len((part - whole) & asked), len((whole - part) & asked)
        if not part_asked:
            aside.add(id(r))  # its own words add nothing the question asks: a part
        elif part_asked > whole_asked:
            aside.update(id(w) for w in wholes)  # the part is what is asked
        elif part_asked >= 2:
            ctx.protected.add(r.mention.start)  # neither clearly: no word rule may pick
            ctx.protected.update(w.mention.start for w in wholes)
    kept = [r for r in cur if id(r) not in aside]
    return kept if kept else cur


def _conclusion(ctx: Context, block: FN.Block, cur: list[Reading]) -> list[Reading]:
    """The block's own conclusion sentence, unless a later conclusion disagrees with it."""
    if block.why == "whole answer":
        return cur
    head = [r for r in cur if _in(block.head, r.mention)]
    later = [r for r in cur if any(_in(h, r.mention) for h in FN.heads_after(ctx.text, block))]
    if head and _agree(head) and (not later or _agree(head + later)):
        return head
    return cur


_FORECAST = re.compile(r"预期|预测|预估|市场普遍预计|一致预期|(?<![a-z])(?:forecasts?|expected|"
                       r"expectations?|consensus|estimates?|projected|projections?)(?![a-z])",
                       re.IGNORECASE)


def _not_forecasts(ctx: Context, cur: list[Reading]) -> list[Reading]:
    """"well above the consensus forecast of 165,000": a forecast is not the figure asked for
    (unless the question itself asks for a forecast)."""
    if _FORECAST.search(ctx.question):
        return cur
    return [r for r in cur if not _FORECAST.search(FN.clause_before(ctx.text, r.mention.start))]


def _question_words(ctx: Context, cur: list[Reading]) -> list[Reading]:
    """The value said in the question's own words, when every other one is said of
    something the question does not mention (投资活动现金流 beside 经营活动现金流)."""
    if len(cur) < 2:
        return cur
    words = [(_label_words(FN.clause_before(ctx.text, r.mention.start), ctx.question), r)
             for r in cur]
    best = [r for (hit, foreign), r in words if hit >= 2 and foreign == 0]
    if best and all(foreign >= 2 for (_, foreign), r in words if r not in best):
        return best
    return cur


_CLAUSE_MARKS = "，,。；;！？!?\n|】【"
_OPEN, _CLOSE = "(（[", ")）]"
# units, currencies and filler: words that say how a value is written, not what it is of
_UNIT_CJK = set("元亿万千百美币港台日欧英镑人民")
_FUNCTION_CJK = set("于以从对将把被而并或但此已也都就还又再很更个")
_UNIT_EN = {"usd", "rmb", "cny", "hkd", "eur", "gbp", "jpy", "ntd", "billion", "million",
            "trillion", "thousand", "percent", "approx", "roughly", "nearly", "some", "just",
            "over", "under", "from", "into", "than", "then", "also", "while", "whereas"}


def clause_start(text: str, pos: int) -> int:
    """Where the clause holding `pos` starts: back to a clause mark or a bracket `pos` is
    inside, over brackets closed before it ("Initial print (Jan 10, 2025): +256K")."""
    start, depth = pos, 0
    while start > 0:
        c = text[start - 1]
        if c in _CLOSE:
            depth += 1
        elif c in _OPEN:
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and ((c in _CLAUSE_MARKS and not (
                c == "," and start >= 2 and text[start - 2].isdigit()
                and start < len(text) and text[start].isdigit()))
                or (c == "." and start < len(text) and text[start].isspace())):
            break
        start -= 1
    return start


def _bracketed(text: str, lo: int, pos: int) -> bool:
    """`pos` is inside a bracket opened after `lo`."""
    depth = 0
    for c in text[lo:pos]:
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE and depth:
            depth -= 1
    return depth > 0


def own_words(text: str, m: Mention, mentions: list[Mention]) -> str:
    """The words a value is said with: its clause, a parenthesis it is in but not one before
    it, cut at the values before and after it ("中国移动+3.1%，中国联通+4.6%" → "中国联通"; "up
    from 2.7 percent in November" → "up from … in November"); in a table, its column header."""
    if FN.row_of(text, m.start) is not None:
        return FN.column_header(text, m.start)
    start = clause_start(text, m.start)
    if start > 0 and text[start - 1] in _OPEN and not text[start:m.start].strip(" $¥€£"):
        start = clause_start(text, start - 1)  # "AAPL ($93.74B)": the words before the bracket
    # a label before a colon that heads several values is all of theirs, none's own:
    # "工商银行总资产：境内48.82万亿元，集团合计49.50万亿元"
    line = text.rfind("\n", 0, m.start) + 1
    colon = max(text.rfind("：", line, m.start), text.rfind(":", line, m.start))
    if colon >= start and not any(c in text[line:colon] for c in ",，;；:：|{'\""):
        stop = text.find("\n", colon)
        stop = len(text) if stop < 0 else stop
        if sum(1 for o in mentions if colon < o.start < stop
               and not _bracketed(text, colon, o.start)
               and not _OF_WHICH.search(text, max(colon, o.start - 40), o.start)) >= 2:
            start = colon + 1
    end = _own_end(text, m, mentions)
    for o in mentions:
        if start < o.end <= m.start:
            start = o.end
    return text[start:m.start] + " " + text[m.end:end]


def _own_end(text: str, m: Mention, mentions: list[Mention]) -> int:
    """Where a value's own words end: the end of its clause, a bracket, or the next value."""
    end = m.end
    while end < len(text) and not (text[end] in _CLAUSE_MARKS + _OPEN + _CLOSE and not (
            text[end] == "," and end + 1 < len(text) and text[end + 1].isdigit())) and not (
            text[end] == "." and (end + 1 == len(text) or text[end + 1].isspace())):
        end += 1
    for o in mentions:
        if m.end <= o.start < end:
            end = o.start
    if end < len(text) and text[end] in _OPEN and re.match(r"\s*[+\-−]?[$¥€£]?\s*\d", text[end + 1:]):
        # "+4.56% YoY — ahead of China Mobile (+3.1%)": the words before a bracketed value
        # are that value's, not this one's
        return m.end
    return end


def _units(words: str) -> list[str]:
    """A label as the units that carry its meaning, in order: CJK characters and Latin words
    (stemmed, each twice: a word says about as much as two characters); filler, units and
    currencies left out."""
    out: list[str] = []
    for tok in re.findall(r"[\u4e00-\u9fff]|[a-z]{3,}", words.lower()):
        if len(tok) == 1:
            if tok not in _STOP_CJK and tok not in _UNIT_CJK and tok not in _FUNCTION_CJK:
                out.append(tok)
        elif tok not in _STOP_EN and tok not in _UNIT_EN:
            out += [tok.rstrip("s")[:6]] * 2
    return out[:80]


def _common(a: list[str], b: list[str]) -> int:
    """The longest common subsequence of two labels, in units: how much of one the other
    says in order, whatever is inserted ("经营活动产生的现金流量净额" holds all of
    "经营活动现金流净额")."""
    if not a or not b:
        return 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def _said_of_asked(ctx: Context, cur: list[Reading]) -> list[Reading]:
    """Values that decide differently, told apart by their own words: a value is set aside
    when its words name something neither the question nor the reference names, and another
    value's words say clearly more of what the reference's points (first) or the question
    (then) say ("经营活动产生的现金流量净额62.57亿元" over "投资活动现金流净额-11.94亿元" for
    经营活动现金流净额; "JPMorgan … total assets $4.00T" over "BofA $3.26T" for JPMorgan
    Chase; "2.9 percent … in December" over "up from 2.7 percent in November"). A value with
    no words of its own ("产量和销量分别为a和b": b) is never set aside."""
    if len(cur) < 2 or len({r.verdict.outcome for r in cur}) < 2:
        return cur
    ref_text = " ".join(p.label + " " + (" ".join(aliases(p.name)) if p.kind == "name" else "")
                        for p in ctx.ref.points)
    ref_u, q_u = _units(ref_text), _units(ctx.question)
    own = {id(r): _units(own_words(ctx.text, r.mention, ctx.mentions)) for r in cur}
    score = {k: (_common(u, ref_u), _common(u, q_u)) for k, u in own.items()}

    def beats(a: Reading, b: Reading) -> bool:
        (ra, qa), (rb, qb) = score[id(a)], score[id(b)]
        if abs(ra - rb) >= 2:  # the reference's names and labels decide
            level, ahead = ref_u, ra > rb
        elif ra == rb and qa >= qb + 2:
            level, ahead = q_u, True
        else:
            return False
        # and b's own words name something that level does not: b is said of something else
        return ahead and bool(set(own[id(b)]) - set(own[id(a)]) - set(level))

    return [r for r in cur if r.mention.start in ctx.protected or not any(
        o.verdict.outcome != r.verdict.outcome and beats(o, r) for o in cur)]


def _scaled_quantum(r: Reading) -> Decimal:
    """The quantum of a reading in the point's units (the mention's quantum times the factor
    its reading applied)."""
    q = r.mention.q
    if r.value is None or q.value == 0:
        return q.quantum
    factor = abs(r.value / q.value) if q.value else Decimal(1)
    return q.quantum * factor
