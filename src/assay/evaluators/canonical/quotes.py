"""Terse quote lines and the labels that are not values.

- A quote line, the commonest style of tool-using agents — "AMD $233.40 ▲2.3%",
  "9988.HK: HK$158.20 (-2.6%)", "招商银行 41.2元，涨跌-1.3%" — gives the instrument, then its latest
  price with no field word: the word is written in ("AMD last price $233.40 …").
- "52-wk", "52W", "52wk" are "52-week" (a range of the year, not a value of 52).
- Contract months are labels, not values: "Dec '25", "Dec25", "DEC-25" → "Dec 2025";
  "2512合约" → "2025年12月合约".
"""

from __future__ import annotations

import re

from assay.core.casing import has_ascii_letter, word_key
from assay.core.lazy_pattern import lazy

from .lexicon import INDEX_NUMBERS
from .steps import LineStarts, Step, apply

_TICKER = (r"(?:[A-Z]{6}(?![A-Za-z])|[A-Z]{1,5}(?:[.-][A-Z]{1,2})?(?![A-Za-z0-9])|"
           r"\d{4,6}\.(?:HK|SH|SZ|SS|T)|\^[A-Z]{2,5})")
_CJK_NAME = r"[\u4e00-\u9fff]{2,8}(?:[A-Z]{1,2}\b)?(?:[（(][^()（）\n]{1,12}[)）])?"
_EN_NAME = r"[A-Z][A-Za-z&.'-]+(?: [A-Z][A-Za-z&.'-]+){0,3}(?: \([A-Z.]{1,8}\))?"
_PRICE = (r"(?:(?:[A-Z]{1,3}\$|\$|¥|€|£|RMB|USD|HKD|CNY)\s?)?\d[\d,]*(?:\.\d+)?"
          r"(?:\s?(?:元|港元|美元|USD|HKD|CNY|pts|点))?")
_QUOTE_LINE = LineStarts(lazy(
    rf"^(?P<lead>[ \t]*(?:[-*•>]|\d{{1,2}}[.)])?[ \t]*)(?P<name>{_TICKER}|{_CJK_NAME}|{_EN_NAME})"
    rf"(?P<sep>[ \t]*[:：]?[ \t]*)(?P<price>{_PRICE})"
    rf"(?P<after>[ \t]*(?:$|[(（|,，;；▲▼↑↓+/]|-(?![A-Za-z])|\s[+-]))",
    re.MULTILINE))
# a quote line states how the price moved: a percent, an arrow or a signed number after it
_MOVE = lazy(r"[%▲▼↑↓]|(?<![\w.])[+-]\s?\d|涨|跌|/\s*\d")
# a "name" holding any of these is a field, a qualifier or a sentence, not an instrument
_FIELDISH = lazy(r"最新|当前|目前|现在|实时|价|收|开|高|低|涨|跌|幅|额|量|率|值|点位|指数$|"
                       r"区间|范围|日内|盘|今|昨|成交|振幅|换手|"
                       r"均|目标|预|基准|中间|报|约|为|是|在|于|至|到|达|共|合计|总|年|月|日|周|时|"
                       r"失守|跌破|突破|站上|守住|收复|不|非|没|未|"
                       r"price|close|open|high|low|change|rate|yield|volume|level|last|range|"
                       r"between|around|about|at$|is$|was$|to$|from|week|year|target|avg|average",
                       re.IGNORECASE)
_NOT_NAMES = frozenset({"Note", "Source", "Sources", "Date", "Time", "As", "At", "On", "In",
                        "Total", "Updated", "Data", "Step", "Q", "H", "FY", "Answer", "Final",
                        "Result", "Summary", "Volume", "Turnover", "Market", "Range",
                        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Sept",
                        "Oct", "Nov", "Dec", "January", "February", "March", "April", "June",
                        "July", "August", "September", "October", "November", "December",
                        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
                        "Sunday", "Week", "Year", "Day", "Month", "Quarter", "Page", "Item",
                        "Rank", "No", "Top", "Part", "Section", "Table", "Figure",
                        # metrics, not instruments ("EPS 6.43", "Beta 1.2", "10-K 2024")
                        "EPS", "PE", "PB", "PS", "NAV", "Beta", "Alpha", "Sharpe", "Dividend",
                        "Div", "Yield", "Revenue", "Sales", "Income", "Net", "EBIT", "EBITDA",
                        "GAAP", "TTM", "CPI", "PPI", "PMI", "GDP", "ROE", "ROA", "ROI", "Cap",
                        "MktCap", "Vol", "Age", "Rating", "Score", "Target", "Consensus",
                        "Forecast", "Estimate", "Est", "Fwd", "Forward", "Gross", "Margin",
                        "Debt", "Cash", "FCF", "Capex", "Shares", "Float", "Employees",
                        # words that start sentences, not names
                        "The", "A", "An", "This", "That", "These", "Those", "It", "Its", "Our",
                        "Your", "Their", "We", "You", "They", "I", "For", "From", "With", "By",
                        "Of", "To", "And", "Or", "But", "So", "If", "When", "While", "Today",
                        "Yesterday", "Now", "Currently", "Latest", "Last", "Current", "Price",
                        "Close", "Open", "High", "Low", "Change", "Yes", "Approximately",
                        "About", "Around", "Roughly", "Here", "There", "According"})
_NOT_NAMES_LOW = frozenset(n.lower() for n in _NOT_NAMES)
_WEEKS52 = lazy(r"\b52[- ]?(?:wk|wks|w)\b|\b52[- ]week", re.IGNORECASE)
_MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec"
# a month's abbreviation glued to a two-digit year or joined by an apostrophe ("Dec25", "Dec
# '25", "MAR25"), or by a dash before a contract word ("DEC-25 contract"); "Dec 25", "May-15
# 2024" and "(Oct-17)" are days and stay
_CONTRACT_EN = lazy(rf"(?=[jfmasond])\b({_MONTHS})(?:\s?['’]|-(?=\d{{2}}\s*(?:contracts?|futures|合约)))?"
                          rf"(\d{{2}})(?![\d.,:])(?!\s*(?:19|20)\d{{2}})", re.IGNORECASE)
_CONTRACT_ZH = lazy(r"(?<![\d.])(2\d)(0[1-9]|1[0-2])(?=\s*(?:合约|主力|期货|交割))")


def _quote(m: re.Match[str]) -> str:
    name, price = m.group("name"), m.group("price")
    line_end = m.string.find("\n", m.end())
    if (len(m.string) if line_end < 0 else line_end) - m.start() > 160:
        return m.group(0)  # a sentence, not a quote line
    if name.split()[0].lower() in _NOT_NAMES_LOW or _FIELDISH.search(name) or \
            re.search(r"股息|分红|市盈|市净|每股|营收|收入|利润|市值|估值|评级|目标|预期", name):
        return m.group(0)
    rest = m.string[m.end("price"):len(m.string) if line_end < 0 else line_end]
    if _MOVE.search(rest) is None:
        return m.group(0)  # no move stated: a metric or a label beside a number, not a quote
    digits = price.strip("$¥€£ ").replace(",", "")
    if digits in INDEX_NUMBERS and not any(c in price for c in "$¥€£"):
        return m.group(0)  # "沪深300 4,514.15", "Nasdaq 100 24,000": the number names it
    if re.fullmatch(r"\d{5,6}", digits) or re.fullmatch(r"(?:19|20)\d{2}", digits):
        return m.group(0)  # a code or a year
    word = "最新价 " if re.match(r"[\u4e00-\u9fff]", name) else " last price "
    return f"{m.group('lead')}{name}{m.group('sep').rstrip() or ''} {word}{price}{m.group('after')}"


# "为HK$607.5": a currency mark glued to the word before it is still a currency mark. The
# character before is tested in code: a lookbehind class of the CJK range cost ~9 M
# instructions to compile (re loops over its 20,992 code points in Python). A place inside a
# mark follows one of its letters, never a CJK character, so the marks found one after another
# hold every place the lookbehind found (tests/evaluators/canonical/test_currency_apart.py
# compares the two).
_CURRENCY_MARK = lazy(r"(?:HK|US|NT|S|A|C)\$")


def _currency_apart(m: re.Match[str]) -> str:
    start = m.start()
    glued = start > 0 and "\u4e00" <= m.string[start - 1] <= "\u9fff"
    return " " + m.group() if glued else m.group()


# Dates written day.month.year ("31.12.2024"), and German scale words ("245,12 Mrd. USD")
# (each led by the class of its first characters: one test a place, not five lookbehinds)
_DMY = lazy(r"(?=[0-9])(?<![\d.])(?<!version )(?<!ver )(?<!v)(?<!版本)(0?[1-9]|[12]\d|3[01])\."
                  r"(0?[1-9]|1[0-2])\.((?:19|20)\d{2})(?![\d.])", re.IGNORECASE)
# "31-Dec-2024", "31 Dec 2024": the day is part of the date
_D_MON_Y = lazy(r"(?<![\d.])(\d{1,2})[- ](jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)"
                      r"[a-z]*\.?[- ]((?:19|20)\d{2})(?!\d)", re.IGNORECASE)
# "$4.00T", "US$1.2tn": T after a money amount is trillion (B, M are read as billion, million)
_TRILLION = lazy(r"((?:\$|USD|RMB|CNY)\s?\d[\d,]*(?:\.\d+)?)\s?T(?![A-Za-z])")
_SCALE_WORDS = lazy(r"(?<=\d)(\s?)(?:Mrd\.?|Mia\.?|Milliarden)(?![A-Za-z])|"
                          r"(?<=\d)(\s?)(?:Mio\.?|Millionen)(?![A-Za-z])|"
                          r"(?<=\d)(\s?)(?:Bio\.?|Billionen)(?![A-Za-z])")
_LONE_DECIMAL_COMMA = lazy(r"(?<![\d.,])(\d{1,6}),(\d{1,2})(?=\s?(?:Mrd|Mio|Bio|Mia|%|€|EUR\b|"
                                 r"USD\b|Prozent|Milliarden|Millionen))")


def _scale_word(m: re.Match[str]) -> str:
    if m.group(1) is not None:
        return " billion"
    if m.group(2) is not None:
        return " million"
    return " trillion"


def _contract_en(m: re.Match[str]) -> str:
    return f"{m.group(1)} 20{m.group(2)}"


def _contract_zh(m: re.Match[str]) -> str:
    return f"20{m.group(1)}年{int(m.group(2))}月"


# SEC forms are names, not values: "10-K 2024" → "form10K-FY2024" (digits glued to letters are
# no number to any reader)
_SEC_FORM = lazy(r"(?<![\w-])(10|20|8|6|11)-([KQF])\b(?:[ \t]+((?:19|20)\d{2})\b)?")


def _sec_form(m: re.Match[str]) -> str:
    return f"form{m.group(1)}{m.group(2)}" + (f"-FY{m.group(3)}" if m.group(3) else "")


# "2024-12-31": the day and the month are not values either (both readers skip 年/月/日)
_ISO_DATE = lazy(r"(?<![\d.-])((?:19|20)\d{2})-(0?[1-9]|1[0-2])-(0?[1-9]|[12]\d|3[01])"
                       r"(?![\d.])(?!-\d)")


def _iso_date(m: re.Match[str]) -> str:
    return f"{m.group(1)}年{int(m.group(2))}月{int(m.group(3))}日"


# "10/17", "12/05": a month and a day when either has two digits (never a fraction like "2/5",
# nor a bid/ask "7.1290 / 7.1300")
_MONTH_DAY = lazy(r"(?<![\d./])(1[0-2]|0?[1-9])/(3[01]|[12]\d|0?[1-9])(?![\d./%])")


def _month_day(m: re.Match[str]) -> str:
    if len(m.group(1)) < 2 and len(m.group(2)) < 2:
        return m.group(0)  # "2/5": a fraction as likely as a date
    return f"{int(m.group(1))}月{int(m.group(2))}日"


_MONTH_NUMBER = {m: k + 1 for k, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul",
                                                  "aug", "sep", "oct", "nov", "dec"))}


def _d_mon_y(m: re.Match[str]) -> str:
    return f"{m.group(3)}年{_MONTH_NUMBER[word_key(m.group(2))[:3]]}月{int(m.group(1))}日"


def _dmy(m: re.Match[str]) -> str:
    return f"{m.group(3)}年{int(m.group(2))}月{int(m.group(1))}日"


# "U.S.", "U.K.": the dots are no sentence ends ("the 10-year U.S. Treasury yield")
_DOTTED = lazy(r"\b(U)\.(S|K)\.(?=\s|[A-Za-z,;:)]|$)")


UNIFORM = (
    Step("U.S. → US", lambda t: "U." in t, _DOTTED, r"\1\2"),
    Step("day.month.year as a date", lambda t: t.count(".") >= 2, _DMY, _dmy),  # d.m.yyyy
    Step("month/day as a date", lambda t: "/" in t, _MONTH_DAY, _month_day),
    Step("ISO date", lambda t: "-" in t, _ISO_DATE, _iso_date),
    Step("day month year as a date", has_ascii_letter, _D_MON_Y, _d_mon_y),
    Step("T → trillion", lambda t: "T" in t, _TRILLION, r"\1 trillion"),
    Step("SEC form as a name", lambda t: "-K" in t or "-Q" in t or "-F" in t, _SEC_FORM,
         _sec_form),
    Step("decimal comma", lambda t: "," in t, _LONE_DECIMAL_COMMA, r"\1.\2"),
    Step("Mrd./Mio. → billion/million", lambda t: "M" in t or "B" in t, _SCALE_WORDS,
         _scale_word),
    Step("currency mark apart", lambda t: "$" in t, _CURRENCY_MARK, _currency_apart),
    Step("contract month as a date", has_ascii_letter, _CONTRACT_EN, _contract_en),
    Step("contract month as a date", lambda t: "合约" in t or "主力" in t or "期货" in t or
         "交割" in t, _CONTRACT_ZH, _contract_zh),
    Step("quote line: latest price", lambda t: True, _QUOTE_LINE, _quote),
    Step("52-wk → 52-week", lambda t: "52" in t, _WEEKS52, "52-week"),
)


def uniform(text: str) -> tuple[str, list[str]]:
    return apply(text, UNIFORM)
