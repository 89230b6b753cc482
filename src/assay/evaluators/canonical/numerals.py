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

from assay.core.casing import has_ascii_letter, word_key
from assay.core.lazy_pattern import lazy

from .steps import Step, apply

_FULL = lazy("[\uff01-\uff0b\uff0d-\uff5e\u3000]")
_DASH_MINUS = lazy("[\u2212\u2012\u2013\u2014\u2015\ufe63\uff0d\u2796](?=\\s?\\d)")
_APOS = lazy("(?<=\\d)['\u2019\u02bc](?=\\d{3}(?!\\d))")
_THIN = lazy("(?<=\\d)[\u2009\u202f\u00a0](?=\\d{3}(?!\\d))")
# "23.751,24", "1.234.567,5", "1 234,5": dots or blanks between thousands, a decimal comma
_EURO = lazy(r"(?<![\d.,])(\d{1,3}(?:([. ])\d{3})(?:\2\d{3})*),(\d{1,2})(?![\d,.])")
# ASCII classes, not \w: "约2.4517e+02元" has CJK on both sides, and CJK is \w to `re`
_SCI = lazy(r"(?<![A-Za-z0-9_.])([-+]?\d+(?:\.\d+)?)[eE]([-+]?\d{1,3})(?![A-Za-z0-9_]|\.\d)")
_SUPER = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_TIMES_TEN = lazy(r"(?<![A-Za-z0-9_.])(\d+(?:\.\d+)?)\s*[×xX*·]\s*10\s*"
                        r"(?:\^\s*\{?\s*([-+]?\d{1,3})(?:\s*\})?|([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3}))")
_CN_DIGIT = "零〇一二两三四五六七八九"
_CN_VALUE = {"零": "0", "〇": "0", "一": "1", "二": "2", "两": "2", "三": "3", "四": "4", "五": "5",
             "六": "6", "七": "7", "八": "8", "九": "9"}
_CN_ALL = _CN_DIGIT + "十百千万亿"
# A run of Chinese numerals worth converting: it has a digit character and either a place
# (十百千万亿) or a decimal part ("点" then digits). Single characters and words made of them
# (一度, 百度, 三一重工, 万科, 千万) are left alone.
_CN_RUN = lazy(
    rf"(?P<neg>负)?(?P<pct>百分之)?(?P<neg2>负)?(?P<int>[{_CN_ALL}]+)(?:点(?P<dec>[{_CN_DIGIT}]+))?"
    rf"(?P<scale>万亿|亿|万)?")
# what may follow a number written in Chinese numerals: a unit, a scale, a date part, the end
# of a phrase; anything else makes it a word (五十铃, 三十而立, 十万八千里)
_CN_AFTER = frozenset("元美港日欧英人亿万千百点个倍家只股手吨克盎辆年月日号位名次%％，,。；;、：:）)"
                      "（( \t\n|!！?？")
_CN_SCALE_TAIL = lazy("(万亿|亿|万)$")


def _plain(d: Decimal) -> str:
    text = format(d, "f")
    return text


_SCALE_WORDS = {3: " thousand", 6: " million", 9: " billion", 12: " trillion"}
_SCALE_WORDS_ZH = {4: "万", 8: "亿", 12: "万亿"}


def _cjk_beside(m: re.Match[str]) -> bool:
    text = m.string
    before = text[m.start() - 1] if m.start() > 0 else ""
    after = text[m.end()] if m.end() < len(text) else ""
    return any("\u4e00" <= c <= "\u9fff" for c in (before, after))


def _scaled(mantissa: str, exp: int, whole: str, zh: bool = False) -> str:
    """m × 10^e written with the digits the mantissa shows: "1.889 × 10^5" is 188.9 thousand
    (precise to 100), not 188900 (precise to 1); "2.4517e+02" is 245.17."""
    if not -30 <= exp <= 30:
        return whole  # no quantity in an answer is written so; leave it as text
    try:
        value = Decimal(mantissa).scaleb(exp)
    except InvalidOperation:
        return whole
    words, step = (_SCALE_WORDS_ZH, 4) if zh else (_SCALE_WORDS, 3)
    group = max(0, min(12, exp // step * step)) if abs(value) >= 10 ** step else 0
    if group not in words:
        return _plain(value)
    return _plain(value.scaleb(-group)) + words[group]


def _sci(m: re.Match[str]) -> str:
    return _scaled(m.group(1), int(m.group(2)), m.group(0), _cjk_beside(m))


def _times_ten(m: re.Match[str]) -> str:
    exp = m.group(2) if m.group(2) is not None else m.group(3).translate(_SUPER)
    try:
        e = int(exp)
    except ValueError:
        return m.group(0)
    return _scaled(m.group(1), e, m.group(0), _cjk_beside(m))


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
    after = m.string[m.end()] if m.end() < len(m.string) else " "
    if after not in _CN_AFTER and not after.isascii():
        return whole  # 五十铃, 三十而立: a word made of numerals
    if dec is None and not scale:
        tail = _CN_SCALE_TAIL.search(integer)
        if tail is not None and len(integer) > len(tail.group(1)):
            head = integer[:tail.start()]
            # "五十二亿" is 52亿; "二十亿零五百万" is one number, its 万 is no scale of the whole
            if not any(c in "万亿" for c in head) and (
                    any(c in "十百千" for c in head) or len(head) == 1 or all(
                        c in _CN_DIGIT for c in head)):
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
    out = ("-" if m.group("neg") or m.group("neg2") else "") + number + scale
    return out + "%" if m.group("pct") else out


def fullwidth(text: str) -> tuple[str, list[str]]:
    """Full-width forms by NFKC (before structures are read: a JSON object may be written in
    full-width digits and punctuation)."""
    if _FULL.search(text) is None:
        return text, []
    return _FULL.sub(lambda m: unicodedata.normalize("NFKC", m.group(0)), text), \
        ["full-width → ASCII"]


# a small model's spacing inside one number: "1 455 . 0 元", "2 . 01 %" (a decimal point with
# a blank on each side, between digits, and blanks as thousands before it)
_SPACED = lazy(r"(?<![\d.,])(?:\d{1,3}(?: \d{3})+|\d+) \. \d+")

# 兆 in Taiwan's and Japan's money is 10^12 (万亿): "新台币2兆8,943亿元" = 28943亿元, "3.5兆元"
_ZHAO_YI = lazy(r"(?<![\d.])(\d{1,4})兆(\d{1,4}(?:,\d{3})?)(?=亿)")
_ZHAO = lazy(r"(?<![\d.])(\d+(?:\.\d+)?)兆(?=\s*(?:元|美元|新台币|台币|日元|韩元|円))")

UNIFORM = (
    Step("spaced digits", lambda t: " . " in t, _SPACED, lambda m: m.group(0).replace(" ", "")),
    Step("Unicode minus → -", lambda t: _DASH_MINUS.search(t) is not None, _DASH_MINUS, "-"),
    Step("apostrophe thousands", lambda t: "'" in t or "\u2019" in t or "\u02bc" in t, _APOS, ","),
    Step("thin-space thousands", lambda t: "\u2009" in t or "\u202f" in t or "\u00a0" in t,
         _THIN, ","),
    Step("decimal comma", lambda t: "," in t, _EURO,
         lambda m: m.group(1).replace(m.group(2), ",") + "." + m.group(3)),
    Step("兆 → 万亿", lambda t: "兆" in t, _ZHAO_YI,
         lambda m: str(int(m.group(1)) * 10000 + int(m.group(2).replace(",", "")))),
    Step("兆 → 万亿", lambda t: "兆" in t, _ZHAO, r"\1万亿"),
    Step("× 10^n → decimal", lambda t: "10" in t and ("^" in t or any(
        c in t for c in "⁰¹²³⁴⁵⁶⁷⁸⁹")), _TIMES_TEN, _times_ten),
    Step("scientific notation", lambda t: "e" in t or "E" in t, _SCI, _sci),
    Step("Chinese numerals", lambda t: any(c in t for c in "十百千万亿点") and any(
        c in t for c in _CN_DIGIT + "十"), _CN_RUN, _cn),
)


# English number words ("twenty-five thousand, two hundred and fifty", "four point two"):
# converted by text2num (a maintained parser), run by run, where a run starts with a number
# word and holds a magnitude, a tens word or "point"; "$1,408 million" and "one of the top two"
# stay as written
_UNITS = ("zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
          "fourteen|fifteen|sixteen|seventeen|eighteen|nineteen")
_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_BIG = "hundred|thousand|million|billion|trillion"
_RUN = lazy(rf"\b(?:{_TENS}|{_UNITS})\b"
                  rf"(?:(?:[\s-]+|,\s+|\s+and\s+)(?:{_TENS}|{_UNITS}|{_BIG}|point)\b)*",
                  re.IGNORECASE)
_SPELLED = lazy(rf"(?=[tfsenhmbp])\b(?:{_TENS}|{_BIG}|point)\b", re.IGNORECASE)
_DOLLARS_CENTS = lazy(r"\b(\d[\d,]*) dollars? and (\d{1,2}) cents?\b", re.IGNORECASE)


def _run(m: re.Match[str]) -> str:
    from text_to_num import alpha2digit  # a few ms: only spelled-out answers pay it

    words = m.group(0)
    if _SPELLED.search(words) is None:
        return words  # "one two": no magnitude, no tens, no point
    return str(alpha2digit(re.sub(r",\s+", " ", words), "en"))


# a small number word the answer marks as its answer: "Just **one**: TSMC" → "**1**"
_BOLD_WORD = lazy(rf"\*\*({_UNITS})\*\*", re.IGNORECASE)
_SMALL = {w: str(k) for k, w in enumerate(_UNITS.split("|"))}


# a year as it is spoken: "twenty twenty-four", "nineteen ninety-eight", "twenty oh five"
_ONES = "one|two|three|four|five|six|seven|eight|nine"
_TEENS = "ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
_SPOKEN_YEAR = lazy(rf"\b(nineteen|twenty)[\s-]+(?:(?:oh|o)[\s-]+(?P<oh>{_ONES})|"
                          rf"(?P<teen>{_TEENS})|(?P<tens>{_TENS})(?:[\s-]+(?P<one>{_ONES}))?)\b",
                          re.IGNORECASE)
_ONES_N = {w: k + 1 for k, w in enumerate(_ONES.split("|"))}
_TEENS_N = {w: k + 10 for k, w in enumerate(_TEENS.split("|"))}
_TENS_N = {w: 20 + 10 * k for k, w in enumerate(_TENS.split("|"))}


def _year(m: re.Match[str]) -> str:
    century = 19 if word_key(m.group(1)) == "nineteen" else 20
    if m.group("oh"):
        rest = _ONES_N[word_key(m.group("oh"))]
    elif m.group("teen"):
        rest = _TEENS_N[word_key(m.group("teen"))]
    else:
        rest = _TENS_N[word_key(m.group("tens"))] + (
            _ONES_N[word_key(m.group("one"))] if m.group("one") else 0)
    return str(century * 100 + rest)


# a tenor or a span in words: "the ten-year Treasury", "two-year", "a thirty-day window"
_SPELLED_SPAN = lazy(rf"\b({_UNITS}|{_TENS})-(years?|yr|months?|weeks?|days?)\b",
                           re.IGNORECASE)
_WORD_N = {**{w: k for k, w in enumerate(_UNITS.split("|"))},
           **{w: 20 + 10 * k for k, w in enumerate(_TENS.split("|"))}}


def spelled(text: str) -> tuple[str, list[str]]:
    if not has_ascii_letter(text):  # each rewrite below needs an English number word
        return text, []
    if "-" in text and _SPELLED_SPAN.search(text):
        text = _SPELLED_SPAN.sub(lambda m: f"{_WORD_N[word_key(m.group(1))]}-{m.group(2)}", text)
        return spelled(text)[0], ["number words → digits"]
    low = text.lower()
    if ("twenty" in low or "nineteen" in low) and _SPOKEN_YEAR.search(text):
        text = _SPOKEN_YEAR.sub(_year, text)
        return spelled(text)[0], ["number words → digits"]
    if "**" in text:
        new = _BOLD_WORD.sub(lambda m: f"**{_SMALL[word_key(m.group(1))]}**", text)
        if new != text:
            return spelled(new)[0], ["number words → digits"]
    if _SPELLED.search(text) is None:
        return text, []
    new = _RUN.sub(_run, text)
    new = _DOLLARS_CENTS.sub(lambda m: f"${m.group(1)}.{int(m.group(2)):02d}", new)
    return (new, ["number words → digits"]) if new != text else (text, [])


def uniform(text: str) -> tuple[str, list[str]]:
    text, done = spelled(text)
    text, more = apply(text, UNIFORM)
    return text, done + more
