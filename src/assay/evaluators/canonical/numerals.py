"""Numbers in one form: ASCII digits, "." for decimals, "," for thousands, no exponent.

- full-width forms by NFKC (`unicodedata`), except the full-width comma, which separates
  clauses in Chinese ("112，114" is two numbers) — the readers treat it as such;
- the Unicode minus and dashes before a digit as "-";
- thousands written with an apostrophe, a thin space or dots ("1'234.5", "1 234,5",
  "23.751,24") as "1,234.5";
- scientific notation ("2.4517e+02", "1.52 × 10^5", "1.52×10⁵") as its plain decimal, with the
  digits the mantissa shows;
- Chinese numerals ("三千二百一十五点四八", "一千五百零六点二七亿", "百分之二点三") as digits, by
  `cn2an` (a maintained converter), keeping a trailing 万/亿 as the scale word it is.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation

from .steps import Step, apply

_FULL = re.compile("[\uff01-\uff0b\uff0d-\uff5e\u3000]")
_DASH_MINUS = re.compile("[\u2212\u2012\u2013\u2014\u2015\ufe63\uff0d\u2796](?=\\s?\\d)")
_APOS = re.compile("(?<=\\d)['\u2019\u02bc](?=\\d{3}(?!\\d))")
_THIN = re.compile("(?<=\\d)[\u2009\u202f\u00a0](?=\\d{3}(?!\\d))")
# "23.751,24", "1.234.567,5", "1 234,5": dots or blanks between thousands, a decimal comma
_EURO = re.compile(r"(?<![\d.,])(\d{1,3}(?:([. ])\d{3})(?:\2\d{3})*),(\d{1,2})(?![\d,])")
_SCI = re.compile(r"(?<![\w.])([-+]?\d+(?:\.\d+)?)[eE]([-+]?\d{1,3})(?!\w|\.\d)")
_SUPER = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_TIMES_TEN = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*[×xX*·]\s*10\s*(?:\^\s*\{?\s*([-+]?\d{1,3})\s*\}?|"
                        r"([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3}))")
_CN_DIGIT = "零〇一二两三四五六七八九"
_CN_VALUE = {"零": "0", "〇": "0", "一": "1", "二": "2", "两": "2", "三": "3", "四": "4", "五": "5",
             "六": "6", "七": "7", "八": "8", "九": "9"}
_CN_ALL = _CN_DIGIT + "十百千万亿"
# A run of Chinese numerals worth converting: it has a digit character and either a place
# (十百千万亿) or a decimal part ("点" then digits). Single characters and words made of them
# (一度, 百度, 三一重工, 万科, 千万) are left alone.
_CN_RUN = re.compile(
    rf"(?P<pct>百分之)?(?P<neg>负)?(?P<int>[{_CN_ALL}]+)(?:点(?P<dec>[{_CN_DIGIT}]+))?"
    rf"(?P<scale>万亿|亿|万)?")
_CN_SCALE_TAIL = re.compile("(万亿|亿|万)$")


def _plain(d: Decimal) -> str:
    text = format(d, "f")
    return text


def _sci(m: re.Match[str]) -> str:
    try:
        value = Decimal(f"{m.group(1)}e{m.group(2)}")
    except InvalidOperation:
        return m.group(0)
    return _plain(value)


def _times_ten(m: re.Match[str]) -> str:
    exp = m.group(2) if m.group(2) is not None else m.group(3).translate(_SUPER)
    try:
        value = Decimal(f"{m.group(1)}e{int(exp)}")
    except (InvalidOperation, ValueError):
        return m.group(0)
    return _plain(value)


def _cn_int(s: str) -> Decimal | None:
    import cn2an  # a few ms to import: only answers with Chinese numerals pay it

    try:
        return Decimal(str(cn2an.cn2an(s.replace("两", "二"), "strict")))
    except (ValueError, KeyError, IndexError, TypeError):
        return None


def _cn(m: re.Match[str]) -> str:
    whole = m.group(0)
    integer, dec, scale = m.group("int"), m.group("dec"), m.group("scale") or ""
    places = any(c in "十百千万亿" for c in integer)
    if not (any(c in _CN_DIGIT for c in integer) or integer.startswith("十")):
        return whole
    if not places and dec is None and not m.group("pct"):
        return whole  # "三一", "一": a name or a word, not a number
    if dec is None and not scale:
        tail = _CN_SCALE_TAIL.search(integer)
        if tail is not None and len(integer) > len(tail.group(1)):
            head = integer[:tail.start()]
            if any(c in "十百千" for c in head) or len(head) == 1 or all(
                    c in _CN_DIGIT for c in head):
                integer, scale = head, tail.group(1)
    if all(c in _CN_DIGIT for c in integer) and len(integer) > 1:
        number = "".join(_CN_VALUE[c] for c in integer)
    else:
        value = _cn_int(integer)
        if value is None:
            return whole
        number = _plain(value)
    if dec is not None:
        number += "." + "".join(_CN_VALUE[c] for c in dec)
    out = ("-" if m.group("neg") else "") + number + scale
    return out + "%" if m.group("pct") else out


def fullwidth(text: str) -> tuple[str, list[str]]:
    """Full-width forms by NFKC (before structures are read: a JSON object may be written in
    full-width digits and punctuation)."""
    if _FULL.search(text) is None:
        return text, []
    return _FULL.sub(lambda m: unicodedata.normalize("NFKC", m.group(0)), text), \
        ["full-width → ASCII"]


UNIFORM = (
    Step("Unicode minus → -", lambda t: _DASH_MINUS.search(t) is not None, _DASH_MINUS, "-"),
    Step("apostrophe thousands", lambda t: "'" in t or "\u2019" in t or "\u02bc" in t, _APOS, ","),
    Step("thin-space thousands", lambda t: "\u2009" in t or "\u202f" in t or "\u00a0" in t,
         _THIN, ","),
    Step("decimal comma", lambda t: "," in t, _EURO,
         lambda m: m.group(1).replace(m.group(2), ",") + "." + m.group(3)),
    Step("× 10^n → decimal", lambda t: "10" in t and ("^" in t or any(
        c in t for c in "⁰¹²³⁴⁵⁶⁷⁸⁹")), _TIMES_TEN, _times_ten),
    Step("scientific notation", lambda t: "e" in t or "E" in t, _SCI, _sci),
    Step("Chinese numerals", lambda t: any(c in t for c in "十百千万亿点") and any(
        c in t for c in _CN_DIGIT), _CN_RUN, _cn),
)


def uniform(text: str) -> tuple[str, list[str]]:
    return apply(text, UNIFORM)
