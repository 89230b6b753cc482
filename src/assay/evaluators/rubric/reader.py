"""Reading an answer: every value it states, tied to the field and the instrument it speaks of.

The unit is the statement (see `statements`). Within it a value takes the field of the
nearest field word before it in its clause ("开盘价为112.91美元，最高价114.67美元"), else the first
one after it ("112.91 (open)"); a table cell takes its column header's field, else its row
label's. "分别 / respectively" and "最高/最低：a/b" pair words and values in order. The value
speaks of the nearest instrument named before it in its statement, else the statement's
inherited subject, else the item's own. Its kind must fit the field: a percent is never a
price, points are not percent, a market value is not a share price.

Every value comes back, bound or not, with the reason; a value whose binding is in doubt (a
name the reader cannot place, "yesterday" beside a close, a range given for one quantity)
carries the doubt, and the caller decides whether the doubt changes the score.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace
from decimal import Decimal

from assay.core.casing import has_ascii_upper
from assay.core.lazy_pattern import lazy
from assay.truth.vocabulary import code_core

from . import words as F
from .dates import Day, find_dates
from .instruments import Identity, Name, scan
from .lexer import Role, has_numeric_period, tokens
from .numbers import Mention, normalise, read_numbers
from .statements import SENT_CHARS, Layout, Subject, Unit, layout

MINE = "mine"
# Decimal constants for the comparisons made per value: against an int, each would convert it
_ZERO = Decimal(0)
_ONE = Decimal(1)
OTHER = "other"
UNSURE = "unsure"

# "[，,、；;。！？!?\n|]|\.(?=\s|$)|(?<=\s)-(?=\s)" and "[；;。！？!?\n|]|\.(?=\s|$)", written to start
# with the character they look for, so the engine skips to it
_CLAUSE_END = re.compile(r"[，,、；;。！？!?\n|.\-](?:(?<![.\-])|(?<=\.)(?=\s|$)|(?<=\s-)(?=\s))")
# A scope ("respectively", a sentence for dates) ends where r"[；;。！？!?\n|.](?:(?<!\.)|(?=\s|$))"
# matches: at the clause ends (_CLAUSE_END) that are one of these characters (a "." ends both
# only before a blank or the end), so one pass over the answer gives both.
_SCOPE_CHARS = frozenset("；;。！？!?\n|.")
# Words that put a value in the past. Comparisons ("较前一交易日下跌") are not among them.
# Stale figures a model hedges with ("as of my training data it was ~$95") are earlier too.
_EARLIER = re.compile(r"前几天|前几日|几天前|此前|之前|上周|训练数据|知识截止|截至我的|"
                      r"旧数据|earlier|previously|days? ago|last week|training data|my training|"
                      r"knowledge cut-?off|as of my last|prior session|previous session|"
                      r"last month|last year|a year ago|past year|past 12 months|上个月|上月|去年",
                      re.IGNORECASE)
# ... and these only in their own clause ("368.50元是前一交易日收盘，10月17日收盘价为358.14元")
_EARLIER_CLAUSE = re.compile(r"前一交易日|上一交易日|前一日|昨日|昨天|yesterday|previous day|prior day",
                             re.IGNORECASE)
# Words that every match of _EARLIER, _EARLIER_CLAUSE and dates._DATE (besides its "19" / "20"
# and 月) holds: where none is in the answer, the search finds nothing
_EARLIER_HINTS = ("前几", "几天前", "此前", "之前", "上周", "训练数据", "知识截止", "截至我的", "旧数据",
                  "earlier", "previously", "ago", "last week", "training", "knowledge cut",
                  "as of my last", "prior session", "previous session", "last month",
                  "last year", "past year", "past 12 months", "上个月", "上月", "去年")
_EARLIER_CLAUSE_HINTS = ("前一", "上一交易日", "昨日", "昨天", "yesterday", "previous day", "prior day")
_MONTH_HINTS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_RESPECTIVELY = re.compile(r"分别|respectively|依次", re.IGNORECASE)
_PERIOD_N = re.compile(r"近\s*\d+\s*(?:个?交易日|日|天|个?月|周|年)|过去\s*\d+|\d+\s*日(?:涨跌幅|涨幅|跌幅)|"
                       r"(?:last|past)\s+\d+\s+(?:trading\s+)?(?:days|weeks|months|years)|"
                       r"\d+-(?:day|week|month)\b")
# Terse answers: "开618.5、高620.5、低602.5", "O 512.58 H 516.85 L 508.13 C 511.61", "O/H/L = …"
# (each matches the one letter, and starts with it so the engine skips to one)
_TERSE_ZH = re.compile(r"[开高低收](?<![最今昨][开高低收])(?=\s*[:：]?\s*[$¥]?\d)")
_TERSE_EN = re.compile(r"[OHLC](?:(?<![A-Za-z][OHLC])(?=\s*(?:[:=]\s*)?(?:[$¥]?\d|/[OHLC]\b))|"
                       r"(?<=[OHLC]/[OHLC])(?![A-Za-z]))")
_TERSE_FIELD = {"开": F.OPEN, "高": F.HIGH, "低": F.LOW, "收": F.LAST, "O": F.OPEN, "H": F.HIGH,
                "L": F.LOW, "C": F.LAST}
_LEVEL_WORDS = frozenset({"跌至", "涨至", "升至", "降至", "回落至", "回升至", "上涨至", "下跌至", "下挫至",
                          "走低至", "走高至", "至", "fell to", "rose to", "dropped to", "climbed to",
                          "declined to", "slipped to", "to"})
_PRICE_LIKE = frozenset({F.LAST, F.OPEN, F.HIGH, F.LOW, F.PREV_CLOSE, F.AM_FIX, F.PM_FIX, F.BID,
                         F.ASK, F.OFFSHORE, F.ONSHORE, F.CENTRAL_PARITY, F.EXTENDED})
_SIZES = frozenset({F.MARKET_CAP, F.TURNOVER, F.VOLUME})


@dataclass(slots=True)  # built per answer: see numbers.Mention on why not frozen
class Bound:
    """A value with the field and the instrument it was tied to, and how."""

    field: str  # "" when no field word reaches it
    mention: Mention
    value: Decimal  # signed: direction words applied
    via: str  # the field word, "header …", "fallback", "respectively", "model extraction"
    instrument: str = MINE  # mine | other | unsure
    about: str = ""  # the name it was tied to, if any
    why: str = ""  # why it does not count, or what the doubt is
    doubt: bool = False  # it may or may not speak of the required point
    day: Day | None = None  # the date its clause or sentence gives it, if any
    earlier: bool = False  # its sentence says it is from before ("前几天", "earlier")


@dataclass(slots=True)  # built per answer: see numbers.Mention on why not frozen
class _Word:
    start: int
    end: int
    text: str
    field: str


@dataclass(frozen=True, slots=True)
class Want:
    """What the reader needs to know about the question."""

    required: tuple[str, ...]
    percent_last: bool  # the headline quantity is itself in percent (a yield)


def read(answer: str, ident: Identity, want: Want) -> list[Bound]:
    """Every value of `answer`, bound or not."""
    text = normalise(answer)
    runs: list[tuple[int, int]] = []
    found = read_numbers(text, runs)
    # loops, not comprehensions, on this path: a comprehension builds a function object and
    # a frame each time (Python 3.11), more than its loop costs on an answer's few items
    keep = []
    for m in found:
        keep.append(not _is_code(m, ident))
    mentions = _keep(found, keep)
    if not mentions:
        return []
    if not want.percent_last:
        for m in mentions:
            if m.unit == "bp":
                mentions = [_bp_as_percent(m) if m.unit == "bp" else m for m in mentions]
                break
    low = text.lower()
    toks = tokens(low)
    all_names = scan(low, ident, text, None, runs, toks)
    if all_names:  # digits inside a name ("黄金9999", "S&P 500") are part of it
        mentions = _keep(mentions, _outside(mentions, all_names))
    in_number = bytearray(len(text))
    for m in mentions:
        in_number[m.start:m.end] = b"\x01" * (m.end - m.start)
    words: list[_Word] = []
    quals: list[tuple[int, str]] = []
    periods: list[int] = []
    for a, b, w, r in toks:  # one pass for the three kinds of words
        if r.field and not in_number[a]:
            words.append(_Word(a, b, w, r.field))
        if r.qual and not in_number[a] and not (w in _TOUCH and _high_low_at(toks, b)):
            quals.append((a, r.qual))
        if r.period and not (a > 0 and low[a - 1].isdigit()):
            periods.append(a)
    words = _terse_words(text, words, in_number)
    names = []
    for n in all_names:
        if not in_number[n.start]:
            names.append(n)
    # a name is not a field word ("恒生指数" names an index, "指数" alone is a level)
    if names and words:
        unnamed: list[_Word] = []
        for fw, outside in zip(words, _outside(words, names), strict=True):
            if outside or fw.field in _NAMED_FIELDS:
                unnamed.append(fw)
        words = unnamed
    if has_numeric_period(low):
        periods += [p.start() for p in _PERIOD_N.finditer(low)]
    # one pass for the clause ends; the sentence ends (statements) and the scopes of
    # "respectively" are those of them at their own characters
    clauses = _ends(_CLAUSE_END, text, in_number)
    sentence_ends = []
    for c in clauses:
        if text[c] in SENT_CHARS:
            sentence_ends.append(c)
    lay = layout(text, names, in_number, sentence_ends)
    if "|" in text:  # a table's date column holds days, not values ("| 10-17 | 991.02 |")
        dated: dict[tuple[int, int], bool] = {}  # per column header: does it name dates?
        mentions = _keep(mentions, [not _in_date_cell(text, lay, m, dated) for m in mentions])
        if not mentions:
            return []
    paired = _respectively(text, mentions, words, in_number, clauses, low)
    attached = _attach(text, mentions, words, quals, clauses) if quals else {}
    period_of = set(_attach(text, mentions, words, [(p, F.RANGE52) for p in periods],
                            clauses)) if periods else set()
    ctx = _Ctx(attached, period_of, text, low, ident, want, words, names, quals, periods, lay, clauses)
    out = []
    for k, m in enumerate(mentions):
        out.append(_bind(ctx, k, m, paired.get(k)))
    out = _ranges(ctx, mentions, out)
    if "而是" in text or "but" in low or "rather" in low:
        out = _not_but(ctx, out)
    if "由" in text or "从" in text or "from" in low:
        out = _move_from(ctx, out)
    return _also(ctx, mentions, out)


def _outside(spans: list[Mention] | list[_Word], names: list[Name]) -> list[bool]:
    """For each span: False where its first and its last character are each inside a name
    (the names are few: a loop over them, not a bytearray marked with them)."""
    out = []
    for sp in spans:
        first, last = sp.start, sp.end - 1
        a = b = False
        for n in names:
            if n.start <= first < n.end:
                a = True
            if n.start <= last < n.end:
                b = True
        out.append(not (a and b))
    return out


def _ends(pattern: re.Pattern[str], text: str, in_number: bytearray) -> list[int]:
    """Where `pattern` matches in `text`, outside numbers."""
    out = []
    for b in pattern.finditer(text):
        k = b.start()
        if not in_number[k]:
            out.append(k)
    return out


_FROM = re.compile(r"(?:由|从|(?<![a-z])(?:(?:up|down|rose|fell|climbed|dropped)\s+)?from)"
                   r"[^\d,，。;；]{0,12}$", re.IGNORECASE)
_TO = re.compile(r"(?:至|到|(?<![a-z])to)[^\d,，。;；]{0,6}$", re.IGNORECASE)
_PRIOR = re.compile(r"前一日|前一交易日|上一交易日|昨日|昨天|(?<![a-z])(?:prior|previous)\s+"
                    r"(?:session|day|close)|yesterday|the\s+day\s+before", re.IGNORECASE)


_DAY_BEFORE_FROM = re.compile(r"(?:昨日|昨天|yesterday)[^\d]{0,12}(?:由|从|from)", re.IGNORECASE)


def _move_from(ctx: _Ctx, out: list[Bound]) -> list[Bound]:
    """"由前一日2.1503%下行1.08bp至2.1395%", "closed at $298.54, down from $305.69 the prior
    session": the value a move started from is the previous close when its words say the
    prior day, else an earlier value — not the latest."""
    text = ctx.text
    for k, b in enumerate(out):
        based = b.field == F.OTHER and b.via.lower().endswith("from")  # "down from $305.69"
        if not based and (b.field not in (F.LAST, F.CLOSE, "") or b.why):
            continue
        lo = out[k - 1].mention.end if k else 0
        if not _FROM.search(text, max(lo, b.mention.start - 24), b.mention.start):
            continue
        end = min([c for c in (text.find(x, b.mention.end) for x in "，,。;；\n") if c >= 0]
                  or [len(text)])
        moved_to = any(o.mention.start < end and _TO.search(
            text, max(b.mention.end, o.mention.start - 10), o.mention.start) for o in out[k + 1:])
        said_from = re.search(r"(?:up|down|rose|fell|climbed|dropped)\s+from[^\d]{0,12}$",
                              text[max(lo, b.mention.start - 24):b.mention.start], re.IGNORECASE)
        if not (moved_to or said_from):
            continue
        clause = text[max(lo, b.mention.start - 24):end]
        # "比亚迪昨日由前一日106.96元下跌至105.50元收盘": the move is yesterday's, so where it
        # ended is yesterday's close, and where it started the day before's — not 昨收
        subject_day = _DAY_BEFORE_FROM.search(text, max(0, b.mention.start - 40), b.mention.start)
        if _PRIOR.search(clause) and not subject_day:
            out[k] = replace(b, field=F.PREV_CLOSE, via="the value a move started from, the "
                             "prior day's", why="")
        elif based:
            continue
        else:
            out[k] = replace(b, why="where a move started (from … to …), not the latest value")
    return out


_DENIED = re.compile(r"(?:不是|并非|并不是|(?<![a-z])not)\s*$", re.IGNORECASE)
_BUT = re.compile(r"(?:而是|(?<![a-z])(?:but(?:\s+rather)?|rather))\s*(?:at\s+|is\s+|was\s+)?$",
                  re.IGNORECASE)


def _not_but(ctx: _Ctx, out: list[Bound]) -> list[Bound]:
    """"昨收不是106.60元（那是今日开盘价），而是106.96元", "not $249.34 but $247.45": the value
    after «而是 / but» is the field the denied value was said of."""
    text = ctx.text
    for k in range(len(out) - 1):
        a, b = out[k], out[k + 1]
        lo = max(0, a.mention.start - 8)
        if not (a.mention.bound and a.field and _DENIED.search(text, lo, a.mention.start)):
            continue
        if b.field and b.via != "fallback":
            continue
        if not _BUT.search(text, max(a.mention.end, b.mention.start - 12), b.mention.start):
            continue
        out[k + 1] = replace(b, field=a.field, via="not … but …",
                             why="" if b.why in ("", "no field word reaches it") else b.why)
    return out


# field words that stay field words inside a name ("离岸人民币")
_NAMED_FIELDS = (F.OFFSHORE, F.ONSHORE, F.CENTRAL_PARITY)
# "盘中一度冲高至620.50": a momentary level, which a day's high or low is by definition
_TOUCH = frozenset({"一度", "盘中一度", "at one point"})


def _high_low_at(toks: list[tuple[int, int, str, Role]], end: int) -> bool:
    """A high or low word starts within a few characters after `end`."""
    return any(end <= a <= end + 3 and r.field in (F.HIGH, F.LOW) for a, _, _, r in toks)


def _bp_as_percent(m: Mention) -> Mention:
    """"−281bp d/d", "down 81 bp": basis points of a price's move are hundredths of a
    percent (-2.81 %). Of a yield (the item's level is itself a percent) they are a move of
    the level, not its percent change, and stay as written."""
    return replace(m, value=m.value / 100, quantum=m.quantum / 100, percent=True, unit="")


def _keep(mentions: list[Mention], keep: list[bool]) -> list[Mention]:
    """The mentions that are kept, with each range's link (`range_with`, an index into this
    list) renumbered, or cut when its other end was dropped (a code or a date cell)."""
    if all(keep):
        return mentions
    index: dict[int, int] = {}
    for k, flag in enumerate(keep):
        if flag:
            index[k] = len(index)
    return [m if m.range_with < 0 or index.get(m.range_with) == m.range_with
            else replace(m, range_with=index.get(m.range_with, -1))
            for k, m in enumerate(mentions) if keep[k]]


_DATE_HEADER = re.compile(r"日期|交易日|时间|date|day|time|session", re.IGNORECASE)
_DATE_CELL = re.compile(r"\s*(?:(?:19|20)\d{2}[-/.年])?\d{1,2}[-/月]\d{1,2}日?\s*")


def _in_date_cell(text: str, lay: Layout, m: Mention, dated: dict[tuple[int, int], bool]
                  ) -> bool:
    """`dated`: the answer's column headers already searched for a date word."""
    unit = lay.unit_at(m.start)
    if unit is None or not unit.cell:
        return False
    cell = text[unit.start:unit.end]
    # a date cell holds "-", "/" or 月 between its month and day
    if ("-" in cell or "/" in cell or "月" in cell) and _DATE_CELL.fullmatch(cell):
        return True
    head = unit.header
    if head is None:
        return False
    named = dated.get(head)
    if named is None:
        named = dated[head] = _DATE_HEADER.search(text[head[0]:head[1]]) is not None
    # ... and no ASCII letter in the cell (bytes.lower and .upper differ exactly there)
    b = cell.encode("ascii", "ignore")
    return named and b.lower() == b.upper()


# "今开5999.48点，即全日最高": the value is also the field the next words name
_ALSO = re.compile(r"\s*(?:点|元|港元|美元|pts|points)?\s*[，,]?\s*"
                   r"(?:即|也是|亦是|亦为|同时也是|也即|which (?:was|is) also|i\.e\.,?)\s*"
                   r"(?:全日|当日|日内|今日|the day's|the session's|the)?\s*", re.IGNORECASE)


def _also(ctx: _Ctx, mentions: list[Mention], out: list[Bound]) -> list[Bound]:
    text, low = ctx.text, ctx.low
    # _ALSO needs 即 / 也 / 亦, "which" or "i.e." (in any case) somewhere after the value
    if not ("即" in text or "也" in text or "亦" in text or ("wh" in low and "ch" in low)
            or ".e." in low):
        return out
    extra: list[Bound] = []
    for k, b in enumerate(out):
        if not b.field or b.why:
            continue
        m = _ALSO.match(ctx.text, b.mention.end)
        if m is None or m.end() == b.mention.end:
            continue
        nxt = mentions[k + 1].start if k + 1 < len(mentions) else len(ctx.text)
        for w in ctx.words:
            if w.start == m.end() and w.end <= nxt and w.field in (F.HIGH, F.LOW, F.OPEN,
                                                                     F.LAST, F.PREV_CLOSE):
                extra.append(replace(b, field=w.field, via=f"{b.via}, {ctx.text[m.start():w.end].strip()}"))
                break
    return out + extra if extra else out


@dataclass(slots=True)
class _Ctx:
    attached: dict[int, list[str]]
    period_of: set[int]
    text: str
    low: str
    ident: Identity
    want: Want
    words: list[_Word]
    names: list[Name]
    quals: list[tuple[int, str]]
    periods: list[int]
    lay: Layout
    clauses: list[int]


_GENERIC_LEVEL = frozenset({"报", "现报", "最新报", "价格", "price", "at", "to", "trading at", "traded at",
                            "is at", "was at", "至", "quoted at", "last", "最新", "最新为"})
_REGULAR = re.compile(r"收盘|开盘|今日|日内|盘中|regular|close|closed|open|opened|today|intraday",
                      re.IGNORECASE)


def _attach(text: str, mentions: list[Mention], words: list[_Word],
            quals: list[tuple[int, str]], clauses: list[int]) -> dict[int, list[str]]:
    """Which value each qualifier speaks of: the value right before it when only a few words
    stand between ("$165.20 after hours", "$111.20 in the pre-market"), else the first value
    after it in its clause ("盘后股价为113.28美元", "a record $4,392.0")."""
    out: dict[int, list[str]] = {}
    for qpos, qfield in quals:
        cs, ce = _segment(qpos, clauses, 0, len(text))
        before = [k for k, m in enumerate(mentions) if cs <= m.start and m.end <= qpos]
        if before and qfield in (F.EXTENDED, F.RANGE52):
            k = before[-1]
            gap = (mentions[k].end, qpos)
            if gap[1] - gap[0] <= 20 and not any(gap[0] <= w.start < gap[1] and
                                                 w.field not in (F.OTHER, F.EXTENDED)
                                                 for w in words):
                out.setdefault(k, []).append(qfield)
                continue
        after = [k for k, m in enumerate(mentions) if qpos < m.start < ce]
        if after:
            out.setdefault(after[0], []).append(qfield)
    return out


def _extended_before(ctx: _Ctx, unit: Unit | None, cs: int, m: Mention) -> bool:
    """An after-hours / pre-market word earlier in the sentence, with no word of the regular
    session between it and this value."""
    lo = unit.start if unit else 0
    for qpos, qfield in reversed(ctx.quals):
        if qfield == F.EXTENDED and lo <= qpos < cs:
            return not _REGULAR.search(ctx.text, qpos, m.start)
    return False


def _terse_words(text: str, words: list[_Word], in_number: bytearray) -> list[_Word]:
    """Single letters and characters that name a field only right before a number."""
    # one pass of each, and only over an answer with one of their letters in it
    found = [*_TERSE_ZH.finditer(text)] if ("开" in text or "高" in text or "低" in text
                                            or "收" in text) else []
    if "O" in text or "H" in text or "L" in text or "C" in text:
        found += _TERSE_EN.finditer(text)
    if not found:
        return words
    taken = bytearray(len(text))
    for w in words:
        taken[w.start:w.end] = b"\x01" * (w.end - w.start)
    extra = []
    for m in found:
        k = m.start()
        ch = text[k]
        if not taken[k] and not in_number[k]:
            extra.append(_Word(k, k + 1, ch, _TERSE_FIELD[ch]))
    return sorted([*words, *extra], key=lambda w: w.start)


def _segment(pos: int, bounds: list[int], lo: int, hi: int) -> tuple[int, int]:
    start, end = lo, hi
    for b in bounds:
        if b < pos:
            if b + 1 > start:
                start = b + 1
        else:
            if b < end:
                end = b
            break
    return start, end


def _is_code(m: Mention, ident: Identity) -> bool:
    """A bare integer that is the item's code ("600519", "00700"), or a six-digit code."""
    if m.quantum != _ONE or m.percent or m.unit or m.currency or m.scaled or m.points or m.signed:
        return False
    digits = m.text.replace(",", "")
    if "," in m.text:
        return False
    return (len(digits) == 6 and digits[0] in "0368") or code_core(digits) in ident.codes


def _resolve(word: _Word, m: Mention) -> str:
    """The field a field word gives a value, adjusted for the value's kind."""
    field = word.field
    t = word.text.lower()
    if field == F.CHANGE and (m.percent or t in F.PCT_WORDS):
        return F.CHANGE_PCT
    if field == F.CHANGE_PCT and (m.unit or m.currency or m.points) and not m.percent:
        return F.CHANGE
    return field


def _bind(ctx: _Ctx, k: int, m: Mention, paired: str | None) -> Bound:
    unit = ctx.lay.unit_at(m.start)
    lo, hi = (unit.start, unit.end) if unit else (0, len(ctx.text))
    cs, ce = _segment(m.start, ctx.clauses, lo, hi)
    word, via = _field_word(ctx, unit, m, cs, ce, paired)
    field = _resolve(word, m) if word is not None else ""
    if paired is not None and word is not None:
        field, via = _resolve(word, m), "respectively"
    # a percent beside a price is its change: "$512.30 (−0.42%)", "报41.59元，跌0.81%"
    if m.percent and field in _PRICE_LIKE and (field != F.LAST or not ctx.want.percent_last) \
            and (m.signed or ctx.text[m.start - 2 if m.start > 2 else 0:m.start].strip()[-1:] in ("(", "（")
                 or _direction(ctx.words, cs, m.start + 1)):
        field, via = F.CHANGE_PCT, "a signed percent beside the price"
    if not field and m.percent and (m.signed or _arrow(ctx.text, m.start)):
        field, via = F.CHANGE_PCT, "a signed percent"
    if unit is not None and unit.cell and field == F.CHANGE and "%" in _context_text(ctx, unit):
        field = F.CHANGE_PCT
    value = m.value
    # qualifiers tied to this value (and those in a cell's header and row label)
    doubt = ""
    tied = ctx.attached.get(k)
    quals = list(tied) if tied else []
    if unit is not None and unit.cell and ctx.quals:
        quals += [qf for qpos, qf in ctx.quals if _in_context(unit, qpos)]
    if not quals and field == F.LAST and word is not None and \
            word.text.lower() in _GENERIC_LEVEL and _extended_before(ctx, unit, cs, m):
        quals.append(F.EXTENDED)  # "苹果盘前涨0.5%，报248.69美元"
    for qfield in quals:
        if qfield in (F.OTHER, F.RANGE52):
            if field not in _SIZES:  # "盘中一度跌逾3.1%", "a record $4,392.0"
                field = qfield
        elif qfield == F.EXTENDED:  # the example 1 reading: a session's change still counts
            if field in (F.LAST, F.OPEN, F.HIGH, F.LOW):
                field = qfield
        elif field in _PRICE_LIKE and (qfield not in (F.BID, F.ASK) or field == F.LAST):
            field = qfield
    if field and k in ctx.period_of and field not in (
            F.VOLUME, F.TURNOVER, F.MARKET_CAP, F.OTHER, F.RANGE52):
        return Bound(field, m, value, via, why="said of another period (week, month, year)")
    if field in (F.CHANGE, F.CHANGE_PCT) and not m.signed and \
            _direction(ctx.words, cs, m.start + 1) < 0:
        value = -value
    instrument, about = _instrument(ctx, unit, m, cs, ce)
    # a bare "$157.91" answers "the price" when it is the one quantity asked for
    if not field and len(ctx.want.required) == 1 and instrument != OTHER and \
            ctx.want.required[0] in (F.LAST, F.CHANGE_PCT) and \
            not _misfit_of(ctx, ctx.want.required[0], m, value):
        field, via = ctx.want.required[0], "fallback"
    unsure = False
    if instrument == OTHER:
        why = f"speaks of {about}" if about else "speaks of another instrument"
    else:
        why = _misfit_of(ctx, field, m, value)
    if why:
        pass
    elif m.bound:
        why = "a bound, a level crossed or a denied value (above / 跌破 / not …), not a value"
    elif instrument == UNSURE:
        unsure, why = True, f"may speak of «{about}», not the item's instrument"
    elif doubt:
        unsure, why = True, doubt
    return Bound(field, m, value, via, instrument, about, why, unsure)


def _arrow(text: str, pos: int) -> bool:
    return text[max(0, pos - 2):pos].strip()[-1:] in ("▲", "▼", "↑", "↓")


def _context_text(ctx: _Ctx, unit: Unit | None) -> str:
    """A table cell's column header and row label."""
    if unit is None or not unit.cell:
        return ""
    return " ".join(ctx.text[s[0]:s[1]] for s in (unit.header, unit.label) if s is not None)


def _in_context(unit: Unit | None, pos: int) -> bool:
    if unit is None or not unit.cell:
        return False
    return any(s is not None and s[0] <= pos < s[1] for s in (unit.header, unit.label))


def _field_word(ctx: _Ctx, unit: Unit | None, m: Mention, cs: int, ce: int,
                paired: str | None) -> tuple[_Word | None, str]:
    if paired is not None:
        for w in ctx.words:
            if w.field == paired:
                return w, "respectively"
    # a word reaches the value only if no instrument is named between them
    # ("普跌：贵州茅台1455.00元": "跌" speaks of the sector, not of the price)
    start = m.start
    named = cs
    for n in ctx.names:  # in order of position, as the words are, and never overlapping
        if n.start >= start:
            break
        if cs <= n.start and named < n.end <= start:
            named = n.end
    words = ctx.words
    last = None
    i, count = 0, len(words)
    while i < count:
        w = words[i]
        if w.start >= start:
            break
        if cs <= w.start and w.end <= start and (w.start >= named or w.field != F.CHANGE):
            last = w
        i += 1
    if last is not None:
        return last, last.text  # the nearest word before the value
    while i < count and words[i].start < m.end:
        i += 1
    if i < count and words[i].end <= ce:  # the first word after it, in its clause
        w = words[i]
        if w.start - m.end <= 3 and not _SEPARATED.search(ctx.text, m.end, w.start) and \
                w.text.lower() not in F.FALL_SET \
                and w.text.lower() not in F.RISE_SET and w.field != F.OTHER \
                and not (_OPENS.search(ctx.text, m.end, w.start)
                         and _LABELS_NEXT.match(ctx.text, w.end)):
            return w, w.text  # "112.91 (open)", not "1.3433 (bid 1.3432 / ask 1.3434)"
    if unit is not None and unit.cell:
        for span, where in ((unit.header, "header"), (unit.label, "row")):
            if span is None:
                continue
            inside = [w for w in ctx.words if span[0] <= w.start < span[1]
                      and w.field not in (F.OTHER,)]
            if inside:
                return inside[-1], f"{where} «{ctx.text[span[0]:span[1]].strip()}»"
    return None, ""


# a word in brackets followed by its own number labels that number: "1.3433 (bid 1.3432 …)"
_OPENS = re.compile(r"[(（\[]")
_LABELS_NEXT = lazy(r"(?:[ \t]*/[ \t]*[a-z\u4e00-\u9fff]+)*[ \t]*[:：=]?[ \t]*[-+−]?[$¥€£]?\d",
                          re.IGNORECASE)
# a separator between a value and the word after it: "$439.90 · mkt cap" is no market cap
_SEPARATED = re.compile(r"[·•|;；/]")


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


def _instrument(ctx: _Ctx, unit: Unit | None, m: Mention, cs: int, ce: int
                ) -> tuple[str, str]:
    """What the value speaks of: a name in its own clause before it; in a table, what its row
    and column name; else a name the reader cannot place at the start of its clause; else a
    name earlier in its statement or right after it; else the statement's inherited subject."""
    lo = unit.start if unit else 0
    inherited = unit.inherited if unit else None
    own = _first_name(ctx.names, cs, m.start, last=True)
    if own is None and unit is not None and unit.cell:
        # a cell speaks of what its row and its column name; another instrument in either
        # makes it another's ("| 10Y | 1.76% | 4.01% |" under "| 期限 | 中国国债 | 美国国债 |")
        around = [n for span in (unit.row, unit.header) if span is not None
                  for n in ctx.names if span[0] <= n.start < span[1] and n.mine is not None]
        other = next((n for n in around if n.mine is False), None)
        own = other or next((n for n in around if n.mine), None)
    entity = ""
    if own is None:
        entity = _unplaced(ctx, unit, cs, m.start)
        if not entity:
            own = _first_name(ctx.names, lo, cs, last=True) or _first_name(ctx.names, m.end, ce)
    if own is not None:
        if own.mine is None:  # a pronoun: the statement's subject
            subject = _first_name(ctx.names, lo, own.start)
            if subject is not None and subject.mine is not None:
                return (MINE if subject.mine else OTHER), subject.text
            return _from_subject(inherited)
        return (MINE if own.mine else OTHER), own.text
    if entity:
        # beside the item's own name in the same table, list or paragraph, an unplaced name
        # is one of the others listed ("五粮液121.07元" after "贵州茅台1455.00元")
        if unit is not None and _mine_in_group(ctx, unit):
            return OTHER, entity
        return UNSURE, entity
    return _from_subject(inherited)


def _mine_in_group(ctx: _Ctx, unit: Unit) -> bool:
    a, b = ctx.lay.groups.get(unit.group, (unit.start, unit.end))
    return any(a <= n.start < b and n.mine for n in ctx.names)


def _from_subject(subject: Subject | None) -> tuple[str, str]:
    if subject is None:
        return MINE, ""
    if subject.mine is None:
        return UNSURE, subject.text
    return (MINE if subject.mine else OTHER), subject.text


def _first_name(names: list[Name], lo: int, hi: int, last: bool = False) -> Name | None:
    found = None
    for n in names:
        if n.start >= hi:
            break
        if n.start >= lo:
            if not last:
                return n
            found = n
    return found


# (the patterns below that find an unplaced name compile on first use, `lazy`: only a value
# whose instrument no known name gives needs them)
# Fillers that are not names: what is left of a label or a clause's start once field words,
# dates and these are taken out is a name the reader cannot place (another company?).
_FILLER = F.Blanker(list((
        "今日", "今天", "昨日", "昨天", "目前", "当前", "最新", "截至", "截止", "收盘", "盘中", "数据",
        "显示", "根据", "来源", "行情", "实时", "其中", "此外", "另外", "同时", "以及", "综上", "总结",
        "备注", "说明", "小结", "核心", "关键", "指标", "数值", "项目", "名称", "品种", "代码", "合约",
        "日期", "时间", "交易", "市场", "表现", "走势", "情况", "信息", "概况", "概览", "一览", "基本",
        "主要", "相关", "参考", "对比", "比较", "分析", "解读", "点评", "汇总", "快讯", "单位", "东方财富",
        "同花顺", "新浪财经", "雅虎财经", "彭博", "路透", "万得", "财联社", "北京时间", "美东时间",
        "上午", "下午", "全天", "当日", "日内", "早盘", "午盘", "尾盘", "本周", "上周", "本月", "大约",
        "左右", "附近", "以上", "以下", "相比", "较前", "前一", "交易日", "报告", "期间", "最终",
        "整体", "全日", "开盘后", "收盘后", "盘面", "数据源", "查询", "结果", "回答", "答案", "问题",
        "您好", "你好", "以下", "如下", "根据查询", "根据最新", "官方", "公布", "发布", "披露", "确认",
        "口径", "请注意", "注意", "提示", "风险", "投资", "建议", "仅供参考", "约为", "大致", "一度",
        "延续", "继续", "维持", "小幅", "大幅", "微幅", "明显", "持续", "震荡", "波动", "区间", "保持",
        "较上", "环比", "同比", "报道", "消息", "媒体", "称", "记者", "今年", "本年", "年度", "月份",
        "人民币", "美元", "港元", "港币", "单位元", "元", "股价", "价格", "汇率", "货币对", "即期",
        "中国", "美国", "香港", "全球", "国际", "国内", "欧洲", "亚洲", "亚太", "市场上", "板块", "个股",
        "两市", "沪深两市", "三大指数", "主要指数", "大盘", "股指", "期货", "现货", "外汇", "汇市", "股市",
        "债市", "楼市", "收益", "分钟", "小时", "昨收盘", "开盘价", "收盘价", "最高价", "最低价",
        "另一", "另有", "也有", "有报道", "报道称", "数据显示", "显示", "来看", "方面", "而言", "为例",
        # self-corrections (canonical.corrections): not names
        "更正", "修正", "纠正", "订正", "不对", "等等", "等一下", "抱歉", "实际上", "实际", "应为",
        "重新核对", "重新计算", "重新检查", "核对后", "经核实", "有误", "写错", "算错", "说错",
    )))
_CJK2 = lazy(r"[\u4e00-\u9fff]{2,}")
_NAMEISH = lazy(r"[\u4e00-\u9fff]{2}|[A-Z]")
_CAPWORD = lazy(r"\b[A-Z][A-Za-z&'.-]{2,}(?:\s+[A-Z][A-Za-z&'.-]+)*")
_EN_STOP = frozenset({
    "The", "It", "Its", "Shares", "Share", "Stock", "Stocks", "Today", "On", "As", "At",
    "According", "Data", "Meanwhile", "However", "In", "Latest", "Price", "Close", "Closing",
    "Open", "Opening", "High", "Low", "Change", "Previous", "Prior", "Last", "Current", "Note",
    "Source", "Sources", "Summary", "Key", "Figures", "Quote", "Quotes", "Market", "Markets",
    "Trading", "Session", "Intraday", "After", "Before", "Pre", "Day", "Daily", "Week", "Year",
    "Volume", "Turnover", "Value", "Level", "Index", "Rate", "Yield", "Range", "Here", "This",
    "That", "These", "Those", "Based", "Per", "For", "From", "With", "And", "But", "Also", "So",
    "Overall", "Currently", "Recent", "Recently", "Metric", "Metrics", "Field", "Item", "Name",
    "Ticker", "Symbol", "Code", "Date", "Time", "Exchange", "Currency", "Unit", "Units",
    "Dollar", "Dollars", "Yuan", "Hong", "Kong", "Friday", "Monday", "Tuesday", "Wednesday",
    "Thursday", "Saturday", "Sunday", "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December", "Beijing", "Eastern",
    "Standard", "New", "York", "Wall", "Street", "US", "USD", "HKD", "CNY", "RMB", "ET", "EST",
    "EDT", "UTC", "GMT", "HKT", "CST", "Bloomberg", "Reuters", "Yahoo", "Finance", "Google",
    "Investing", "Wind", "Eastmoney", "Sina", "Nasdaq", "NYSE", "As of", "Up", "Down", "Net",
    "Percent", "Percentage", "Points", "Point", "Basis", "Spot", "Futures", "Onshore",
    "Offshore", "Central", "Parity", "Bid", "Ask", "Mid", "Benchmark", "Fix", "Morning",
    "Afternoon", "Settlement", "Real", "Realtime", "Real-time", "Delayed", "Approximately",
    "About", "Around", "Roughly", "Nearly", "Answer", "Result", "Results", "Please", "Sorry",
    "Disclaimer", "Markdown", "Table", "Snapshot", "Overview", "Performance", "Details",
})


def _unplaced(ctx: _Ctx, unit: Unit | None, lo: int, hi: int) -> str:
    """A name the reader cannot place: a row label or column header, a list item's label, or
    the subject right before a field word or the value at the start of a clause ("比亚迪股价为…",
    "Kweichow Moutai closed at …"). The statement may then speak of another instrument."""
    spans: list[tuple[int, int, bool]] = []
    if unit is not None and unit.cell:
        if unit.label is not None:
            spans.append((*unit.label, True))
        if unit.header is not None:
            spans.append((*unit.header, True))
    elif unit is not None and unit.label is not None:
        spans.append((*unit.label, True))
    spans.append((lo, hi, False))
    for a, b, whole in spans:
        for n in ctx.names:
            if a <= n.start < b:
                return ""  # a placed name is there (the caller found none before the value)
        if _NAMEISH.search(ctx.text, a, b) is None:
            continue  # no Chinese and no capital letter: nothing that could be a name
        frag = _strip(ctx, a, b)
        # the Chinese patterns need a CJK character, the English ones an ASCII capital: each
        # runs only where the fragment holds one
        ascii_only = frag.isascii()
        if whole:
            found = None if ascii_only else _CJK2.search(frag)
            if found:
                return found.group(0)
            for cap in _CAPWORD.findall(frag) if has_ascii_upper(frag) else ():
                if cap.split()[0] not in _EN_STOP:
                    return str(cap)
            continue
        found = None if ascii_only else _SUBJECT_ZH.search(frag + "\x00")
        if found:
            name = found.group(1).strip(_FUNCTION_CHARS)
            if len(name) >= 2:
                return name
        found = _SUBJECT_EN.search(frag + "\x00") if has_ascii_upper(frag) else None
        if found and found.group(1).split()[0] not in _EN_STOP and not found.group(1).isupper():
            return found.group(1)
    return ""


# Characters that start or end a phrase, never a name by themselves ("中再涨" is not a company).
_FUNCTION_CHARS = ("中再又也均都则仍还已将被把在于为是了的其较比约近超逾达至到从由向对与和及或而且并但却就"
                   "才即便更最很极太稍略微幅度一直续今昨明前后上下日月年周时分秒点个只家次全共总")


# A name right before a field word (marked \x00) or the value: the clause's subject.
_SUBJECT_ZH = lazy(r"([\u4e00-\u9fff]{2,})\s*(?:[(（][^)）]*[)）])?\s*\x00")
_SUBJECT_EN = lazy(r"\b([A-Z][A-Za-z&'.-]{2,}(?:\s+[A-Z][A-Za-z&'.-]+)*)(?:'s)?\s*"
                         r"(?:[(（][^)）]*[)）])?\s*\x00")


def _strip(ctx: _Ctx, a: int, b: int) -> str:
    """The text of [a, b) with field words marked \x00 and fillers, dates and brackets blanked."""
    chars = list(ctx.text[a:b])
    for w in ctx.words:
        if a <= w.start < b:
            for i in range(w.start, min(w.end, b)):
                chars[i - a] = "\x00" if i == w.start else " "
    for q, _ in ctx.quals:
        if a <= q < b:
            chars[q - a] = " "
    frag = "".join(chars)
    if not frag.isascii():  # the fillers are Chinese words
        frag = _FILLER.blank(frag)
    return _DAY_OR_TIME.sub(" ", frag) if F.any_in(_DAY_OR_TIME_MARKS, frag) else frag


_DAY_OR_TIME = re.compile(r"\d+\s*[年月日号]|\d+[:：]\d+")
_DAY_OR_TIME_MARKS = ("年", "月", "日", "号", ":", "：")  # one is in every match


def _misfit(ctx: _Ctx, b: Bound) -> str:
    """Why a value's kind does not fit the field it was tied to ("" when it fits)."""
    return _misfit_of(ctx, b.field, b.mention, b.value)


def _misfit_of(ctx: _Ctx, field: str, m: Mention, value: Decimal) -> str:
    if not field:
        return "no field word reaches it"
    if field in (F.OTHER, F.RANGE52, F.CONVERTED, F.DAY_RANGE):
        return f"extra information ({F.display(field, 'en')})"
    percent_level = field == F.LAST and ctx.want.percent_last
    if field in _PRICE_LIKE or field in (F.HIGH, F.LOW, F.DATED_CLOSE):
        if m.percent and not percent_level:
            return "a percent is never a price"
        if m.unit:
            return "points of change (bp / pp) are not a level"
        if m.count:
            return "a count of shares is not a price"
        if value < _ZERO:
            return "a negative number is not a price"
        if m.signed and not percent_level:  # "NVDA $181.81 ▲1.10% (+$1.98)"
            return "a number written with its sign is a change, not a price"
        if m.per and ctx.ident.per and m.per in ("g", "oz") and m.per != ctx.ident.per:
            return f"a price per {m.per}, the item's is per {ctx.ident.per}"
        if ctx.ident.currency and _currency_conflict(m.currency, ctx.ident.currency):
            return f"in {m.currency}: another listing or a conversion (the item trades in " \
                   f"{ctx.ident.currency})"
    if field == F.CHANGE_PCT and not m.percent:
        return "not a percent"
    if field == F.CHANGE and m.percent:
        return "a percent is not a change amount"
    if field in _SIZES and m.percent:
        return "a percent is not an amount"
    return ""


# GBX: pence ("1,010p"), the unit London quotes shares in
_STRONG = {"USD", "HKD", "CNY", "JPY", "EUR", "GBP", "GBX", "KRW", "SGD", "TWD", "AUD", "CAD"}


def _currency_conflict(cur: str, expected: str) -> bool:
    if not cur or cur not in _STRONG:
        return False
    if cur == "CNY" and expected == "HKD":
        return False  # "元" is written loosely for Hong Kong dollars in Chinese
    return cur != expected


def _respectively(text: str, mentions: list[Mention], words: list[_Word],
                  in_number: bytearray, clauses: list[int], low: str = "") -> dict[int, str]:
    """"开盘价、最高价、最低价分别为112.91、114.67、112.66" and "最高/最低：1488/1454": pair the
    last run of field words with a following run of as many values, in order."""
    out: dict[int, str] = {}
    slash = "/" in text
    if not slash and "分别" not in text and "依次" not in text and \
            "respectively" not in (low or text.lower()):
        return out
    bounds = [c for c in clauses if text[c] in _SCOPE_CHARS]  # _SCOPE_END's, outside numbers
    spots = [r.start() for r in _RESPECTIVELY.finditer(text)]
    if slash:
        # a slash pairs only between field words ("最高/最低", "买价 / 卖价"); one inside a
        # unit ("元/克", "美元/盎司") pairs nothing
        ends = {w.end for w in words}
        starts = {w.start for w in words}
        for k, ch in enumerate(text):
            if ch == "/" and not in_number[k]:
                before, after = k, k + 1
                while before > 0 and text[before - 1] == " ":
                    before -= 1
                while after < len(text) and text[after] == " ":
                    after += 1
                if before in ends or after in starts:
                    spots.append(k)
    done: set[tuple[int, int]] = set()
    for spot in spots:
        ss, se = _segment(spot, bounds, 0, len(text))
        if (ss, se) in done:
            continue
        done.add((ss, se))
        tokens: list[tuple[int, object]] = [(m.start, (k, m)) for k, m in enumerate(mentions)
                                            if ss <= m.start < se and m.range_with < 0]
        tokens += [(w.start, w) for w in words if ss <= w.start < se and _pairable(w)]
        tokens.sort(key=lambda t: t[0])
        runs: list[tuple[list[_Word], list[tuple[int, Mention]]]] = []
        for _, tok in tokens:
            if isinstance(tok, _Word):
                if not runs or runs[-1][1]:
                    runs.append(([], []))
                runs[-1][0].append(tok)
            elif runs:
                runs[-1][1].append(tok)  # type: ignore[arg-type]
        for ws, ms in reversed(runs):
            if len(ws) >= 2 and len(ws) == len(ms) and len({w.field for w in ws}) == len(ws):
                gap_ok = all(text[a.end:b.start].strip() in ("、", ",", "，", "/", "和", "and",
                                                             "及", "与", "", "&")
                             for a, b in itertools.pairwise(ws))
                if not gap_ok:
                    continue
                for w, (k, m) in zip(ws, ms, strict=True):
                    out[k] = _resolve(w, m)
                break
    return out


def _pairable(word: _Word) -> bool:
    t = word.text.lower()
    return (word.field not in (F.OTHER, "") and t not in F.FALL_SET and t not in F.RISE_SET
            and t not in ("to", "至"))


_BETWEEN = re.compile(r"(?:between|区间|range|ranged|介于)\W{0,3}$", re.IGNORECASE)


def _ranges(ctx: _Ctx, mentions: list[Mention], out: list[Bound]) -> list[Bound]:
    """The two ends of a range: a day's range gives the low and the high; a 52-week range is
    extra; a range given for one quantity is two candidate values (a doubt)."""
    for k, m in enumerate(mentions):
        j = m.range_with
        if j <= k:
            continue
        first, second = out[k], out[j]
        field = first.field
        if (not field or first.via == "fallback") and _BETWEEN.search(
                ctx.text, max(0, m.start - 14), m.start):
            field = F.DAY_RANGE  # "it traded between $508.13 and $516.85"
        if field in (F.DAY_RANGE, F.HIGH, F.LOW) and first.instrument == MINE:
            lo_b = replace(first, field=F.LOW, why="", doubt=False, via=first.via + " (range low)")
            hi_b = replace(second, field=F.HIGH, why="", doubt=False,
                           via=first.via + " (range high)", instrument=first.instrument,
                           about=first.about)
            out[k] = replace(lo_b, why=_misfit(ctx, lo_b))
            out[j] = replace(hi_b, why=_misfit(ctx, hi_b))
            continue
        if not field or first.why:
            out[j] = replace(second, field=field, why=first.why or "one end of a range",
                             instrument=first.instrument, about=first.about)
            continue
        for i, b in ((k, first), (j, second)):
            out[i] = replace(b, field=field, doubt=True, instrument=first.instrument,
                             about=first.about, why="one end of a range given for the point")
    return out


def with_days(answer: str, bound: list[Bound]) -> list[Bound]:
    """Give each value its date: the date in its own clause ("7.12（10月15日）"), else the last
    one before it in its sentence, else the first after; and flag values said to be earlier.

    Separate from `read` because only a field with several values needs it."""
    text = normalise(answer)
    in_number = bytearray(len(text))
    for b in bound:
        if b.mention.start >= 0:
            in_number[b.mention.start:b.mention.end] = b"\x01" * (b.mention.end - b.mention.start)
    # each search runs only where a word it needs is in the answer (in its lower case, which
    # holds them where the IGNORECASE search finds them: `words.lowers_plainly`)
    low = text.lower()
    plain = F.lowers_plainly(text)
    dates = find_dates(text) if not plain or "19" in text or "20" in text or "月" in text \
        or F.any_in(_MONTH_HINTS, low) else []
    markers = [m.start() for m in _EARLIER.finditer(text)] \
        if not plain or F.any_in(_EARLIER_HINTS, low) else []
    day_words = [m.start() for m in _EARLIER_CLAUSE.finditer(text)] \
        if not plain or F.any_in(_EARLIER_CLAUSE_HINTS, low) else []
    if not dates and not markers and not day_words and "|" not in text and ":" not in text:
        return bound
    clauses = _ends(_CLAUSE_END, text, in_number)
    sentences = [c for c in clauses if text[c] in _SCOPE_CHARS]  # _SCOPE_END's
    out = []
    for b in bound:
        start, end = b.mention.start, b.mention.end
        if start < 0:
            out.append(b)
            continue
        cs, ce = _segment(start, clauses, 0, len(text))
        ss, se = _segment(start, sentences, 0, len(text))
        day = None
        for lo, hi in ((cs, ce), (ss, se)):
            near = [(start - pos, d) for pos, d in dates if lo <= pos < start] + \
                   [(pos - end, d) for pos, d in dates if end <= pos < hi]
            if near:
                day = min(near, key=lambda x: x[0])[1]  # the nearest date speaks of it
                break
        if day is None:
            day = _row_day(text, start, dates)
        earlier = any(ss <= pos < start for pos in markers) or \
            any(cs <= pos < ce for pos in day_words)
        out.append(replace(b, day=day, earlier=earlier) if day or earlier else b)
    if ":" in text:
        out = _earlier_minutes(text, out)
    return out


_TIME_CELL = re.compile(r"\s*(\d{1,2}):(\d{2})(?::(\d{2}))?\s*")


def _earlier_minutes(text: str, bound: list[Bound]) -> list[Bound]:
    """A table whose rows are times of the day ("| 10:31 | 980.10 |", "| 10:33 | 981.02 |"), or
    values each written after its time ("10:31 980.10 → 10:33 981.02"): the values before the
    latest time are earlier values of the same day, as earlier days' are (the judge: earlier
    values are not penalised)."""
    times: list[tuple[int, int, int] | None] = []
    for b in bound:
        start = b.mention.start
        times.append(None if start < 0 else
                     _row_time(text, start) or _time_before(text, start))
    known = [t for t in times if t is not None]
    if len(set(known)) < 2:
        return bound
    latest = max(known)
    return [replace(b, earlier=True) if t is not None and t < latest else b
            for b, t in zip(bound, times, strict=True)]


_TIME_BEFORE = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?\s{0,2}$")


def _time_before(text: str, pos: int) -> tuple[int, int, int] | None:
    """A time of day written right before a value, in prose ("10:31 980.10 → 10:33 981.02")."""
    m = _TIME_BEFORE.search(text, max(0, pos - 12), pos)
    if m is None or int(m.group(1)) > 23:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def _row_time(text: str, pos: int) -> tuple[int, int, int] | None:
    """The time of day in a table row's first cell, if it holds one."""
    ls = text.rfind("\n", 0, pos) + 1
    le = text.find("\n", pos)
    row = text[ls:len(text) if le < 0 else le].strip()
    if "|" not in row:
        return None
    m = _TIME_CELL.fullmatch(row.strip("|").split("|")[0])
    if m is None or int(m.group(1)) > 23:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def _row_day(text: str, pos: int, dates: list[tuple[int, Day]]) -> Day | None:
    """A table cell's date: the one in its row (the row label, usually)."""
    ls = text.rfind("\n", 0, pos) + 1
    le = text.find("\n", pos)
    le = len(text) if le < 0 else le
    if "|" not in text[ls:le]:
        return None
    row = [d for p, d in dates if ls <= p < le]
    if row:
        return row[0]
    first = text[ls:le].strip().strip("|").split("|")[0]
    m = _DATE_CELL.fullmatch(first)
    if m is None:
        return None
    parts = [int(x) for x in re.findall(r"\d+", first)]
    return (parts[0], parts[1], parts[2]) if len(parts) == 3 else (0, parts[0], parts[1])

