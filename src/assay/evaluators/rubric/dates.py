"""Dates stated in an answer, so a value can be tied to the day it speaks of.

The judge's rules: an answer that gives the current value may add earlier days' values without
penalty ("以及再前几天的在岸价格…也不扣分"), yet a value given only with a date is still the
answer ("无需因为…只回复了x月x日价格而扣分"). Reading the dates makes both checkable.
"""

from __future__ import annotations

import re

from assay.core.casing import word_key
from assay.core.lazy_pattern import lazy

Day = tuple[int, int, int]  # (year or 0, month, day)

_MONTHS = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8,
           "sep": 9, "oct": 10, "nov": 11, "dec": 12}
_MONTH_RE = (r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|"
             r"aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
# compiled on first use: only an answer with several values for one field needs its dates
_DATE = lazy(
    "|".join([
        r"(?P<y1>(?:19|20)\d{2})\s*[-/.年]\s*(?P<m1>\d{1,2})\s*[-/.月]\s*(?P<d1>\d{1,2})",
        r"(?<!\d)(?P<m2>\d{1,2})\s*月\s*(?P<d2>\d{1,2})\s*[日号]",
        rf"\b{_MONTH_RE}\.?\s+(?P<d3>\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(?P<y3>(?:19|20)\d{{2}}))?",
        r"\b(?P<d4>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon4>jan(?:uary)?|feb(?:ruary)?|"
        r"mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|"
        r"nov(?:ember)?|dec(?:ember)?)\b\.?(?:,?\s+(?P<y4>(?:19|20)\d{2}))?",
    ]),
    re.IGNORECASE,
)


def find_dates(text: str) -> list[tuple[int, Day]]:
    """(position, day) for every date written in `text`, in order."""
    out: list[tuple[int, Day]] = []
    for m in _DATE.finditer(text):
        g = m.groupdict()
        if g["m1"]:
            y, mo, d = int(g["y1"]), int(g["m1"]), int(g["d1"])
        elif g["m2"]:
            y, mo, d = 0, int(g["m2"]), int(g["d2"])
        elif g["mon"]:
            y, mo, d = int(g["y3"] or 0), _MONTHS[word_key(g["mon"])[:3]], int(g["d3"])
        else:
            y, mo, d = int(g["y4"] or 0), _MONTHS[word_key(g["mon4"])[:3]], int(g["d4"])
        if 1 <= mo <= 12 and 1 <= d <= 31:
            out.append((m.start(), (y, mo, d)))
    # A date written without its year takes the year of the answer's other dates.
    years = {day[0] for _, day in out if day[0]}
    if len(years) == 1:
        year = years.pop()
        out = [(pos, (day[0] or year, day[1], day[2])) for pos, day in out]
    return out
