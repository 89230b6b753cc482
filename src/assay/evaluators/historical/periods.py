"""Which period a question asks about, and which period a value in the answer is said of.

"2023年为58.10亿元" beside "2024年为62.57亿元", "11月末…32659亿美元" beside "12月末降至32024亿美元",
"211,302.0 TJ in 2019, dropping to 188,864.0 TJ in 2020": a value said of another year, month or
day than the question's is reasoning or context, not the answer. The words that date a value
stand before it in its clause (or table row), or right after it ("… in 2019", "（2023年）").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assay.core.casing import word_key

from .keys import cn_int

_MONTHS = {"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6,
           "july": 7, "august": 8, "september": 9, "october": 10, "november": 11,
           "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7,
           "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}
_MONTH_WORD = "|".join(sorted(_MONTHS, key=len, reverse=True))
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
_YEAR_RANGE = re.compile(r"(?<!\d)((?:19|20)\d{2})\s*(?:年)?\s*(?:-|–|~|～|到|至|to|through)\s*"
                         r"((?:19|20)\d{2})(?!\d)")
_ZH_MONTH = re.compile(r"(?<![\d个])([0-9一二三四五六七八九十]{1,3})\s*月(?!份?[均平])")
_ZH_DAY = re.compile(r"(?<![\d个])(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
_EN_MONTH = re.compile(rf"(?<![a-z])({_MONTH_WORD})\.?(?![a-z])", re.IGNORECASE)
_EN_DAY = re.compile(rf"(?<![a-z])({_MONTH_WORD})\.?\s+(\d{{1,2}})(?!\d)|(?<!\d)(\d{{1,2}})\s+"
                     rf"({_MONTH_WORD})(?![a-z])", re.IGNORECASE)
_ISO_DAY = re.compile(r"(?<!\d)(?:19|20)\d{2}[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_YEAR_END = re.compile(r"年末|年底|year[-\s]end|end\s+of\s+(?:the\s+)?(?:year|(?:19|20)\d{2})",
                       re.IGNORECASE)
PART_OF_YEAR = re.compile(r"[一二三四1-4]季度|第[一二三四]季度|上半年|下半年|前三季度|半年度|季报|"
                          r"半年报|中报|"
                          r"(?<![a-z])(?:interim|half-year|half\s+year|quarterly)(?![a-z])|"
                          r"(?<![A-Za-z])[QH][1-4](?![0-9])|first\s+half|second\s+half|"
                          r"(?:first|second|third|fourth)\s+quarter|\d{1,2}\s*[-~至到]\s*\d{1,2}月",
                          re.IGNORECASE)
_AFTER = re.compile(r"\s*,?\s*(?:in|for|during|as\s+of|at\s+the\s+end\s+of)\s+(?:fiscal\s+(?:year\s+)?"
                    r"|FY\s?)?((?:19|20)\d{2})(?!\d)|\s*[(（]\s*((?:19|20)\d{2})\s*年?\s*[)）]",
                    re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Period:
    years: frozenset[str]
    months: frozenset[int]
    days: frozenset[tuple[int, int]]
    part: bool  # a quarter or half year is named

    def differs_from(self, asked: Period) -> bool:
        """Said of a period the question does not ask about: another year, month or day, or a
        part of the year when the question asks about the whole."""
        if asked.years and self.years and not (self.years & asked.years):
            return True
        if asked.months and self.months and not (self.months & asked.months):
            return True
        if asked.days and self.days and not (self.days & asked.days):
            return True
        return self.part and not asked.part


def period_of(text: str) -> Period:
    years = set(_YEAR.findall(text))
    for a, b in _YEAR_RANGE.findall(text):
        if int(a) < int(b) <= int(a) + 50:
            years.update(str(y) for y in range(int(a), int(b) + 1))
    months: set[int] = set()
    for m in _ZH_MONTH.finditer(text):
        n = cn_int(m.group(1))
        if n is not None and 1 <= n <= 12:
            months.add(n)
    for m in _EN_MONTH.finditer(text):
        word = word_key(m.group(1))
        if word == "may" and not re.match(r"\s*(?:\d|(?:19|20)\d{2})", text[m.end():]):
            continue  # the verb
        months.add(_MONTHS[word])
    if _YEAR_END.search(text):
        months.add(12)
    days: set[tuple[int, int]] = set()
    for m in _ZH_DAY.finditer(text):
        days.add((int(m.group(1)), int(m.group(2))))
    for m in _EN_DAY.finditer(text):
        month = m.group(1) or m.group(4)
        day = m.group(2) or m.group(3)
        days.add((_MONTHS[word_key(month)], int(day)))
    for m in _ISO_DAY.finditer(text):
        days.add((int(m.group(1)), int(m.group(2))))
    return Period(frozenset(years), frozenset(months), frozenset(days),
                  bool(PART_OF_YEAR.search(text)))


def dated_after(text: str, end: int) -> str | None:
    """A year written right after a value ("$36.8 billion in 2023", "186.07亿元（2024年）")."""
    m = _AFTER.match(text, end)
    return (m.group(1) or m.group(2)) if m else None
