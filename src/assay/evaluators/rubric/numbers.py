"""Reading the numbers an answer states, and only those.

Dates, times, tickers, index names ("S&P 500"), list markers and unit quotes ("1美元兑…") are
numbers in the text but not values; each digit run is judged by what stands right next to it.
A value keeps the place of its last written digit (its quantum) because the rubric's rounding
rule depends on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

# Full-width digits and signs to ASCII, one character for one, so spans stay valid in the
# original text. The full-width comma stays: in Chinese it separates clauses, never thousands.
_FULLWIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F) if c not in (0xFF0C,)}
_FULLWIDTH.update({0x2212: ord("-"), 0x2013: ord("-"), 0x3000: ord(" ")})


_NEEDS_TRANSLATION = re.compile("[\uff01-\uff5e\u2212\u2013\u3000]")
_FW_THOUSANDS = re.compile(r"(?<=\d)，(?=\d{3}(?!\d))")


def normalise(text: str) -> str:
    """Full-width to ASCII; a full-width comma between digit groups ("１，４５６") is a
    thousands separator there and becomes ",". Length is preserved."""
    if _NEEDS_TRANSLATION.search(text) is None:
        return text
    text = text.translate(_FULLWIDTH)
    return _FW_THOUSANDS.sub(",", text) if "，" in text else text


# What makes a digit run "not a value" is visible right next to it: "年/月/日" or ":" after it,
# a month name or an index name before it, brackets around a code. Each run is judged by an
# anchored match on its right and an anchored match on its reversed left, a few `match()` calls
# per number instead of scanning the whole answer with large alternations.
_MONTH_WORDS = ("january", "february", "march", "april", "may", "june", "july", "august",
                "september", "october", "november", "december", "jan", "feb", "mar", "apr",
                "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec")
_INDEX_WORDS = ("s&p", "标普", "标准普尔", "nasdaq", "纳斯达克", "纳指", "ftse", "富时", "csi", "沪深",
                "中证", "上证", "深证", "科创", "创业板", "nikkei", "日经", "dax", "cac", "russell",
                "罗素", "stoxx", "kospi", "道琼斯", "dow jones", "msci", "恒生科技", "国企", "红利")
_YEAR_WORDS = ("in", "of", "since", "during", "year", "fy", "fiscal year", "fiscal")
_CCY_WORDS = ("美元", "美金", "港元", "港币", "欧元", "英镑", "日元", "人民币", "元", "韩元", "卢布",
              "兰特", "usd", "cny", "hkd", "eur", "jpy", "gbp", "dollar", "dollars")


def _rev_words(words: tuple[str, ...]) -> str:
    return "(?:" + "|".join(re.escape(w[::-1]) for w in sorted(words, key=len, reverse=True)) + ")"


_MONTHS_R = _rev_words(_MONTH_WORDS)
_ORD_R = r"(?:ts|dn|dr|ht)?"  # st/nd/rd/th reversed
# Matched against the text to the LEFT of a run, reversed (so it starts right before the digits).
_LEFT_REV = re.compile(
    "|".join([
        rf"\s*\.?{_MONTHS_R}(?![a-z])",  # "Oct 17", "October 2025"
        rf"\s*,?\s*{_ORD_R}\d{{1,2}}\s+\.?{_MONTHS_R}(?![a-z])",  # "October 2, 2025"
        rf"\s*,?\s+\.?{_MONTHS_R}\s+(?:fo\s+)?{_ORD_R}\d{{1,2}}(?!\d)",  # "17 Oct 2025"
        r"\s*[-/.]\s*\d{1,2}\s*[-/.]\s*\d{4}(?!\d)",  # day of 2025-10-17
        r"\s*[-/.]\s*\d{4}(?!\d)",  # month of 2025-10
        r"\s*[:：]\s*\d{1,2}(?:\s*[:：]\s*\d{1,2})?(?!\d)",  # minutes/seconds of 23:22:05
        r"\s*[时点]\s*\d{1,2}(?!\d)",  # 15点30分
        r"\d\.",  # 1.2.3 sequences
        r"\s*[（(]",  # (600519)
        r"\s*[:：]?\s*(?:码代票股|码代|edoc|rekcit)(?![a-z])",  # 代码: 600519
        r"\s*\.on(?![a-z])|\s*#|\s*第",  # no. 5, #1, 第3
        rf"\s*{_rev_words(_INDEX_WORDS)}",  # S&P 500, 沪深300
    ]),
    re.IGNORECASE,
)
_YEAR_LEFT_REV = re.compile(rf"\s+{_rev_words(_YEAR_WORDS)}(?![a-z])", re.IGNORECASE)
# Matched against the text to the RIGHT of a run.
_RIGHT = re.compile(
    "|".join([
        r"\s*[年月日号](?!元)",
        r"\s*[-/.]\s*\d{1,2}\s*[-/.]\s*\d{1,2}(?!\d)",  # year of 2025-10-17 / 2025.10.17
        r"\s*[:：]\s*\d{2}",  # hour of 23:22
        r"\s*[时点]\s*\d{1,2}\s*分",
        r"\s*[ap]\.?m\.?(?![a-z])",
        rf"{r'(?:st|nd|rd|th)?'}\s+(?:of\s+)?\.?(?:{'|'.join(_MONTH_WORDS)})(?![a-z])",
        r"\s*(?:分钟|秒|小时|个交易日|交易日|天|周|个月|年期|日均|日涨跌幅|指数|etf)",
        r"[-\s]?(?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|yr)(?![a-z])",
        r"\.[a-z]",  # 600519.SH, 105.AAPL
        r"[a-z]{2,}",  # 52wk-style glued words
        rf"\s*(?:{'|'.join(_CCY_WORDS)})\s*(?:对|兑|=|可兑换|折合|兑换)",  # 1美元兑…
    ]),
    re.IGNORECASE,
)
_CODE_CLOSE = re.compile(r"(?:\.[A-Za-z]+)?\s*[)）]")
_LIST_CLOSE = re.compile(r"\s*[.、)）](?!\d)")
_YYYYMMDD = re.compile(r"(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])")
_WINDOW = 24


def _not_a_value(text: str, start: int, end: int, raw: str) -> bool:
    """True when the digit run text[start:end] is part of a date, time, code, name or marker."""
    if _RIGHT.match(text, end):
        return True
    left = text[max(0, start - _WINDOW):start][::-1]
    if left:
        m = _LEFT_REV.match(left)
        if m:
            # brackets only make a code of 4-6 digits that the closing bracket follows
            if left.lstrip()[:1] in "(（":
                return 4 <= len(raw) <= 6 and raw.isdigit() and bool(
                    _CODE_CLOSE.match(text, end))
            return True
        if len(raw) == 4 and raw[:2] in ("19", "20") and _YEAR_LEFT_REV.match(left):
            return True
    if raw.isdigit():
        n = len(raw)
        if n == 8 and _YYYYMMDD.fullmatch(raw):
            return True
        if raw[0] == "0" and 5 <= n <= 6:
            return True
        if n <= 2:  # a list marker: only blanks or an opening bracket since the line start
            line_start = text.rfind("\n", 0, start) + 1
            head = text[line_start:start].strip()
            if head in ("", "(", "（") and _LIST_CLOSE.match(text, end):
                return True
    return False


_DIGITS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_SUFFIX = re.compile(
    r"(?P<mag>\s?(?:万亿|亿|万|千|百万|trillion|billion|million|thousand|bn|tn|mn)"
    r"|(?:[kmb])(?![a-z]))?"
    r"(?P<pct>\s?(?:%|个百分点|percentage points?|percent|pct|bps|bp|基点|pips?)(?![a-z]))?",
    re.IGNORECASE,
)
_CURRENCY_SIGNS = frozenset("$¥€£")
_QUANTA = [Decimal(1).scaleb(-n) for n in range(40)]

_MAGNITUDES = {
    "万亿": Decimal(10) ** 12, "亿": Decimal(10) ** 8, "万": Decimal(10) ** 4,
    "千": Decimal(10) ** 3, "百万": Decimal(10) ** 6, "trillion": Decimal(10) ** 12,
    "tn": Decimal(10) ** 12, "billion": Decimal(10) ** 9, "bn": Decimal(10) ** 9,
    "b": Decimal(10) ** 9, "million": Decimal(10) ** 6, "mn": Decimal(10) ** 6,
    "m": Decimal(10) ** 6, "thousand": Decimal(10) ** 3, "k": Decimal(10) ** 3,
}


@dataclass(frozen=True, slots=True)
class Mention:
    """One value stated in an answer: where it is, what it is, and how precisely it was said."""

    start: int
    end: int
    text: str
    value: Decimal
    quantum: Decimal
    percent: bool
    signed: bool  # the text carried an explicit + or -
    unit: str  # "bp" / "pp" / "" — points-style units the rubric does not convert


def _skip_blank(text: str, k: int) -> int:
    return k - 1 if k > 0 and text[k - 1] == " " else k


def _prefix(text: str, ns: int) -> tuple[int, bool, str]:
    """Look back from the digits over a currency sign ("$", "HK$ ", "¥") and a +/- sign, each
    possibly followed by one blank: (where the mention starts, had a currency, the sign)."""
    start = ns
    cur = False
    k = _skip_blank(text, start)
    if k > 0 and text[k - 1] in _CURRENCY_SIGNS:
        cur = True
        start = k - 1
        if start >= 2 and text[start - 2:start].lower() in ("us", "hk"):
            start -= 2
    k = _skip_blank(text, start)
    if k > 0 and text[k - 1] in "+-":
        pre = text[k - 2] if k >= 2 else ""
        if not (pre.isdigit() or pre == "."):  # "7.18-7.19" is a range, not a sign
            return k - 1, cur, text[k - 1]
    return start, cur, ""


def read_numbers(text: str) -> list[Mention]:
    """Every value in `text` (already normalised), in order, with dates and codes skipped."""
    out: list[Mention] = []
    for m in _DIGITS.finditer(text):
        ns, ne = m.span()
        if _not_a_value(text, ns, ne, m.group(0)):
            continue
        start, cur, sign = _prefix(text, ns)
        # Digits glued to letters on either side are part of an identifier ("A50", "3M").
        before = text[ns - 1] if ns > 0 else ""
        if before.isascii() and before.isalpha() and not cur:
            continue
        raw = m.group(0)
        if "," in raw:
            raw = raw.replace(",", "")
        dot = raw.find(".")
        places = len(raw) - dot - 1 if dot >= 0 else 0
        quantum = _QUANTA[places] if places < len(_QUANTA) else Decimal(1).scaleb(-places)
        value = Decimal(raw)
        end = ne
        suffix = _SUFFIX.match(text, ne)
        mag = pct_text = ""
        if suffix is not None and suffix.end() > ne:
            end = suffix.end()
            mag = (suffix.group("mag") or "").strip().lower()
            pct_text = (suffix.group("pct") or "").strip().lower()
        if mag:
            factor = _MAGNITUDES[mag]
            value *= factor
            quantum *= factor
        percent = pct_text in {"%", "percent", "pct"}
        unit = "" if not pct_text or percent else ("pp" if "百分点" in pct_text
                                                   or "point" in pct_text else "bp")
        if sign == "-":
            value = -value
        out.append(Mention(start, end, text[start:end].strip(), value, quantum, percent,
                           bool(sign), unit))
    return out
