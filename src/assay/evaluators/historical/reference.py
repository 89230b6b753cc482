"""Reading a T2/T3 reference answer: its key points and its grading note.

    62.57亿元，答案允许四舍五入的误差
    答案在24198亿美元到24200亿美元即可，答案允许四舍五入的误差。
    年涨跌幅最高：科创50 16.07%；年波动率最高：科创50 70.62%；评分要点：学生答案数字允许0.01%的误差
    1月：0.90911，2月：0.90836，…，12月：0.92474. 评分要点：学生答案要和标准答案一致，允许有0.0001的误差
    "上海" 。评分要点：学生答案必须和标准答案严格一致
    Tesla\nWeekly trading value: 172.67 billion USD\nWeekly turnover rate: 15.67%\nRounding …

The text is cut into clauses; clauses that speak about grading (允许, 误差, 即可, 严格一致,
rounding, allowed, exactly …) form the note, the others hold key points: numbers with their
unit (each with the label before it), names, and ranges. A clause that is neither a number, a
range nor a short name (prose such as "和昆明最接近") is kept as `unread`: the reader cannot
confirm such a point, so it can reject an answer but never accept one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from .keys import PROVINCES, key_kind, label_key, name_key
from .quantities import Mention, Quantity, normalise, read_mentions

ROUNDING = "rounding"  # 答案允许四舍五入的误差 / rounding errors are allowed
ABSOLUTE = "absolute"  # 允许0.0001的误差 / error of ±x
PERCENT = "percent"  # 允许0.01%的误差: percentage points on a % quantity, relative otherwise
STRICT = "strict"  # 必须和标准答案严格一致 / must be exactly the same
EQUAL = "equal"  # no tolerance stated (or 要和标准答案一致): the value at the reference's precision


class ReferenceError(ValueError):
    """The reference or its note cannot be read with confidence; the message quotes it."""


@dataclass(frozen=True, slots=True)
class Note:
    """The grading note, as the reader understood it, with the words it was read from."""

    kind: str  # ROUNDING | ABSOLUTE | PERCENT | STRICT | EQUAL
    text: str
    amount: Quantity | None = None  # the ± amount of ABSOLUTE / PERCENT
    rounding: bool = False  # rounding is also allowed (a range "…即可，答案允许四舍五入的误差")
    exclusive: bool = False  # "不能出现其他…" / "and no other": extra names are wrong

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"kind": self.kind, "text": self.text}
        if self.amount is not None:
            out["amount"] = format(self.amount.value, "f") + ("%" if self.kind == PERCENT
                                                               else "")
        if self.rounding:
            out["rounding"] = True
        if self.exclusive:
            out["exclusive"] = True
        return out


@dataclass(frozen=True, slots=True)
class KeyPoint:
    """One thing the answer must state."""

    id: str
    kind: str  # "number" | "range" | "name"
    text: str  # as the reference writes it
    label: str = ""  # the words it is attached to ("1月", "Weekly turnover rate")
    qty: Quantity | None = None  # number: the value; range: the low end
    high: Quantity | None = None  # range: the high end
    approx: bool = False  # "约740平方公里"
    name: str = ""  # name: as written

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"id": self.id, "kind": self.kind, "text": self.text}
        if self.label:
            out["label"] = self.label
        if self.qty is not None:
            out["value"] = format(self.qty.value, "f")
            out["unit"] = self.qty.describe()
        if self.high is not None:
            out["high"] = format(self.high.value, "f")
        if self.approx:
            out["approx"] = True
        return out


@dataclass(frozen=True, slots=True)
class Reference:
    points: tuple[KeyPoint, ...]
    note: Note
    unread: tuple[str, ...] = ()  # content clauses that are not a number, range or name
    keyed: str | None = None  # "month" | "quarter" | "year" | "name": a keyed list
    keys: dict[str, str] = field(default_factory=dict)  # point id → its key

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"key_points": [p.as_dict() for p in self.points],
                                  "note": self.note.as_dict()}
        if self.unread:
            out["unread"] = list(self.unread)
        if self.keyed:
            out["keyed_by"] = self.keyed
        return out


# --------------------------------------------------------------------------- the note
_NOTE_HEAD = re.compile(r"(?:评分要点|评分标准|评分说明|判分标准|注意|备注|scoring\s+criteria|scoring\s+"
                        r"points?|grading\s+(?:criteria|notes?)|marking\s+scheme|note)\s*[:：]?",
                        re.IGNORECASE)
_NOTE_WORDS = re.compile(
    r"允许|误差|即可|均可|都可|都算|算对|视为正确|严格|一致|四舍五入|不能出现|不得出现|必须|需要|应当|"
    r"round(?:ing|ed)?\b|allow|accept|error|toleran|strict|exact|identical|must|correct|"
    r"should|deviat|consider(?:ed)?\b|margin|may\s+differ|off\s+by", re.IGNORECASE)
_STRICT = re.compile(r"严格一致|严格相同|完全一致|完全相同|一字不差|严格相符|strictly\s+(?:identical|"
                     r"the\s+same|consistent|match)|exact(?:ly)?\s+(?:match|the\s+same|identical)|"
                     r"match(?:es)?\s+(?:the\s+reference(?:\s+answer)?\s+)?exactly|"
                     r"must\s+be\s+identical|exact\s+match", re.IGNORECASE)
_ROUNDING = re.compile(r"四舍五入|rounding|rounded", re.IGNORECASE)
_EXCLUSIVE = re.compile(r"不能(?:出现|有|包含|列出)(?:其他|其它|额外)|不得(?:出现|有|包含)(?:其他|其它)|"
                        r"不能多|no\s+other|not\s+(?:include|list|name)\s+(?:any\s+)?other|"
                        r"nothing\s+else|no\s+extra", re.IGNORECASE)
_AMOUNT = re.compile(
    r"(?:允许|容许|可有|可以有|容忍)[^。；;]{0,12}?(?P<a>(?:±|正负|\+/-|\+-)?\s*[-+]?\d[\d.,]*\s*"
    r"(?:%|个百分点|bp|基点|万亿|亿|万|千|百万)?[^\d。；;,，]{0,6}?)(?:的|之内|以内)?(?:误差|偏差|浮动)"
    r"|(?:误差|偏差)(?:范围)?(?:在|为|不超过|不大于|小于|须在|应在|需在)?\s*(?P<b>(?:±|正负|\+/-)?\s*"
    r"\d[\d.,]*\s*(?:%|个百分点|bp|基点|万亿|亿|万|千|百万)?\S{0,6}?)(?:以内|之内|内|范围内)?"
    r"|(?:error|tolerance|deviation|deviate|differ|margin)s?(?:\s+(?:of|by|within|up\s+to|"
    r"not\s+exceeding|"
    r"no\s+more\s+than|is|are|allowed|allowable|range|must\s+be|should\s+be|of\s+up\s+to))*"
    r"\s*(?:is\s+)?(?P<c>(?:±|\+/-|plus\s+or\s+minus\s+)?\s*\d[\d.,]*\s*(?:%|percentage\s+"
    r"points?|pp|bps?|basis\s+points?|percent|billion|million|thousand)?)"
    r"|within\s+(?P<d>(?:±|\+/-|plus\s+or\s+minus\s+)?\s*\d[\d.,]*\s*(?:%|percentage\s+points?|"
    r"pp|bps?|basis\s+points?|percent|billion|million|thousand)?)"
    r"|(?P<e>±\s*\d[\d.,]*\s*(?:%|个百分点|bp|基点)?)",
    re.IGNORECASE)
_CONSISTENT = re.compile(r"(?:要|需要|须|必须|应)?(?:和|与)标准答案(?:的?数字)?(?:保持)?一致|"
                         r"(?:consistent|agree|match)\s+with\s+the\s+reference", re.IGNORECASE)


def parse_note(text: str) -> Note:
    """The tolerance the note states. Raises ReferenceError for a note that speaks about
    grading in words the reader does not know (guessing would silently change scores)."""
    t = text.strip()
    exclusive = bool(_EXCLUSIVE.search(t))
    amounts = [m for m in _AMOUNT.finditer(t)]
    for m in amounts:
        raw = next(g for g in m.groups() if g)
        raw = raw.replace("正负", "").replace("plus or minus", "").replace("+/-", "")
        raw = raw.replace("+-", "").replace("±", "")
        found = read_mentions(normalise(raw))
        if not found:
            continue
        q = found[0].q
        amount = Quantity(abs(q.value), q.quantum, q.dim, q.currency, q.scale, q.scale_word,
                          q.unit_word)
        kind = PERCENT if q.dim == "percent" and found[0].text.rstrip().endswith(
            ("%", "percent", "per cent", "pct")) else ABSOLUTE
        if q.dim == "percent" and kind != PERCENT:  # 个百分点 / bp: always points
            kind = ABSOLUTE
        return Note(kind, t, amount, rounding=bool(_ROUNDING.search(t)), exclusive=exclusive)
    if _STRICT.search(t):
        return Note(STRICT, t, exclusive=exclusive)
    if _ROUNDING.search(t):
        return Note(ROUNDING, t, rounding=True, exclusive=exclusive)
    rest = _EXCLUSIVE.sub("", _CONSISTENT.sub("", t))
    rest = re.sub(r"即可|均可|都可|都算对|视为正确|答案|学生|标准|must|list|all|the|student'?s?|"
                  r"answers?|reference|should|include|provinces?|省份?|城市|所有|全部|答出|同时|并且|"
                  r"[\s，。,.;；:：、!！\"'“”]|评分要点|scoring\s+criteria", "", rest,
                  flags=re.IGNORECASE)
    if exclusive or _CONSISTENT.search(t) or not rest:
        return Note(EQUAL, t, exclusive=exclusive)
    if not t:
        return Note(EQUAL, "")
    raise ReferenceError(f"grading note not understood: «{t}»")


# ---------------------------------------------------------------------- the key points
_RANGE = re.compile(
    r"(?:答案)?(?:在|介于|位于)?\s*(?P<lo>[-+]?[$¥]?\d[\d,]*(?:\.\d+)?\s*[^\d\s到至~～\-–]{0,8}?)\s*"
    r"(?:到|至|~|～|—|-|–)\s*(?P<hi>[-+]?[$¥]?\d[\d,]*(?:\.\d+)?\s*[^\d\s，。,;；]{0,8}?)\s*"
    r"(?:之间|范围内|区间内|以内)?\s*(?:的?(?:答案|数值|数字))?\s*(?:即可|均可|都可|都算对|都正确|均正确|"
    r"视为正确|算对)"
    r"|(?:between|from)\s+(?P<lo2>[-+]?[$¥]?\d[\d,]*(?:\.\d+)?\s*[a-z%$]{0,12})\s+(?:and|to)\s+"
    r"(?P<hi2>[-+]?[$¥]?\d[\d,]*(?:\.\d+)?\s*[a-z%$ ]{0,20}?)(?=\s*(?:\(|,|\.|;|$|is|are|will|"
    r"inclusive|counts?|acceptable|correct))"
    r"(?:\s*\(?inclusive\)?)?(?:\s*(?:is|are|will\s+be|all)?\s*(?:considered\s+)?(?:acceptable|"
    r"correct|fine|ok|count(?:s|ed)?\s+as\s+correct))?",
    re.IGNORECASE)
_QUOTES = "\"'“”‘’「」『』"
_FILLER_HEAD = re.compile(r"^(?:答案(?:是|为)?|标准答案(?:是|为)?|the\s+answer\s+is|answer\s*[:：]?|"
                          r"是|为)\s*[:：]?\s*", re.IGNORECASE)
_PROSE = re.compile(r"最|相差|之间|大于|小于|高于|低于|约|没有|不是|是|为|在|接近|"
                    r"\b(?:is|was|are|were|than|closest|between|with|has|had|about|"
                    r"approximately|if|answer)\b", re.IGNORECASE)
_FILLER_CLAUSE = re.compile(r"^(?:(?:any|the)\s+(?:answer|value)(?:\s+(?:is|are))?(?:\s+correct)?"
                            r"(?:\s+if\s+it\s+is)?|答案|标准答案)$", re.IGNORECASE)
_LIST_SEP = re.compile(r"、|,\s*|，|;|；|\band\b|和|及")
_CLAUSE_SPLIT = re.compile(r"\n+|；|;|。|\.(?=\s|$)|，|,\s+")
_LABEL_SPLIT = re.compile(r"^(?P<label>[^:：\n]{1,40}?)\s*[:：]\s*(?P<value>.+)$", re.DOTALL)
_QUESTION_DECIMALS = re.compile(
    r"保留(?:到)?(?:小数点后)?\s*(?P<zh>\d|[一二两三四五六])\s*位(?:小数)?|"
    r"(?:精确|精确到|保留到)小数点后\s*(?P<zh2>\d|[一二两三四五六])\s*位|"
    r"(?:(?:to|with)\s+)?(?<![\w.])(?P<en>\d|one|two|three|four|five|six)\s+decimal"
    r"(?:\s+places?|s)|"
    r"(?P<int>保留整数|取整|精确到(?:个位|整数)|nearest\s+(?:integer|whole\s+number)|"
    r"rounded\s+to\s+(?:an?\s+)?integer)|xx\.(?P<xx>x+)",
    re.IGNORECASE)
_WORD_NUM = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "一": 1, "二": 2,
             "两": 2, "三": 3, "四": 4, "五": 5, "六": 6}


@lru_cache(maxsize=1024)
def question_decimals(question: str) -> int | None:
    """The decimals the question asks for ("保留2位小数", "to two decimal places", "xx.xx%")."""
    m = _QUESTION_DECIMALS.search(normalise(question))
    if not m:
        return None
    if m.group("int"):
        return 0
    if m.group("xx"):
        return len(m.group("xx"))
    raw = m.group("zh") or m.group("zh2") or m.group("en") or ""
    return int(raw) if raw.isdigit() else _WORD_NUM.get(raw.lower())


_Q_UNIT = re.compile(
    r"(?:多少|几|单位\s*[:：为是]?\s*|以)(?P<zh>万亿|千亿|百亿|亿|千万|百万|万|千)?(?P<cur>美元|港元|港币|"
    r"欧元|日元|英镑|人民币|元)"
    r"|in\s+(?P<en>trillions?|billions?|millions?|thousands?)\s+(?:of\s+)?(?P<cur2>us\s+dollars|"
    r"dollars|usd|yuan|rmb|cny|hkd|euros?)"
    r"|in\s+(?P<en2>trillion|billion|million|thousand)\s+(?P<cur3>us\s+dollars|dollars|usd|"
    r"yuan|rmb|cny|hkd|euros?)"
    r"|in\s+(?P<cur4>usd|us\s+dollars|dollars|yuan|rmb|cny)\s+(?P<en4>trillions?|billions?|"
    r"millions?|thousands?)",
    re.IGNORECASE)


def question_unit(question: str) -> Quantity | None:
    """The unit a question asks its answer in ("多少亿元", "in million dollars"): a reference
    number written bare takes it."""
    m = _Q_UNIT.search(normalise(question))
    if not m:
        return None
    scale_word = (m.group("zh") or m.group("en") or m.group("en2") or m.group("en4") or "")
    cur_word = m.group("cur") or m.group("cur2") or m.group("cur3") or m.group("cur4") or ""
    probe = read_mentions(f"1{scale_word.rstrip('s') if scale_word.isascii() else scale_word}"
                          f"{' ' if scale_word.isascii() and scale_word else ''}{cur_word}")
    return probe[0].q if probe else None


def _strip_quotes(text: str) -> str:
    """Quotes around the whole text ("\"$1408 million, rounding errors are allowed.\"")."""
    t = text.strip()
    while len(t) >= 2 and t[0] in _QUOTES and t[-1] in _QUOTES:
        t = t[1:-1].strip()
    return t


_BULLET = re.compile(r"^\s*(?:[*#>•]+|-(?=\s)|\d{1,2}[.、)）](?!\d))\s*")


def _note_split(text: str) -> tuple[str, list[str]]:
    """(content, note clauses): everything from a note heading on is note."""
    notes: list[str] = []
    m = _NOTE_HEAD.search(text)
    if (m and m.start() > 0) or (m and m.start() == 0 and len(text) > m.end()):
        if m.start() == 0:
            return "", [text[m.end():]]
        notes.append(text[m.end():])
        text = text[: m.start()]
    return text, notes


def _clean_name(text: str) -> str:
    t = _BULLET.sub("", text).strip().strip("*_`")
    t = t.strip(_QUOTES + " ")
    t = _FILLER_HEAD.sub("", t)
    return t.strip().strip(_QUOTES + "。.，,;；:： ")


def name_like(text: str) -> bool:
    raw = text.strip()
    if len(raw) >= 2 and raw[0] in _QUOTES and raw[-1] in _QUOTES and len(raw) <= 42:
        return True  # "上海", "美的集团": quoted, whatever the words
    t = _clean_name(text)
    if not t or len(t) > 80:
        return False
    if re.search(r"[\u4e00-\u9fff]", t):
        if len(re.sub(r"[^\u4e00-\u9fff]", "", t)) > 12:
            return False
    elif len(t.split()) > 6:
        return False
    return not _PROSE.search(t)


def _with_question_unit(q: Quantity, unit: Quantity | None) -> Quantity:
    """A bare reference number takes the unit the question asks in."""
    if unit is None or q.dim != "bare" or q.scaled:
        return q
    return Quantity(q.value * unit.scale, q.quantum * unit.scale, unit.dim, unit.currency,
                    unit.scale, unit.scale_word, unit.unit_word)


def _signed(m: Mention) -> Quantity:
    """A reference magnitude under a fall word ("跌幅16.97%") is a negative value."""
    q = m.q
    if m.direction < 0 and q.value > 0:
        return Quantity(-q.value, q.quantum, q.dim, q.currency, q.scale, q.scale_word,
                        q.unit_word, q.per)
    return q


def parse_reference(reference: str, question: str = "") -> Reference:
    """Key points and note of a T2/T3 `response_reference`. Raises ReferenceError when the
    text gives nothing to check or a note the reader cannot map."""
    text = normalise(_strip_quotes(str(reference or "")))
    if not text.strip():
        raise ReferenceError("the reference answer is empty")
    content, notes = _note_split(text)
    qunit = question_unit(question)
    points: list[KeyPoint] = []
    unread: list[str] = []
    range_seen = False

    def add(kind: str, txt: str, **kw: object) -> None:
        points.append(KeyPoint(f"p{len(points) + 1}", kind, txt, **kw))  # type: ignore[arg-type]

    # a range is a key point and a note at once: read it first, then drop it from the text
    for m in _RANGE.finditer(content):
        lo_txt = m.group("lo") or m.group("lo2")
        hi_txt = m.group("hi") or m.group("hi2")
        lo = read_mentions(lo_txt)
        hi = read_mentions(hi_txt)
        if len(lo) != 1 or len(hi) != 1:
            continue
        lq, hq = lo[0].q, hi[0].q
        if lq.dim == "bare" and not lq.scaled and hq.scale != 1:  # "24198到24200亿美元"
            lq = Quantity(lq.value * hq.scale, lq.quantum * hq.scale, hq.dim, hq.currency,
                          hq.scale, hq.scale_word, hq.unit_word)
        lq, hq = _with_question_unit(lq, qunit), _with_question_unit(hq, qunit)
        if lq.value > hq.value:
            lq, hq = hq, lq
        add("range", m.group(0).strip(), qty=lq, high=hq)
        range_seen = True
        content = content[: m.start()] + " " * (m.end() - m.start()) + content[m.end():]
    for raw in _CLAUSE_SPLIT.split(content):
        clause = _BULLET.sub("", raw).strip().strip("*_`").strip()
        if not clause or not re.search(r"\w", clause):
            continue
        if _FILLER_CLAUSE.match(clause):
            continue
        if _NOTE_WORDS.search(clause) and not _has_value(clause):
            notes.append(clause)
            continue
        if _NOTE_WORDS.search(clause) and re.search(r"允许|误差|即可|严格|round|allow|error|"
                                                    r"toleran|exact|deviat|differ", clause,
                                                    re.IGNORECASE):
            notes.append(clause)  # "允许0.0001的误差" carries a number but is a note
            continue
        label = ""
        value = clause
        lm = _LABEL_SPLIT.match(clause)
        if lm and not re.search(r"\d\s*$", lm.group("label")):
            label, value = lm.group("label").strip(), lm.group("value").strip()
        found = read_mentions(value)
        if not found:
            if label and name_like(value):
                add("name", value, label=label, name=_clean_name(value))
            elif not label and all(name_like(part) for part in _LIST_SEP.split(clause)
                                   if part.strip()):
                for part in _LIST_SEP.split(clause):
                    if _clean_name(part):
                        add("name", part.strip(), name=_clean_name(part))
            else:
                unread.append(clause)
            continue
        cursor = 0
        residual: list[str] = []
        kept: list[Mention] = []
        for mt in found:
            before = value[cursor:mt.start]
            residual.append(before)
            cursor = mt.end
            q = _with_question_unit(_signed(mt), qunit)
            if kept and _restates(kept[-1], mt, before):
                continue  # "25个基点（0.25个百分点）": one key point said twice
            kept.append(mt)
            own_label = label or _clean_label(before)
            add("number", mt.text, label=own_label, qty=q, approx=mt.approx)
        residual.append(value[cursor:])
        rest = _clean_name(" ".join(r for r in residual if r.strip()))
        rest = re.sub(r"^(?:约|为|是|达|共|approximately|about)\s*", "", rest)
        if label and rest and name_like(rest) and not _is_label_text(rest):
            add("name", rest, label=label, name=rest)
    note_text = "；".join(n.strip() for n in notes if n.strip())
    note = parse_note(note_text)
    if range_seen and note.kind not in (ROUNDING, EQUAL, STRICT):
        raise ReferenceError(f"a range with a further tolerance: «{note_text}»")
    if not points:
        raise ReferenceError(f"no key point could be read from «{reference}»")
    points = _dedupe(points)
    keyed, keys = _keyed(points)
    return Reference(tuple(points), note, tuple(unread), keyed, keys)


def _restates(first: Mention, second: Mention, between: str) -> bool:
    """The second value, in brackets right after the first, is the same value in another
    unit (25个基点（0.25个百分点）, 50 basis points (0.50 percentage points))."""
    return (between.strip() in ("(", "（", "/", "即", "i.e.", "=", "or")
            and first.q.dim == second.q.dim and first.q.value == second.q.value)


def _has_value(clause: str) -> bool:
    return bool(read_mentions(clause))


_LABEL_FILLER = re.compile(r"(?:为|是|达|达到|约为|约|共|共计|合计|is|was|of|about|approximately|"
                           r"[:：=])\s*$", re.IGNORECASE)


def _clean_label(before: str) -> str:
    t = before.strip().strip("*_`#>-• \t，,")
    for _ in range(3):
        t = _LABEL_FILLER.sub("", t).strip()
    return t


def _is_label_text(text: str) -> bool:
    return bool(re.fullmatch(r"[\s\W_]*", text))


def _dedupe(points: list[KeyPoint]) -> list[KeyPoint]:
    """The same name under two labels ("科创50" in both lines of b027) is one key point."""
    out: list[KeyPoint] = []
    seen: set[str] = set()
    for p in points:
        if p.kind == "name":
            k = name_key(p.name)
            if k in seen:
                continue
            seen.add(k)
        out.append(p)
    return [KeyPoint(f"p{i + 1}", p.kind, p.text, p.label, p.qty, p.high, p.approx, p.name)
            for i, p in enumerate(out)]


def _keyed(points: list[KeyPoint]) -> tuple[str | None, dict[str, str]]:
    """A list keyed by month / quarter / year: two or more numbers whose labels name distinct
    keys. Such points are bound to answer values by key, never by value. (Lists keyed by
    name are bound through their labels in `binding.bind_number`.)"""
    nums = [p for p in points if p.kind == "number" and p.label]
    if len(nums) < 2:
        return None, {}
    kind = key_kind([p.label for p in nums])
    if kind is None:
        return None, {}
    keys = {p.id: label_key(p.label, kind) or "" for p in nums}
    return kind, keys


def provinces_in(text: str) -> set[str]:
    """Province names in `text`, for lists that must name no other province."""
    return {p for p in PROVINCES if p in text}
