"""Reading the numbers an answer states, and only those.

Dates, times, tickers, index names ("S&P 500"), list markers and unit quotes ("1美元兑…") are
numbers in the text but not values; they are masked before values are read. A value keeps the
place of its last written digit (its quantum) because the rubric's rounding rule depends on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from assay.core.decimals import ONE, quantum_of

# Full-width digits and signs to ASCII, one character for one, so spans stay valid in the
# original text. The full-width comma stays: in Chinese it separates clauses, never thousands.
_FULLWIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F) if c not in (0xFF0C,)}
_FULLWIDTH.update({0x2212: ord("-"), 0x2013: ord("-"), 0x3000: ord(" ")})


_FW_THOUSANDS = re.compile(r"(?<=\d)，(?=\d{3}(?!\d))")


def normalise(text: str) -> str:
    """Full-width to ASCII; a full-width comma between digit groups ("１，４５６") is a
    thousands separator there and becomes ",". Length is preserved."""
    return _FW_THOUSANDS.sub(",", text.translate(_FULLWIDTH))


_MONTHS = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|"
           r"aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_CCY = r"(?:美元|美金|港元|港币|欧元|英镑|日元|人民币|元|韩元|卢布|兰特|usd|cny|hkd|eur|jpy|gbp|dollars?)"
_INDEX_NAMES = (r"(?:s&p|标普|标准普尔|nasdaq|纳斯达克|纳指|ftse|富时|csi|沪深|中证|上证|深证|"
                r"科创|创业板|nikkei|日经|dax|cac|russell|罗素|stoxx|kospi|道琼斯|dow jones|"
                r"msci|恒生科技|国企|红利)")

# Spans that contain digits but are not values. Order does not matter: all are masked.
_NOT_VALUES = re.compile(
    "|".join([
        # ISO-ish and Chinese dates, compact yyyymmdd
        r"\d{4}\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}\s*[日号]?",
        r"\d{4}\s*年(?:\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?)?",
        r"\d{1,2}\s*月\s*\d{1,2}\s*[日号]",
        r"\d{1,2}\s*月份?",
        r"(?<![\d.])\d{1,2}\s*[日号](?![元])",
        r"(?<![\d.])(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?![\d.])",
        # English dates
        rf"\b{_MONTHS}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b",
        rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS}\b\.?(?:,?\s+\d{{4}})?",
        rf"\b{_MONTHS}\.?,?\s+\d{{4}}\b",
        r"\b(?:in|of|since|during|year|fy|fiscal(?:\s+year)?)\s+(?:19|20)\d{2}\b",
        r"\b(?:q[1-4]|h[12]|fy)\s*'?\d{0,4}\b",
        # times
        r"\d{1,2}\s*:\s*\d{2}(?:\s*:\s*\d{2})?(?:\s*[ap]\.?m\.?)?",
        r"\d{1,2}\s*[时点]\s*\d{1,2}\s*分(?:\s*\d{1,2}\s*秒)?",
        r"\b\d{1,2}\s*[ap]\.?m\.?(?![a-z])",
        # durations and period labels: "15分钟", "60日涨跌幅", "52-week", "10年期"
        r"\d+\s*(?:分钟|秒钟?|小时|个交易日|交易日|天|周|个月|年期|日均|日涨跌幅)",
        r"\b\d+[-\s]?(?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|yr)\b",
        # index and instrument names with numbers
        rf"{_INDEX_NAMES}\s*\d+",
        r"\b\d+\s*(?:指数|etf)",
        # tickers: digits glued to letters, codes in brackets, leading-zero codes
        r"[A-Za-z]+\d+[A-Za-z\d]*",
        r"\d+\.[A-Za-z]+",
        r"\d+[A-Za-z]{2,}",
        r"[（(]\s*\d{4,6}(?:\.[A-Za-z]+)?\s*[)）]",
        r"(?<![\d.])0\d{4,5}(?![\d.])",
        r"(?:代码|股票代码|code|ticker)\s*[:：]?\s*\d+",
        # list markers and ordinals
        r"^\s*[(（]?\d{1,2}\s*[.、)）](?!\d)",
        r"第\s*\d+",
        r"(?:no\.|#)\s*\d+",
        # unit quotes: "1美元对人民币7.17", "100日元兑南非兰特"
        rf"\d+\s*{_CCY}\s*(?:对|兑|=|可兑换|折合|兑换)",
    ]),
    re.IGNORECASE | re.MULTILINE,
)

_NUMBER = re.compile(
    r"(?P<sign>(?<![\d.])[-+](?=\s?[$¥€£]?\s?\d))?"
    r"(?P<cur>us\$|hk\$|[$¥€£])?\s?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?P<mag>\s?(?:万亿|亿|万|千|百万|trillion|billion|million|thousand|bn|tn|mn)"
    r"|(?:[kmb])(?![a-z]))?"
    r"(?P<pct>\s?(?:%|个百分点|percentage points?|percent|pct|bps|bp|基点|pips?)(?![a-z]))?",
    re.IGNORECASE,
)

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


def _mask(text: str) -> bytearray:
    mask = bytearray(len(text))
    for m in _NOT_VALUES.finditer(text):
        mask[m.start():m.end()] = b"\x01" * (m.end() - m.start())
    return mask


def read_numbers(text: str) -> list[Mention]:
    """Every value in `text` (already normalised), in order, with dates and codes skipped."""
    if not any(ch.isdigit() for ch in text):
        return []
    mask = _mask(text)
    out: list[Mention] = []
    for m in _NUMBER.finditer(text):
        ns, ne = m.span("num")
        if mask[ns] or mask[ne - 1]:
            continue
        # Digits glued to letters on either side are part of an identifier ("A50", "3M").
        before = text[ns - 1] if ns > 0 else ""
        if before.isascii() and before.isalpha() and not m.group("cur"):
            continue
        raw = m.group("num").replace(",", "")
        value = Decimal(raw)
        quantum = quantum_of(value)
        mag = (m.group("mag") or "").strip().lower()
        if mag:
            factor = _MAGNITUDES[mag]
            value *= factor
            quantum *= factor
        pct_text = (m.group("pct") or "").strip().lower()
        percent = pct_text in {"%", "percent", "pct"}
        unit = "" if not pct_text or percent else ("pp" if "百分点" in pct_text
                                                   or "point" in pct_text else "bp")
        sign = m.group("sign")
        if sign == "-":
            value = -value
        out.append(Mention(m.start(), m.end(), text[m.start():m.end()].strip(), value,
                           quantum if quantum > 0 else ONE, percent, sign is not None, unit))
    return out
