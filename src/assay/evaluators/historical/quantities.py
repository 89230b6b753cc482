"""Reading quantities (number, scale, currency, unit, percent) from a reference or an answer.

A T2/T3 key point is a number with its unit ("62.57亿元", "$1408 million", "15.67%", "188864.0
TJ"), and the rules compare *values*: 1.2万亿 = 12000亿, 12.45% = 0.1245, a missing unit is
accepted, a wrong unit or scale is wrong. So every number is read with what stands next to it:
the scale word multiplies the value (and the place of its last digit, its quantum), the
currency and unit say what it measures, and a direction word ("下跌", "fell") gives the sign a
bare magnitude leaves out.

Digit runs that are not values — dates, years, times, tickers, index names ("沪深300"), list
markers, citations ("[3]", "Step 2") — are skipped by looking at what is right next to them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from decimal import Decimal

from assay.core.casing import word_key

# Full-width digits, signs and letters to ASCII, one character for one so spans stay valid.
# The full-width comma stays: in Chinese it separates clauses, never thousands.
_FULLWIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F) if c != 0xFF0C}
# U+2212 (minus) and U+2013 (en dash) are written for minus; the em dash is punctuation
_FULLWIDTH.update({0x2212: ord("-"), 0x2013: ord("-"), 0x3000: ord(" "),
                   0x00A0: ord(" "), 0xFFE5: ord("¥")})


def normalise(text: str) -> str:
    """Full-width to ASCII, length preserved (spans found in the result index the original)."""
    return text.translate(_FULLWIDTH)


# ---------------------------------------------------------------------------------- units
SCALES: dict[str, Decimal] = {
    "万亿": Decimal(10) ** 12, "千亿": Decimal(10) ** 11, "百亿": Decimal(10) ** 10,
    "十亿": Decimal(10) ** 9, "亿": Decimal(10) ** 8, "千万": Decimal(10) ** 7,
    "百万": Decimal(10) ** 6, "十万": Decimal(10) ** 5, "万": Decimal(10) ** 4,
    "千": Decimal(10) ** 3,
    "trillion": Decimal(10) ** 12, "tn": Decimal(10) ** 12, "trn": Decimal(10) ** 12,
    "billion": Decimal(10) ** 9, "bn": Decimal(10) ** 9, "bln": Decimal(10) ** 9,
    "b": Decimal(10) ** 9, "million": Decimal(10) ** 6, "mn": Decimal(10) ** 6,
    "mln": Decimal(10) ** 6, "mm": Decimal(10) ** 6, "m": Decimal(10) ** 6,
    "thousand": Decimal(10) ** 3, "k": Decimal(10) ** 3,
}
# currency words after a number, longest first; "元" alone is the renminbi
_CURRENCY_AFTER: list[tuple[str, str]] = [
    ("人民币元", "CNY"), ("美元", "USD"), ("美金", "USD"), ("港元", "HKD"), ("港币", "HKD"),
    ("欧元", "EUR"), ("日元", "JPY"), ("英镑", "GBP"), ("韩元", "KRW"), ("澳元", "AUD"),
    ("加元", "CAD"), ("新加坡元", "SGD"), ("新台币", "TWD"), ("台币", "TWD"), ("卢布", "RUB"),
    ("twd", "TWD"), ("nt dollars", "TWD"), ("new taiwan dollars", "TWD"),
    ("人民币", "CNY"), ("元", "CNY"), ("块", "CNY"),
    ("us dollars", "USD"), ("u.s. dollars", "USD"), ("dollars", "USD"), ("dollar", "USD"),
    ("usd", "USD"), ("rmb", "CNY"), ("cny", "CNY"), ("yuan", "CNY"), ("hkd", "HKD"),
    ("hk dollars", "HKD"), ("eur", "EUR"), ("euros", "EUR"), ("euro", "EUR"),
    ("jpy", "JPY"), ("yen", "JPY"), ("gbp", "GBP"), ("pounds", "GBP"),
]
# a foreign currency's Chinese name before a number whose unit is 元 ("新台币28943亿元")
_CURRENCY_WORD = {w: c for w, c in _CURRENCY_AFTER
                  if c != "CNY" and all("\u4e00" <= ch <= "\u9fff" for ch in w)}
_CURRENCY_WORD_BEFORE = re.compile("(" + "|".join(sorted(_CURRENCY_WORD, key=len, reverse=True))
                                   + r")\s*$")
_CURRENCY_BEFORE: list[tuple[str, str]] = [
    ("nt$", "TWD"), ("s$", "SGD"), ("a$", "AUD"), ("c$", "CAD"), ("twd", "TWD"),
    ("us$", "USD"), ("hk$", "HKD"), ("rmb", "CNY"), ("usd", "USD"), ("cny", "CNY"),
    ("hkd", "HKD"), ("eur", "EUR"), ("gbp", "GBP"), ("jpy", "JPY"), ("$", "USD"),
    ("¥", "CNY"), ("€", "EUR"), ("£", "GBP"),
]
# other units: word → (dimension, factor to the dimension's base unit)
_UNITS: list[tuple[str, str, Decimal]] = [
    ("terajoules", "energy", Decimal(1)), ("terajoule", "energy", Decimal(1)),
    ("petajoules", "energy", Decimal(1000)), ("gigajoules", "energy", Decimal("0.001")),
    ("tj", "energy", Decimal(1)), ("twh", "energy", Decimal(3600)),
    ("gwh", "energy", Decimal("3.6")), ("太瓦时", "energy", Decimal(3600)), ("pj", "energy", Decimal(1000)),
    ("gj", "energy", Decimal("0.001")),
    ("平方公里", "area", Decimal(1)), ("平方千米", "area", Decimal(1)),
    ("square kilometers", "area", Decimal(1)), ("square kilometres", "area", Decimal(1)),
    ("sq km", "area", Decimal(1)), ("km²", "area", Decimal(1)), ("km2", "area", Decimal(1)),
    ("个交易日", "trading days", Decimal(1)), ("trading days", "trading days", Decimal(1)),
    ("个月", "months", Decimal(1)), ("months", "months", Decimal(1)),
    ("month", "months", Decimal(1)),
    ("年", "years", Decimal(1)), ("years", "years", Decimal(1)), ("year", "years", Decimal(1)),
    ("天", "days", Decimal(1)), ("日", "days", Decimal(1)), ("days", "days", Decimal(1)),
    ("day", "days", Decimal(1)), ("周", "weeks", Decimal(1)), ("weeks", "weeks", Decimal(1)),
    ("倍", "times", Decimal(1)), ("times", "times", Decimal(1)), ("x", "times", Decimal(1)),
    ("个基点", "bp", Decimal(1)),
    ("点", "points", Decimal(1)), ("points", "points", Decimal(1)), ("pts", "points",
                                                                     Decimal(1)),
    ("吨", "tonnes", Decimal(1)), ("tonnes", "tonnes", Decimal(1)), ("tons", "tonnes",
                                                                   Decimal(1)),
    ("桶", "barrels", Decimal(1)), ("barrels", "barrels", Decimal(1)),
    ("股", "shares", Decimal(1)), ("shares", "shares", Decimal(1)),
    ("手", "lots", Decimal(1)), ("人", "people", Decimal(1)), ("people", "people", Decimal(1)),
    ("名", "count", Decimal(1)), ("位", "count", Decimal(1)), ("个", "count", Decimal(1)),
    ("家", "count", Decimal(1)), ("只", "count", Decimal(1)), ("支", "count", Decimal(1)),
    ("款", "count", Decimal(1)), ("座", "count", Decimal(1)), ("所", "count", Decimal(1)),
    ("项", "count", Decimal(1)), ("次", "count", Decimal(1)), ("辆", "count", Decimal(1)),
    ("台", "count", Decimal(1)), ("套", "count", Decimal(1)), ("件", "count", Decimal(1)),
    ("户", "count", Decimal(1)), ("架", "count", Decimal(1)), ("艘", "count", Decimal(1)),
    ("部", "count", Decimal(1)), ("vehicles", "count", Decimal(1)), ("units", "count",
                                                                       Decimal(1)), ("companies", "count",
                                                                Decimal(1)),
    ("stocks", "count", Decimal(1)), ("restaurants", "count", Decimal(1)),
]
_PERCENT_WORDS: list[tuple[str, str]] = [
    ("个百分点", "pp"), ("percentage points", "pp"), ("percentage point", "pp"), ("pp", "pp"),
    ("个基点", "bp"), ("基点", "bp"), ("basis points", "bp"), ("basis point", "bp"),
    ("bps", "bp"), ("bp", "bp"), ("‰", "permille"), ("%", "%"), ("percent", "%"),
    ("per cent", "%"), ("pct", "%"),
]


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


_WORDY = re.compile(r"[a-z]")
_SCALE_RE = re.compile(rf"\s?(?P<w>{_alternation(list(SCALES))})", re.IGNORECASE)
_PCT_RE = re.compile(rf"\s?(?P<w>{_alternation([w for w, _ in _PERCENT_WORDS])})",
                     re.IGNORECASE)
_CUR_RE = re.compile(rf"\s?(?P<w>{_alternation([w for w, _ in _CURRENCY_AFTER])})",
                     re.IGNORECASE)
_UNIT_RE = re.compile(rf"\s?(?P<w>{_alternation([w for w, _, _ in _UNITS])})", re.IGNORECASE)
_PER_RE = re.compile(r"\s?/\s?(?P<w>股|桶|吨|盎司|克|share|barrel|ton|oz|ounce)", re.IGNORECASE)
_CUR_AFTER = {w: c for w, c in _CURRENCY_AFTER}
_PCT = {w: k for w, k in _PERCENT_WORDS}
_UNIT = {w: (d, f) for w, d, f in _UNITS}


def _word_end_ok(text: str, m: re.Match[str]) -> bool:
    """An English unit word must end at a word boundary ("m" of "million" is not "m")."""
    word = m.group("w")
    if not _WORDY.search(word.lower()):
        return True
    end = m.end()
    return end >= len(text) or not (text[end].isascii() and text[end].isalnum())


@dataclass(frozen=True, slots=True)
class Quantity:
    """A value with what it measures. `value` and `quantum` are in base units: the scale is
    applied (62.57亿 → 6257000000, quantum 1000000), percents stay in percent units and basis
    points are turned into them (25bp → 0.25)."""

    value: Decimal
    quantum: Decimal
    dim: str  # "percent", "money", "bare", or a unit dimension ("energy", "years", "count" …)
    currency: str | None = None
    scale: Decimal = Decimal(1)
    scale_word: str = ""
    unit_word: str = ""  # as written: "%", "亿美元", "TJ"
    per: str = ""  # "股" in 元/股

    @property
    def scaled(self) -> bool:
        return self.scale != 1

    def describe(self) -> str:
        return f"{self.dim}{'/' + self.currency if self.currency else ''}"


@dataclass(frozen=True, slots=True)
class Mention:
    """One number stated in a text, where it is, and how it was said."""

    start: int
    end: int
    text: str
    q: Quantity
    signed: bool  # an explicit + or - was written
    direction: int  # -1 a fall word before it (下跌, fell), +1 a rise word, 0 none
    approx: bool  # 约 / about / ≈ before it, or 左右 after it
    bound: bool  # 超过 / 不到 / more than: an inequality, not a value
    spelled: bool = False  # written in words ("一家", "two restaurants"): counts only


_DIGITS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december", "jan", "feb", "mar", "apr", "jun",
           "jul", "aug", "sep", "sept", "oct", "nov", "dec")
_INDEX_WORDS = ("沪深", "中证", "上证", "深证", "科创", "科创板", "创业板", "国证", "标普", "纳斯达克",
                "纳指", "道琼斯", "日经", "富时", "罗素", "恒生", "s&p", "nasdaq", "nasdaq-",
                "ftse", "russell", "nikkei", "dax", "cac", "stoxx", "kospi", "csi", "sse",
                "msci", "dow jones", "a", "top", "前", "第", "no.", "no", "#", "step",
                "result", "results", "source", "sources", "page", "section", "item", "table",
                "figure", "fig.", "附注", "来源", "表", "图")
_LEFT_WORD = re.compile(
    rf"(?:{_alternation(list(_INDEX_WORDS) + list(_MONTHS))})[\s\-]?$", re.IGNORECASE)
# `_LEFT_WORD` ends at the end of the text (or before its final newline), after one of its
# words and at most one character: every match starts in the text's last `_LEFT_WORD_SPAN`
# characters, where its search begins (the same match: it has no lookbehind)
_LEFT_WORD_SPAN = max(len(w) for w in (*_INDEX_WORDS, *_MONTHS)) + 2
# every month word starts with one of these; under IGNORECASE only ſ is an ASCII letter's
# equivalent (of s) that `.lower()` does not give as one
_MONTH_HEADS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                "dec")
assert all(m.startswith(_MONTH_HEADS) for m in _MONTHS)
_MONTH_LEFT = re.compile(rf"(?:{_alternation(list(_MONTHS))})\.?\s+(?:\d{{1,2}}\s*[-–]\s*)?$",
                         re.IGNORECASE)
_DAY_MONTH_RIGHT = re.compile(rf"(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_alternation(list(_MONTHS))})"
                              r"(?![a-z])", re.IGNORECASE)
_DATE_RIGHT = re.compile(r"\s*(?:年|月(?!份?[均平])|日(?!均)|号|[-/.]\d{1,2}[-/.]\d{1,2}(?!\d)"
                         r"|[-/]\d{1,2}(?!\d))")
_UNIT_QUOTE = re.compile(r"\s*(?:美元|美金|港元|港币|欧元|日元|英镑|人民币|元|usd|us\s+dollars?|dollars?|"
                         r"euros?|eur|hkd|yuan|rmb|cny)\s*(?:对|兑|=|可兑换|折合|兑换|为基准|"
                         r"(?:is\s+)?(?:worth|equals?|per)\b|in\s+(?:usd|rmb|cny|yuan))",
                         re.IGNORECASE)
_TIME = re.compile(r"\s*[:：]\s*\d{2}(?!\d)")
_YEAR_FORMS = re.compile(r"(?:19|20)\d{2}")
_TENOR_AFTER = re.compile(r"[yY](?![a-zA-Z])|\s?(?:年期|个月期)")
_CODE_AFTER = re.compile(r"\.(?:sh|sz|bj|hk|o|n|us|ss)(?![a-z])", re.IGNORECASE)
_APPROX_LEFT = re.compile(r"(?<![a-z])(?:约为|约|大约|大概|近|接近|将近|约合|approximately|"
                          r"approx\.|about|around|roughly|nearly|almost|~|≈|∼)\s*[:：]?\s*$",
                          re.IGNORECASE)
_BOUND_LEFT = re.compile(r"(?<![a-z])(?:超过|逾|不到|不足|至少|至多|高于|低于|大于|小于|多于|少于|more than|"
                         r"less than|over|under|above|below|at least|at most|exceeding|"
                         r"greater than)\s*$", re.IGNORECASE)
_APPROX_RIGHT = re.compile(r"\s*(?:左右|上下|多|余)")
# a fall or rise stated in words right before the magnitude ("下跌16.97%", "fell by 3.2%")
_FALL = re.compile(r"(?<![a-z])(?:下跌|下降|下调|调降|降息|下滑|减少|回落|跌幅|降幅|跌了|跌去|跌|"
                   r"降低|缩减|净流出|亏损|净亏损|亏|fell|fall|falls|declined|decline|declines|"
                   r"dropped|drop|drops|decreased|cut|lowered|reduced|decrease|down|lost|loss|"
                   r"plunged|plunge|plummeted|tumbled|slumped|sank|slid|crashed|tanked|shed|"
                   r"暴跌|大跌|重挫|挫|下挫|跳水|negative|minus)"
                   r"(?:\s*(?:了|为|达|达到|约|幅度为|幅度|by|of|to|at|:|：|is|was|around|about|"
                   r"approximately|roughly))*\s*$", re.IGNORECASE)
_RISE = re.compile(r"(?<![a-z])(?:上涨|上升|增长|增加|涨幅|升幅|涨了|涨|回升|提高|净流入|盈利|"
                   r"rose|rise|rises|gained|gain|gains|increased|increase|up|grew|growth|"
                   r"jumped|surged|soared|climbed|rallied|advanced|暴涨|大涨|飙升)"
                   r"(?:\s*(?:了|为|达|达到|约|幅度为|幅度|by|of|to|at|:|：|is|was|around|about|"
                   r"approximately|roughly))*\s*$", re.IGNORECASE)
# `_FALL` and `_RISE` match only where one of their words is: their words, read from the
# patterns, tested in the lower-cased window first (without İ, ı and ſ, the only characters
# IGNORECASE takes for an ASCII letter that `.lower()` does not give as one, a word matches
# case-insensitively only where it stands in `.lower()`)
def _words_of(rx: re.Pattern[str]) -> tuple[str, ...]:
    head = rx.pattern.split("(?<![a-z])(?:", 1)[1].split(")", 1)[0]
    words = tuple(head.split("|"))
    assert all(re.escape(w) == w for w in words), words  # plain words, no pattern syntax
    return words


_FALL_WORDS = _words_of(_FALL)
_RISE_WORDS = _words_of(_RISE)
_CASE_ODD = ("\u0130", "\u0131", "\u017f")


def _said(rx: re.Pattern[str], words: tuple[str, ...], left: str) -> bool:
    """`rx.search(left)` as a yes / no, searched only where one of `words` can be."""
    if not any(c in left for c in _CASE_ODD):
        low = left.lower()
        if not any(w in low for w in words):
            return False
    return rx.search(left) is not None


# "negative free cash flow of $11.6 billion", "净亏损为5.2亿元": the sign in a word further back
_NEGATIVE = re.compile(r"(?<![a-z])(?:negative|净亏损|亏损|净流出)[^\d。；;，,\n]{0,36}?(?:of|at|was|were|"
                       r"为|达|:|：)\s*$", re.IGNORECASE)
_NEUTRAL = re.compile(r"(?<![a-z])(?:涨跌幅|涨跌|变动|变化|change|changed)"
                      r"(?:\s*(?:了|为|达|是|约|of|by|:|：|is|was))*\s*$", re.IGNORECASE)


def _left(text: str, start: int, n: int = 24) -> str:
    return text[max(0, start - n):start]


def _is_list_marker(text: str, start: int, end: int, raw: str) -> bool:
    if not raw.isdigit() or len(raw) > 2:
        return False
    line_start = text.rfind("\n", 0, start) + 1
    head = text[line_start:start].strip(" \t*-#>|")
    if head not in ("", "(", "（"):
        return False
    nxt = text[end:end + 2]
    return bool(re.match(r"[.、)）](?!\d)", nxt)) or (head in ("(", "（") and nxt[:1] in ")）")


_PRECISION_AFTER = re.compile(r"\s*(?:位小数|位有效数字|decimal places?|decimals\b|dp\b|d\.p\.|"
                              r"significant (?:figures|digits))", re.IGNORECASE)


# a bracketed reference ("[3]", "【2】"), searched only where its opening bracket is; its
# closing part matched in place (the same as on the text's tail: no lookbehind, no anchor)
_OPEN_BRACKET = re.compile(r"\[[^\[\]]{0,30}$")
_CLOSE_BRACKET = re.compile(r"[^\[\]]{0,30}\]")
_OPEN_MARK = re.compile(r"[【\[]\s*$")
_CLOSE_MARK = re.compile(r"\s*[】\]]")


def _month_left(left: str) -> bool:
    """`_MONTH_LEFT.search(left)`, searched only where a month word can be."""
    if "ſ" not in left:
        low = left.lower()
        if not any(h in low for h in _MONTH_HEADS):
            return False
    return _MONTH_LEFT.search(left) is not None


def _not_a_value(text: str, start: int, end: int, raw: str) -> bool:
    """True when the digit run text[start:end] is part of a date, time, code, name or marker."""
    before = text[start - 1] if start else ""
    after = text[end] if end < len(text) else ""
    # A500, FY2022, Q1, H1 are names; a currency code before the digits is not
    if before.isascii() and before.isalpha() and not re.search(
            r"(?:usd|rmb|cny|hkd|eur|gbp|jpy)\s*$", _left(text, start, 4), re.IGNORECASE):
        return True
    if before == "/" or (after == "/" and end + 1 < len(text) and text[end + 1].isdigit()):
        return True  # 2/5, 5/19: a fraction or a date, never read as two values
    if _DATE_RIGHT.match(text, end):
        # "2024年", "12月", "31日", "2024-12-31"; but "27.9年" and "30年" are durations
        nxt = text[end:end + 1]
        if nxt in "年":
            return bool(_YEAR_FORMS.fullmatch(raw))
        if nxt in "月":
            return raw.isdigit() and 1 <= int(raw) <= 12 and text[start - 1:start] != "个"
        if nxt in "日号":
            return raw.isdigit() and 1 <= int(raw) <= 31
        return True
    if raw in ("1", "100") and _UNIT_QUOTE.match(text, end):
        return True  # "1美元兑7.1884元", "100美元对人民币718.84元": the unit of a quote, no value
    if _TIME.match(text, end) and raw.isdigit() and len(raw) <= 2:
        return True
    if re.search(r"\d\s*[:：]\s*$", _left(text, start, 4)) and raw.isdigit() and len(raw) == 2:
        return True  # minutes of 15:30
    if _CODE_AFTER.match(text, end):
        return True  # 600519.SH, 00700.HK
    if raw.isdigit() and len(raw) <= 2 and _PRECISION_AFTER.match(text, end):
        return True  # "保留4位小数", "to 2 decimal places": how the value is written, no value
    if raw.isdigit() and _TENOR_AFTER.match(text, end):
        return True  # 1Y LPR, 10Y yield, 5年期: a tenor names the rate, it is no value
    left = _left(text, start)
    if _month_left(left) or _DAY_MONTH_RIGHT.match(text, end):
        if raw.isdigit() and len(raw) <= 2:
            return True  # May 19, 19 May, May 19-23
        if raw.isdigit() and _YEAR_FORMS.fullmatch(raw):
            return True  # May 2025
    if (raw.isdigit() and len(raw) in (4, 5, 6)
            and re.search(r"(?:[(（]\s*|代码\s*[:：]?\s*|code\s*[:：]?\s*)$", left, re.IGNORECASE)
            and (re.search(r"(?:代码|code)", left[-8:], re.IGNORECASE)
                 or text[end:end + 1] in ")）" or _CODE_AFTER.match(text, end))):
        return True  # (600519), 代码 600519
    m = _LEFT_WORD.search(left, max(0, len(left) - _LEFT_WORD_SPAN))
    if m:
        # "a 5% rise" is English; 中证A500 (the letter glued on) was caught above
        return m.group(0).strip().lower() != "a"
    if "[" in left and _OPEN_BRACKET.search(left) and _CLOSE_BRACKET.match(text, end):
        return True  # [3], [Search Result 24, Step 2]
    if ("[" in left or "【" in left) and _OPEN_MARK.search(left) and _CLOSE_MARK.match(text, end):
        return True
    if _is_list_marker(text, start, end, raw):
        return True
    # 20241231
    return raw.isdigit() and len(raw) == 8 and bool(re.fullmatch(r"(?:19|20)\d{2}[01]\d[0-3]\d",
                                                                  raw))


def _prefix(text: str, ns: int) -> tuple[int, str | None, str, bool, bool]:
    """Look back from the digits over a currency sign or code and a +/- sign:
    (where the mention starts, currency, sign, approx word, bound word)."""
    start = ns
    currency = None
    k = ns
    while k > 0 and text[k - 1] == " ":
        k -= 1
    low = text[max(0, k - 4):k].lower()
    for word, code in _CURRENCY_BEFORE:
        if low.endswith(word):
            currency = code
            start = k - len(word)
            break
    sign = ""
    k = start  # a sign is written against the digits or the currency sign ("-16.97%", "-$5")
    if k > 0 and text[k - 1] in "+-":
        pre = text[k - 2] if k >= 2 else ""
        if not (pre.isdigit() or pre == "." or (pre.isalpha() and pre.isascii())):
            sign = text[k - 1]
            start = k - 1
    # "约 $5", "-$5": a sign before the currency
    if currency and not sign:
        k2 = start
        if k2 > 0 and text[k2 - 1] in "+-" and not (k2 >= 2 and text[k2 - 2].isdigit()):
            sign = text[k2 - 1]
            start = k2 - 1
    left = _left(text, start, 16)
    approx = bool(_APPROX_LEFT.search(left))
    bound = bool(_BOUND_LEFT.search(left))
    return start, currency, sign, approx, bound


def _suffix(text: str, ne: int) -> tuple[int, str, str, str | None, str, str, Decimal, str]:
    """Read scale, percent, currency and unit words after the digits:
    (end, scale word, percent kind, currency, unit dim, unit word, unit factor, per)."""
    end = ne
    scale_word = ""
    m = _SCALE_RE.match(text, end)
    if m and _word_end_ok(text, m):
        w = m.group("w")
        # a lone "m"/"b"/"k" must be glued to the digits ("172.67B", "5m"), not "5 m²"
        if len(w) > 1 or m.group(0) == w:
            scale_word = w
            end = m.end()
            m2 = _SCALE_RE.match(text, end)  # "万亿" is one word; "亿万" is not a thing
            if m2 and m2.group("w") in ("亿",) and scale_word == "万":
                scale_word = "万亿"
                end = m2.end()
    pct = ""
    currency = None
    unit_dim = ""
    unit_word = ""
    factor = Decimal(1)
    m = _PCT_RE.match(text, end)
    if m and _word_end_ok(text, m):
        pct = _PCT[word_key(m.group("w"))]
        end = m.end()
    else:
        m = _CUR_RE.match(text, end)
        if m and _word_end_ok(text, m):
            currency = _CUR_AFTER[word_key(m.group("w"))]
            end = m.end()
            # "亿元人民币", "billion US dollars": a second currency word repeats the first
            m2 = _CUR_RE.match(text, end)
            if m2 and _word_end_ok(text, m2) and _CUR_AFTER[word_key(m2.group("w"))] == currency:
                end = m2.end()
        else:
            m = _UNIT_RE.match(text, end)
            if m and _word_end_ok(text, m):
                w = word_key(m.group("w"))
                if not (w == "x" and m.group(0) != m.group("w")):  # "10x", not "10 x"
                    unit_dim, factor = _UNIT[w]
                    unit_word = m.group("w")
                    end = m.end()
    per = ""
    m = _PER_RE.match(text, end)
    if m and (currency or not (pct or unit_dim)):
        per = word_key(m.group("w"))
        end = m.end()
    return end, scale_word, pct, currency, unit_dim, unit_word, factor, per


_HUNDRED_QUOTE = re.compile(r"(?<![\d.,])100" + _UNIT_QUOTE.pattern, re.IGNORECASE)


def _per_hundred(text: str, mentions: list[Mention]) -> list[Mention]:
    """"100美元对人民币718.84元": the value quoted for 100 units, as the rate for one (7.1884)."""
    if "100" not in text:
        return mentions
    out = list(mentions)
    for q in _HUNDRED_QUOTE.finditer(text):
        nxt = next((k for k, m in enumerate(out) if m.start >= q.end()), None)
        if nxt is None or text[q.end():out[nxt].start].strip(" ：:人民币元美港"):
            continue
        m = out[nxt]
        hundred = Decimal(100)
        out[nxt] = replace(m, q=replace(m.q, value=m.q.value / hundred,
                                        quantum=m.q.quantum / hundred))
    return out


def read_mentions(text: str) -> list[Mention]:
    """Every value in `text` (already `normalise`d), in order; dates, codes and names skipped."""
    out: list[Mention] = []
    for m in _DIGITS.finditer(text):
        ns, ne = m.span()
        raw = m.group(0)
        if _not_a_value(text, ns, ne, raw):
            continue
        start, cur_before, sign, approx, bound = _prefix(text, ns)
        end, scale_word, pct, cur_after, unit_dim, unit_word, factor, per = _suffix(text, ne)
        digits = raw.replace(",", "")
        if (not scale_word and not pct and not cur_before and not cur_after and not unit_dim
                and digits.isdigit() and _YEAR_FORMS.fullmatch(digits)):
            # a bare 1900–2099 is a year ("in 2022", "2022 annual report"), not a value
            continue
        if unit_dim == "bp":
            pct, unit_dim, unit_word = "bp", "", ""
        dot = digits.find(".")
        places = len(digits) - dot - 1 if dot >= 0 else 0
        value = Decimal(digits)
        quantum = Decimal(1).scaleb(-places)
        scale = SCALES.get(scale_word.lower(), Decimal(1)) if scale_word else Decimal(1)
        value *= scale
        quantum *= scale
        currency = cur_after or cur_before
        if cur_after == "CNY" and not re.search(r"人民币|rmb|cny", text[ne:end], re.IGNORECASE):
            # "新台币28943亿元", "港币100元": 元 is the unit of the currency named before it
            named = _CURRENCY_WORD_BEFORE.search(text, max(0, start - 6), start)
            before = cur_before or (_CURRENCY_WORD[named.group(1)] if named else None)
            if before and before != "CNY":
                currency = before
        if pct:
            dim = "percent"
            if pct == "bp":
                value /= 100
                quantum /= 100
            elif pct == "permille":
                value /= 10
                quantum /= 10
        elif currency:
            dim = "money"
        elif unit_dim:
            dim = unit_dim
            value *= factor
            quantum *= factor
        else:
            dim = "bare"
        if sign == "-":
            value = -value
        left = _left(text, start, 20)
        direction = 0
        if not sign:
            if _NEUTRAL.search(left):
                direction = 0
            elif _said(_FALL, _FALL_WORDS, left) or _NEGATIVE.search(_left(text, start, 48)):
                direction = -1
            elif _said(_RISE, _RISE_WORDS, left):
                direction = 1
        if _APPROX_RIGHT.match(text, end):
            approx = True
        words = (scale_word + (" " if scale_word and (unit_word or currency) else "")
                 + (unit_word or (pct if pct else "")))
        qty = Quantity(value, quantum, dim, currency, scale, scale_word,
                       words or (currency or ""), per)
        out.append(Mention(start, end, text[start:end].strip(), qty, bool(sign), direction,
                           approx, bound))
    out = _per_hundred(text, out)
    out.extend(_spelled_counts(text))
    out.sort(key=lambda m: m.start)
    return out


_CN_COUNT = re.compile(r"(?<![第一二两三四五六七八九十百千万亿\d])(?P<n>[一二两三四五六七八九十]{1,3})"
                       r"(?P<u>个|家|只|位|名|座|所|项|支|款|次)")
_EN_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
               "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_EN_COUNT = re.compile(r"(?<![a-z])(?P<n>" + "|".join(_EN_NUMBERS) + r")(?:\s+(?!of\b|the\b|a\b|"
                       r"an\b|or\b|and\b|to\b|in\b|is\b|was\b)(?P<u>[a-z]+)|(?=\s*[:：—–,.\-]))",
                       re.IGNORECASE)
_HALF_POINT = re.compile(r"half\s+(?:a\s+)?percentage\s+point|半个百分点", re.IGNORECASE)


def _spelled_counts(text: str) -> list[Mention]:
    """"一家", "两个", "one restaurant": small counts written in words."""
    from .keys import cn_int

    out: list[Mention] = []
    for m in _CN_COUNT.finditer(text):
        n = cn_int(m.group("n"))
        if n is None:
            continue
        q = Quantity(Decimal(n), Decimal(1), "count", unit_word=m.group("u"))
        out.append(Mention(m.start(), m.end(), m.group(0), q, False, 0, False, False, True))
    for m in _EN_COUNT.finditer(text):
        n = _EN_NUMBERS[word_key(m.group("n"))]
        q = Quantity(Decimal(n), Decimal(1), "count", unit_word=m.group("u") or "")
        out.append(Mention(m.start(), m.end("n"), m.group("n"), q, False, 0, False, False,
                           True))
    for m in _HALF_POINT.finditer(text):
        q = Quantity(Decimal("0.5"), Decimal("0.1"), "percent", unit_word="pp")
        left = _left(text, m.start(), 20)
        direction = -1 if _said(_FALL, _FALL_WORDS, left) else (
            1 if _said(_RISE, _RISE_WORDS, left) else 0)
        out.append(Mention(m.start(), m.end(), m.group(0), q, False, direction, False, False))
    return out
