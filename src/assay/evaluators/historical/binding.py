"""Binding each key point to the answer's final statement of it, and judging that statement.

For a number: the answer's values of the same kind (a money amount for 亿元, a percent or a
bare number for 15.67% …) in the first final block that has any (see `final`). Each value is
read every way the rules call equal (a bare number in the reference's unit or as written;
0.1567 as 15.67%) and judged by the note. A value that fails this point but passes another
key point of the same kind belongs to that point, not to this one. When the values left do
not all decide alike, narrower readings are tried in order — a conversion into another
currency or an "约" restatement of a more precise value is not a second answer; a value said
of another year or quarter than the question's is reasoning; the block's own conclusion
sentence; the one value whose words match the question clearly best — and when they still
disagree the point is unsure, with every candidate listed.

Keyed lists (by month, quarter, year) are bound by key — the table row or the key word right
before a value — never by value, so a swapped pair is wrong, not right.

For a name: named in the final block (not negated, compared away or hedged) → right; never
named anywhere → wrong; named only in the reasoning while the conclusion names a sibling (a
province, a city, a company the reader knows) → wrong; anything else → unsure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from assay.core.decimals import plain, round_half_up

from . import final as FN
from .keys import ALIASES, PROVINCES, label_key, name_key, spellings
from .quantities import Mention
from .reference import KeyPoint, Reference
from .tolerance import FAIL, PASS, UNSURE, Verdict, check

_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
_YEAR_RANGE = re.compile(r"(?<!\d)((?:19|20)\d{2})\s*(?:年)?\s*(?:-|–|~|～|到|至|to|through)\s*"
                         r"((?:19|20)\d{2})(?!\d)")
_PART_PERIOD = re.compile(r"[一二三四1-4]季度|第[一二三四]季度|上半年|下半年|前三季度|半年度|季报|"
                          r"(?<![A-Za-z])[QH][1-4](?![0-9])|first\s+half|second\s+half|"
                          r"(?:first|second|third|fourth)\s+quarter|\d{1,2}\s*[-~至到]\s*\d{1,2}月",
                          re.IGNORECASE)
_FALL_ASKED = re.compile(r"下跌了?多少|下降了?多少|下调了?多少|跌幅|降幅|减少了?多少|跌了多少|"
                         r"how\s+much\s+(?:did|has|had)\s+.{0,40}?(?:fall|drop|decline|"
                         r"decrease)|(?:size|magnitude)\s+of\s+the\s+(?:fall|drop|decline|cut)",
                         re.IGNORECASE)
_RESTATE = re.compile(r"(?:即|约合|折合|相当于|换算|约|大约|i\.e\.|or\s+about|about|roughly|"
                      r"approximately|around|≈)\s*[:：]?\s*$", re.IGNORECASE)
_NEGATED = re.compile(r"(?:不是|而非|并非|而不是|非|高于|超过|低于|不如|胜过|多于|少于|比|"
                      r"(?<![a-z])(?:not|than|rather\s+than|instead\s+of|unlike|over|"
                      r"ahead\s+of|behind))\s*$", re.IGNORECASE)
_HEDGE = re.compile(r"或者|或是|还是|也可能|可能是|也许|不确定|无法确定|难以确定|"
                    r"(?<![a-z])(?:or|maybe|possibly|perhaps|might\s+be|uncertain|either)"
                    r"(?![a-z])", re.IGNORECASE)
CITIES = ("北京", "上海", "天津", "重庆", "广州", "深圳", "杭州", "南京", "苏州", "成都", "武汉", "西安",
          "长沙", "郑州", "济南", "青岛", "沈阳", "大连", "哈尔滨", "长春", "石家庄", "太原", "合肥",
          "福州", "厦门", "南昌", "昆明", "贵阳", "南宁", "海口", "兰州", "西宁", "银川", "乌鲁木齐",
          "拉萨", "呼和浩特", "宁波", "无锡", "佛山", "东莞", "泉州", "唐山", "烟台", "温州")
_SIBLING_GROUPS: tuple[tuple[str, ...], ...] = (
    tuple(sorted(set(PROVINCES) | set(CITIES), key=len, reverse=True)),
    tuple(sorted({a for g in ALIASES for a in g if len(a) > 2}, key=len, reverse=True)),
)


@dataclass
class Reading:
    """One answer value read for one key point."""

    mention: Mention
    verdict: Verdict
    value: Decimal | None  # as compared (the reading that decided), in the point's units
    how: str  # how the answer's text was read ("as written", "bare number in 亿", "0.1567 = 15.67%")
    explained_by: str = ""  # another key point this value passes

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
    if m.spelled and pq.dim != "count":
        return None  # "one of …" is not a value unless a count is asked for
    a = q.value
    if not m.signed and m.direction < 0 and a > 0 and (pq.value < 0 or not fall_asked):
        a = -a  # "fell 16.97%" is -16.97%, unless the question asks how much it fell
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
               fall_asked: bool = False) -> Reading | None:
    """Judge one answer value for one key point; None when it is not about this kind.
    `fall_asked`: the question asks for the size of a fall ("下调了多少"), so "下调0.25个百分点"
    states 0.25, not −0.25."""
    alts = _alternatives(p, m, fall_asked)
    if alts is None:
        return None
    if isinstance(alts, str):
        return Reading(m, Verdict(FAIL, None, f"wrong unit: {alts}"), None, alts)
    best: Reading | None = None
    rank = {PASS: 0, UNSURE: 1, FAIL: 2}
    assert p.qty is not None
    for value, _, how in alts:
        v = check(p, ref.note, value, question_q)
        if (p.qty.value < 0 and value > 0 and not m.signed and m.direction == 0
                and v.outcome == FAIL and check(p, ref.note, -value, question_q).outcome
                != FAIL):
            v = Verdict(UNSURE, v.accepted, v.how + "; the answer gives the size of the fall "
                        "without its sign or a fall word")
        if (p.qty.value > 0 and value < 0 and not m.signed and m.direction < 0
                and v.outcome == FAIL and check(p, ref.note, -value, question_q).outcome
                != FAIL):
            v = Verdict(UNSURE, v.accepted, v.how + "; the answer states a fall of this size, "
                        "the reference a value without sign")
        if m.bound and v.outcome != FAIL:
            v = Verdict(UNSURE, v.accepted, v.how + "; stated as a bound (超过/more than …)")
        r = Reading(m, v, value, how)
        if best is None or rank[v.outcome] < rank[best.verdict.outcome]:
            best = r
    return best


def _agree(rs: list[Reading]) -> str | None:
    outs = {r.verdict.outcome for r in rs}
    if outs == {PASS}:
        return PASS
    if outs == {FAIL}:
        return FAIL
    return None


# ------------------------------------------------------------------------- context
def question_years(question: str) -> set[str]:
    years = set(_YEAR.findall(question))
    for a, b in _YEAR_RANGE.findall(question):
        if int(a) < int(b) <= int(a) + 50:
            years.update(str(y) for y in range(int(a), int(b) + 1))
    return years


def _other_period(text: str, m: Mention, qyears: set[str], q_partial: bool) -> bool:
    clause = FN.clause_before(text, m.start)
    years = set(_YEAR.findall(clause))
    if qyears and years and not (years & qyears):
        return True
    return bool(not q_partial and _PART_PERIOD.search(clause))


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
    qyears: set[str]
    q_partial: bool
    fall_asked: bool = False
    keys: dict[int, str] = field(default_factory=dict)  # mention start → key (keyed lists)

    def read(self, p: KeyPoint, m: Mention) -> Reading | None:
        return read_value(p, self.ref, m, self.question_q(p), self.fall_asked)

    def question_q(self, p: KeyPoint) -> Decimal | None:
        if self.question_decimals is None or p.qty is None:
            return None
        return Decimal(1).scaleb(-self.question_decimals) * (
            p.qty.scale if p.qty.dim != "percent" else 1)


def make_context(text: str, question: str, ref: Reference, mentions: list[Mention],
                 decimals: int | None) -> Context:
    ctx = Context(text, question, ref, mentions, FN.blocks(text), decimals,
                  question_years(question), bool(_PART_PERIOD.search(question)),
                  bool(_FALL_ASKED.search(question)))
    if ref.keyed:
        ctx.keys = {m.start: k for m in mentions if (k := mention_key(text, m, mentions,
                                                                     ref.keyed))}
    return ctx


def mention_key(text: str, m: Mention, mentions: list[Mention], kind: str) -> str | None:
    """The key a value is stated under: its table row's first key cell, else the key word
    between it and the value before it on its line."""
    row = FN.row_of(text, m.start)
    if row is not None:
        cells = text[row[0]:m.start].split("|")
        for cell in cells:
            k = label_key(cell, kind)
            if k:
                return k
        return None
    floor = text.rfind("\n", 0, m.start) + 1
    for other in mentions:
        if other.end <= m.start and other.end > floor:
            floor = other.end
    return label_key(text[floor:m.start], kind)


# ------------------------------------------------------------------------- numbers
def bind_number(p: KeyPoint, ctx: Context, others: list[KeyPoint]) -> PointResult:
    keyed = ctx.ref.keyed is not None and p.id in ctx.ref.keys
    want = ctx.ref.keys.get(p.id)
    if keyed and not ctx.keys:
        any_value = any(ctx.read(p, m) for m in ctx.mentions)
        if any_value:
            return PointResult(p, UNSURE, f"values are given, but none under a "
                               f"{ctx.ref.keyed} the reader recognises")
    for block in ctx.blocks:
        readings: list[Reading] = []
        for m in ctx.mentions:
            if not (block.start <= m.start < block.end):
                continue
            if keyed and ctx.keys.get(m.start) != want:
                continue
            r = ctx.read(p, m)
            if r is None:
                continue
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
        return _decide(p, ctx, block, relevant, aside, keyed)
    return PointResult(p, FAIL, "the answer states no value for this key point"
                       + (f" (under {want})" if keyed else ""))


def _decide(p: KeyPoint, ctx: Context, block: FN.Block, rel: list[Reading],
            aside: list[dict[str, Any]], keyed: bool) -> PointResult:
    where = block.why

    def done(outcome: str, rs: list[Reading], why: str) -> PointResult:
        used = {id(r) for r in rs}
        extra = [dict(r.as_dict(), why=why_aside.get(id(r), "not the final statement"))
                 for r in rel if id(r) not in used]
        return PointResult(p, outcome, why, where, rs, aside + extra)

    why_aside: dict[int, str] = {}
    out = _agree(rel)
    if out:
        return done(out, rel, "the final statement" if len(rel) == 1 else
                    "every value stated in the final statement decides alike")
    cur = list(rel)

    def narrow(keep: list[Reading], reason: str) -> str | None:
        nonlocal cur
        if keep and len(keep) < len(cur):
            for r in cur:
                if r not in keep:
                    why_aside[id(r)] = reason
            cur = keep
            return _agree(cur)
        return None

    assert p.qty is not None
    # 1. a conversion into another currency beside the value in the reference's currency
    if p.qty.currency:
        same = [r for r in cur if r.mention.q.currency in (None, p.qty.currency)]
        if (o := narrow(same, "a conversion into another currency")):
            return done(o, cur, "the value in the reference's currency")
    # 2. an approximate restatement of a more precise value
    keep = []
    for r in cur:
        restated = r.value is not None and _RESTATE.search(
            ctx.text[max(0, r.mention.start - 8):r.mention.start]) is not None and any(
            o is not r and o.value is not None and o.mention.q.quantum < r.mention.q.quantum
            and round_half_up(o.value, _scaled_quantum(r)) == r.value for o in cur)
        if not restated:
            keep.append(r)
    if (o := narrow(keep, "an approximate restatement of a more precise value")):
        return done(o, cur, "the precise value, with its rounded restatement set aside")
    # 3. values said of another year or part of a year than the question asks about
    if not keyed:
        keep = [r for r in cur if not _other_period(ctx.text, r.mention, ctx.qyears,
                                                     ctx.q_partial)]
        if (o := narrow(keep, "said of another period than the question's")):
            return done(o, cur, "the values for the period the question asks about")
    # 4. the block's own conclusion sentence, when no later conclusion contradicts it
    if block.why != "whole answer":
        head = [r for r in cur if _in(block.head, r.mention)]
        later = [r for r in cur if any(_in(h, r.mention) for h in FN.heads_after(ctx.text,
                                                                                 block))]
        if (head and _agree(head) and (not later or _agree(head + later))
                and (o := narrow(head, "outside the conclusion sentence"))):
            return done(o, cur, "the conclusion sentence")
    # 5. the one value said in the question's own words, beside others said in other words
    if not keyed and len(cur) > 1:
        words = [(_label_words(FN.clause_before(ctx.text, r.mention.start), ctx.question), r)
                 for r in cur]
        best = [r for (hit, foreign), r in words if hit >= 2 and foreign == 0]
        others_foreign = all(foreign >= 2 for (_, foreign), r in words if r not in best)
        if (best and others_foreign
                and (o := narrow(best, "said of something the question does not ask about"))):
            return done(o, cur, "the value said in the question's own words")
    return PointResult(p, UNSURE, "the answer states values for this point that decide "
                       "differently, and none is clearly the final one", where, cur,
                       aside + [dict(r.as_dict(), why=why_aside[id(r)]) for r in rel
                                if id(r) in why_aside])


def _scaled_quantum(r: Reading) -> Decimal:
    """The quantum of a reading in the point's units (the mention's quantum times the factor
    its reading applied)."""
    q = r.mention.q
    if r.value is None or q.value == 0:
        return q.quantum
    factor = abs(r.value / q.value) if q.value else Decimal(1)
    return q.quantum * factor


# ------------------------------------------------------------------------- names
def _variants(name: str) -> list[str]:
    out = {name.strip().lower()}
    out.update(spellings(name))
    for group in ALIASES:
        if name_key(name) in {name_key(a) for a in group}:
            out.update(a.lower() for a in group)
    return sorted((v for v in out if v), key=len, reverse=True)


def find_name(text: str, name: str) -> list[tuple[int, int]]:
    """Where the answer names `name` (or a known spelling of it)."""
    low = text.lower()
    spans: list[tuple[int, int]] = []
    for v in _variants(name):
        if re.search(r"[\u4e00-\u9fff]", v):
            pat = re.escape(v)
        else:
            pat = r"(?<![a-z0-9])" + r"\s*".join(re.escape(w) for w in v.split()) + \
                r"(?![a-z0-9])"
        spans.extend((m.start(), m.end()) for m in re.finditer(pat, low))
    spans.sort()
    return spans


def _partly_named(text: str, name: str) -> bool:
    key = name_key(name)
    if re.search(r"[\u4e00-\u9fff]", key):
        return len(key) >= 3 and any(key[i:i + 2] in text for i in range(len(key) - 1))
    low = text.lower()
    return any(len(w) >= 4 and w in low for w in re.findall(r"[a-z]+", key))


def _siblings(name: str) -> tuple[str, ...]:
    k = name_key(name)
    for group in _SIBLING_GROUPS:
        if any(name_key(g) == k for g in group):
            return tuple(g for g in group if name_key(g) != k)
    return ()


def bind_name(p: KeyPoint, ctx: Context, passed_spans: list[tuple[int, int]],
              all_names: list[KeyPoint]) -> PointResult:
    text = ctx.text
    spans = find_name(text, p.name)
    if not spans:
        if _partly_named(text, p.name):
            return PointResult(p, UNSURE, "part of the name appears, the name itself does not")
        return PointResult(p, FAIL, "the answer never names it")
    stated = [s for s in spans if not _NEGATED.search(text[max(0, s[0] - 8):s[0]])]
    marker_blocks = [b for b in ctx.blocks if b.why != "whole answer"]
    if marker_blocks:
        b = marker_blocks[0]
        inside = [s for s in stated if b.start <= s[0] < b.end]
        if inside:
            if any(_HEDGE.search(FN.sentence_of(text, s[0])) for s in inside):
                return PointResult(p, UNSURE, "named in the conclusion, but hedged", b.why)
            return PointResult(p, PASS, "named in the final statement", b.why)
        head = text[b.head[0]:b.head[1]]
        others = [g for g in _siblings(p.name) if g in head
                  and not any(name_key(g) == name_key(n.name) for n in all_names)]
        if others:
            return PointResult(p, FAIL, f"the conclusion names {others[0]}, not {p.name}", b.why)
        return PointResult(p, UNSURE, "named in the reasoning, not in the conclusion", b.why)
    if not stated:
        return PointResult(p, UNSURE, "named only as a comparison or a negation")
    sentences = [s for s in re.split(r"(?<=[。！？!?])|\n+|(?<=\.)\s+", text) if s.strip()]
    if any(_HEDGE.search(FN.sentence_of(text, s[0])) for s in stated):
        return PointResult(p, UNSURE, "named in a hedged sentence")
    if len(sentences) <= 3:
        return PointResult(p, PASS, "named in a short answer with no separate reasoning",
                           "whole answer")
    if any(FN.sentence_start(text, s[0]) == FN.sentence_start(text, ps[0])
           for s in stated for ps in passed_spans):
        return PointResult(p, PASS, "named in the sentence that states the right value",
                           "whole answer")
    return PointResult(p, UNSURE, "named, but the answer has no marked conclusion")


def extra_names(ctx: Context, names: list[KeyPoint]) -> list[str] | None:
    """Names in the final block beyond the reference's, for notes that forbid others; None
    when the reader cannot list such names (it knows provinces only)."""
    wanted = {name_key(n.name) for n in names}
    if not all(k in {name_key(x) for x in PROVINCES} for k in wanted):
        return None
    marker_blocks = [b for b in ctx.blocks if b.why != "whole answer"]
    b = marker_blocks[0] if marker_blocks else ctx.blocks[-1]
    seg = ctx.text[b.start:b.end]
    return sorted({x for x in PROVINCES if x in seg and name_key(x) not in wanted})
