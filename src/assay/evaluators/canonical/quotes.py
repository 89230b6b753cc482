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

from .lexicon import INDEX_NUMBERS
from .steps import Step, apply

_TICKER = r"(?:[A-Z]{1,5}(?:[.-][A-Z]{1,2})?|\d{4,6}\.(?:HK|SH|SZ|SS|T)|\^[A-Z]{2,5})"
_CJK_NAME = r"[\u4e00-\u9fff]{2,8}(?:[A-Z]{1,2}\b)?(?:[（(][^()（）\n]{1,12}[)）])?"
_EN_NAME = r"[A-Z][A-Za-z&.'-]+(?: [A-Z][A-Za-z&.'-]+){0,3}(?: \([A-Z.]{1,8}\))?"
_PRICE = (r"(?:(?:[A-Z]{1,3}\$|\$|¥|€|£|RMB|USD|HKD|CNY)\s?)?\d[\d,]*(?:\.\d+)?"
          r"(?:\s?(?:元|港元|美元|USD|HKD|CNY|pts|点))?")
_QUOTE_LINE = re.compile(
    rf"^(?P<lead>[ \t]*(?:[-*•>]|\d{{1,2}}[.)])?[ \t]*)(?P<name>{_TICKER}|{_CJK_NAME}|{_EN_NAME})"
    rf"(?P<sep>[ \t]*[:：]?[ \t]*)(?P<price>{_PRICE})(?P<after>[ \t]*(?:$|[(（|,，;；▲▼↑↓+\-]|\s[+-]))",
    re.MULTILINE)
# a "name" holding any of these is a field, a qualifier or a sentence, not an instrument
_FIELDISH = re.compile(r"价|收|开|高|低|涨|跌|幅|额|量|率|值|点位|指数$|区间|范围|日内|盘|今|昨|成交|"
                       r"振幅|换手|"
                       r"均|目标|预|基准|中间|报|约|为|是|在|于|至|到|达|共|合计|总|年|月|日|周|时|"
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
                        "Rank", "No", "Top", "Part", "Section", "Table", "Figure"})
_WEEKS52 = re.compile(r"\b52[- ]?(?:wk|wks|w)\b|\b52[- ]week", re.IGNORECASE)
_MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec"
# a month's abbreviation glued to a two-digit year, or joined by an apostrophe or a dash
# ("Dec25", "Dec '25", "DEC-25"); "Dec 25" with a blank is a day and stays
_CONTRACT_EN = re.compile(rf"\b({_MONTHS})(?:\s?['’]|-)?(\d{{2}})(?![\d.,:])", re.IGNORECASE)
_CONTRACT_ZH = re.compile(r"(?<![\d.])(2\d)(0[1-9]|1[0-2])(?=\s*(?:合约|主力|期货|交割))")


def _quote(m: re.Match[str]) -> str:
    name, price = m.group("name"), m.group("price")
    line_end = m.string.find("\n", m.end())
    if (len(m.string) if line_end < 0 else line_end) - m.start() > 160:
        return m.group(0)  # a sentence, not a quote line
    if name.split()[0] in _NOT_NAMES or _FIELDISH.search(name):
        return m.group(0)
    digits = price.strip("$¥€£ ").replace(",", "")
    if digits in INDEX_NUMBERS and not any(c in price for c in "$¥€£"):
        return m.group(0)  # "沪深300 4,514.15", "Nasdaq 100 24,000": the number names it
    if re.fullmatch(r"\d{5,6}", digits) or re.fullmatch(r"(?:19|20)\d{2}", digits):
        return m.group(0)  # a code or a year
    word = "最新价 " if re.match(r"[\u4e00-\u9fff]", name) else " last price "
    return f"{m.group('lead')}{name}{m.group('sep').rstrip() or ''} {word}{price}{m.group('after')}"


# "为HK$607.5": a currency mark glued to the word before it is still a currency mark
_GLUED_CURRENCY = re.compile(r"(?<=[\u4e00-\u9fff])(?=(?:HK|US|NT|S|A|C)\$)")


# Dates written day.month.year ("31.12.2024"), and German scale words ("245,12 Mrd. USD")
_DMY = re.compile(r"(?<![\d.])(\d{1,2})\.(\d{1,2})\.((?:19|20)\d{2})(?![\d.])")
_SCALE_WORDS = re.compile(r"(?<=\d)(\s?)(?:Mrd\.?|Mia\.?|Milliarden)(?![A-Za-z])|"
                          r"(?<=\d)(\s?)(?:Mio\.?|Millionen)(?![A-Za-z])|"
                          r"(?<=\d)(\s?)(?:Bio\.?|Billionen)(?![A-Za-z])")
_LONE_DECIMAL_COMMA = re.compile(r"(?<![\d.,])(\d{1,6}),(\d{1,2})(?=\s?(?:Mrd|Mio|Bio|Mia|%|€|EUR\b|"
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


def _dmy(m: re.Match[str]) -> str:
    return f"{m.group(3)}-{int(m.group(2)):02d}-{int(m.group(1)):02d}"


UNIFORM = (
    Step("day.month.year as a date", lambda t: "." in t, _DMY, _dmy),
    Step("decimal comma", lambda t: "," in t, _LONE_DECIMAL_COMMA, r"\1.\2"),
    Step("Mrd./Mio. → billion/million", lambda t: "M" in t or "B" in t, _SCALE_WORDS,
         _scale_word),
    Step("currency mark apart", lambda t: "$" in t, _GLUED_CURRENCY, " "),
    Step("quote line: latest price", lambda t: True, _QUOTE_LINE, _quote),
    Step("52-wk → 52-week", lambda t: "52" in t, _WEEKS52, "52-week"),
    Step("contract month as a date", lambda t: True, _CONTRACT_EN, _contract_en),
    Step("contract month as a date", lambda t: "合约" in t or "主力" in t or "期货" in t or
         "交割" in t, _CONTRACT_ZH, _contract_zh),
)


def uniform(text: str) -> tuple[str, list[str]]:
    return apply(text, UNIFORM)
