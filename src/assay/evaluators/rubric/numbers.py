"""Reading the numbers an answer states, and only those.

Dates, times, tickers, index names ("S&P 500"), list markers and unit quotes ("1美元兑…") are
numbers in the text but not values; each digit run is judged by what stands right next to it.
A value keeps the place of its last written digit (its quantum) because the rubric's rounding
rule depends on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from decimal import Decimal

from assay.core.lazy_pattern import lazy

from .words import FirstChar, any_in, first_chars, longest_first

# Full-width digits and signs to ASCII, one character for one, so spans stay valid in the
# original text. The full-width comma stays: in Chinese it separates clauses, never thousands.
_FULLWIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F) if c not in (0xFF0C,)}
# Every dash and minus to "-", odd blanks to " ", markdown emphasis and code marks to " ".
_FULLWIDTH.update({c: ord("-") for c in (0x2212, 0x2012, 0x2013, 0x2014, 0x2015, 0xFE63, 0x2796)})
_FULLWIDTH.update({c: ord(" ") for c in (0x3000, 0x00A0, 0x2007, 0x2009, 0x200A, 0x202F,
                                         0x2002, 0x2003)})
_FULLWIDTH.update({ord("*"): ord(" "), ord("`"): ord(" "), 0xFFE5: ord("¥"), 0x223C: ord("~"),
                   0x2248: ord("~"), 0x200B: ord(" ")})


# The characters _FULLWIDTH changes (not the full-width comma, which it keeps).
_NEEDS_TRANSLATION = re.compile("[\uff01-\uff0b\uff0d-\uff5e\u2212\u2012-\u2015\ufe63\u2796\u3000"
                                "\u00a0\u2007\u2009\u200a\u202f\u2002\u2003*`\uffe5"
                                "\u223c\u2248\u200b]")
# Patterns that start with the character they look for (and look behind it after) let the
# regex engine skip to that character instead of trying the pattern at every position.
_FW_THOUSANDS = re.compile(r"，(?<=\d，)(?=\d{3}(?!\d))")
# A thin or narrow no-break space, or an apostrophe, between digit groups: "25 247.10", "1'455"
_THIN_THOUSANDS = re.compile("[\u2009\u202f\u00a0'](?<=\\d[\u2009\u202f\u00a0'])"
                             "(?=\\d{3}(?!\\d))")


# European style: "6 629,07", "6.629,07" → "6,629.07"; a decimal comma before a unit ("−0,63 %")
_EURO = re.compile(r"(?<![\d.,])\d{1,3}(?:[ .]\d{3})+,\d{1,2}(?![\d,])")
# a comma before exactly two digits is no thousands separator: "1455,00", "−0,63 %"
_DECIMAL_COMMA = re.compile(r"(?<![\d.,])\d{1,6},\d{2}(?![\d,])|"
                            r"(?<![\d.,])\d{1,4},\d(?=\s?(?:%|pts?\b|points?\b|€|eur\b))",
                            re.IGNORECASE)
# "25 247", "$733 080", "4 255.9": blanks between groups of three digits
_SPACE_THOUSANDS = re.compile(r"(?<![\d.,:])\d{1,3}(?: \d{3})+(?:\.\d+)?(?![\d,])")


def _euro(m: re.Match[str]) -> str:
    body = m.group(0)
    head, _, tail = body.rpartition(",")
    return head.replace(" ", ",").replace(".", ",") + "." + tail


def normalise(text: str) -> str:
    """Full-width to ASCII, every dash to "-", markdown marks to blanks; digit-group separators
    in other styles ("１，４５６", "25 247.10", "1'455", "6 629,07") become "," and a decimal comma
    ".". Length is preserved, so spans found in the result hold in the original answer."""
    # of the characters to change only "*" and "`" are ASCII: an ASCII answer (most English
    # ones) needs no pass of the regex over it
    if ("*" in text or "`" in text or "'" in text) if text.isascii() else (
            _NEEDS_TRANSLATION.search(text) is not None or "'" in text):
        text = _THIN_THOUSANDS.sub(",", text)
        text = text.translate(_FULLWIDTH)
    if "，" in text:
        text = _FW_THOUSANDS.sub(",", text)
    if (" " in text or "," in text) and _MAY_GROUP.search(text) is not None:
        text = _GROUPS.sub(_group, text)
    return text


# What every _GROUPS match holds: digits around a blank, or a comma followed by one or two
# digits and no more ("1,455.00" and "1,455,000" hold neither: _GROUPS need not run over them)
_MAY_GROUP = re.compile(r"\d(?: \d|,\d\d?(?![\d,]))")


_GROUPS = re.compile(f"{_EURO.pattern}|{_SPACE_THOUSANDS.pattern}|{_DECIMAL_COMMA.pattern}",
                     re.IGNORECASE)


def _group(m: re.Match[str]) -> str:
    body = m.group(0)
    if _EURO.fullmatch(body):
        return _euro(m)
    if "," in body:  # a decimal comma before a unit
        return body.replace(",", ".")
    return body.replace(" ", ",")


# What makes a digit run "not a value" is visible right next to it: "年/月/日" or ":" after it,
# a month name or an index name before it, brackets around a code. Each run is judged by an
# anchored match on its right and an anchored match on its reversed left, a few `match()` calls
# per number instead of scanning the whole answer with large alternations.
_MONTH_WORDS = ("january", "february", "march", "april", "may", "june", "july", "august",
                "september", "october", "november", "december", "jan", "feb", "mar", "apr",
                "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec")
# Index names that carry a number ("S&P 500", "沪深300"): the number is part of the name only
# when it is one of the numbers such names carry ("Nasdaq 22,562" is a level).
_INDEX_WORDS = ("s&p", "标普", "标准普尔", "nasdaq", "纳斯达克", "纳指", "ftse", "富时", "csi", "沪深",
                "中证", "上证", "深证", "科创", "创业板", "创业板指", "nikkei", "日经", "dax", "cac",
                "russell", "罗素", "stoxx", "kospi", "msci", "恒生", "hang seng", "a", "a股",
                "中国a股", "kosdaq", "ibex", "asx", "sensex", "nifty", "北证", "hs")
_INDEX_NUMBERS = frozenset({"30", "40", "50", "100", "150", "180", "200", "225", "250", "300",
                            "380", "400", "500", "600", "800", "1000", "2000", "3000"})
_YEAR_WORDS = ("in", "of", "since", "during", "year", "fy", "fiscal year", "fiscal", "q1", "q2",
               "q3", "q4", "h1", "h2", "年")
_CCY_WORDS = ("美元", "美金", "港元", "港币", "欧元", "英镑", "日元", "人民币", "元", "韩元", "卢布",
              "兰特", "usd", "cny", "hkd", "eur", "jpy", "gbp", "dollar", "dollars", "盎司", "克")
_CLOCK_WORDS = ("上午", "下午", "凌晨", "晚上", "早上", "中午", "傍晚", "北京时间", "美东时间", "东八区",
                "晚间", "夜间", "今晨", "今早")


def _rev_words(words: tuple[str, ...]) -> str:
    """The words reversed, longest first (as a trie: `words.longest_first`)."""
    return longest_first([w[::-1] for w in words])


_MONTHS_R = _rev_words(_MONTH_WORDS)
_ORD_R = r"(?:ts|dn|dr|ht)?"  # st/nd/rd/th reversed
# Matched against the text to the LEFT of a run, reversed (so it starts right before the digits);
# only whether one matches counts, so each match tries only the alternatives that can start with
# the first non-blank character there (`words.FirstChar`; the backreferences are named for it).
_LEFT_REV = FirstChar(
    [
        rf"\s*\.?{_MONTHS_R}(?![a-z])",  # "Oct 17", "October 2025"
        rf"\s*,?\s*{_ORD_R}\d{{1,2}}\s+\.?{_MONTHS_R}(?![a-z])",  # "October 2, 2025"
        rf"\s*,?\s+\.?{_MONTHS_R}\s+(?:fo\s+)?{_ORD_R}\d{{1,2}}(?!\d)",  # "17 Oct 2025"
        r"\s*(?P<ld>[-/.])\s*\d{1,2}\s*(?P=ld)\s*\d{4}(?![\d.])",  # day of 2025-10-17
        r"\s*[-/]\s*\d{4}(?![\d.])|\.\d{4}(?![\d.])",  # month of 2025-10
        r"\s*(?P<ly>[-/.])\s*\d{1,2}\s*(?P=ly)\s*\d{1,2}(?![\d.])",  # year of 17/10/2025
        r"\s*/\s*\d{1,2}(?![\d.])",  # day of 10/17/2025
        r"\s*[:：]\s*\d{1,2}(?:\s*[:：]\s*\d{1,2})?(?!\d)",  # minutes/seconds of 23:22:05
        r"\s*[时点]\s*\d{1,2}(?!\d)",  # 15点30分
        r"\d\.",  # 1.2.3 sequences
        r"\s*[（(]",  # (600519)
        r"\s*[:：]?\s*(?:码代票股|码代|edoc|rekcit)(?![a-z])",  # 代码: 600519
        r"\s*\.on(?![a-z])|\s*#|\s*第",  # no. 5, #1, 第3
    ],
    re.IGNORECASE,
)
# An index name right before the number, not the end of a longer word ("csi 300", "沪深300",
# "的沪深300"). Compiled on first use: only a number an index name carries
# ("300", "500") needs it. It was written as two alternatives, the name followed (in the
# reversed text) by neither a letter nor a CJK character, or by a CJK character: together, by
# no letter, which is this one, without the two CJK ranges that cost ~20 M instructions to
# compile (tests/evaluators/rubric/test_index_left.py compares the two).
_INDEX_LEFT_REV = lazy(rf"\s*{_rev_words(_INDEX_WORDS)}(?![a-z])", re.IGNORECASE)
_CLOCK_LEFT_REV = re.compile(rf"\s*{_rev_words(_CLOCK_WORDS)}")
_YEAR_LEFT_REV = re.compile(rf"\s+{_rev_words(_YEAR_WORDS)}(?![a-z])", re.IGNORECASE)
# Units glued to a number that still leave it a value ("1.5bn", "100pts", "247.45USD").
_GLUED_UNITS = (r"(?!(?:bn|tn|mn|trn|pts?|pct|bps?|pips?|usd|hkd|cny|rmb|jpy|eur|gbp|yuan|"
                r"dollars?|points?|percent|k|m|b)(?![a-z]))")
# Matched against the text to the RIGHT of a run (whether one matches: `words.FirstChar`).
_RIGHT = FirstChar(
    [
        r"\s*[年月日号](?!元)",
        r"\s*[:：]\s*\d{2}",  # hour of 23:22
        r"\s*(?P<rd>[-/.])\s*\d{1,2}\s*(?P=rd)\s*(?:19|20)\d{2}(?!\d)",  # 10/17/2025, 17.10.2025
        r"\s*/\s*(?:19|20)\d{2}(?!\d)",  # 10/2025
        r"\s*[时点]\s*\d{1,2}\s*分",
        r"\s*[ap]\.?m\.?(?![a-z])",
        rf"{r'(?:st|nd|rd|th)?'}\s+(?:of\s+)?\.?(?:{'|'.join(_MONTH_WORDS)})(?![a-z])",
        r"\s*(?:分钟|秒|小时|个交易日|交易日|天|周|个月|年期|日均|日涨跌幅|指数|etf|只|家|倍|名|位|季度)",
        r"[-\s]?(?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|yr|quarters?)"
        r"(?![a-z])",
        r"-?(?:st|nd|rd|th)(?![a-z])",  # 1st, 2nd
        r"\.[a-z]",  # 600519.SH, 105.AAPL
        _GLUED_UNITS + r"[a-z]{2,}",  # 52wk-style glued words
        r"\s*[xX×](?![a-z])",  # multiples: 12.5x
        r"\s?[yY](?![a-z])",  # tenors: 10Y, 30Y
        r"[a-z]\d",  # "2s10s", "3q25": glued to a code
        # conversion ratios: "1 ADS = 8 shares", "1 A share converts into 1,500 B shares"
        r"\s*(?:ads|adrs?|[abh]\s?股|[abh][- ]shares?|ordinary shares?|shares?|股)\s*"
        r"(?:=|兑|可?转换为?|可?兑换|converts?\s+(?:in)?to|convertible\s+into|represents?)",
        rf"\s*(?:{'|'.join(_CCY_WORDS)})\s*(?:对|兑|=|可兑换|折合|兑换)",  # 1美元兑…
    ],
    re.IGNORECASE,
)
# After "元", "美元" or "港元" only the currency-quote alternative of _RIGHT can match, after
# "点" or "时" only the clock one: those two alone are tried there.
_RIGHT_CCY = re.compile(rf"\s*(?:{'|'.join(_CCY_WORDS)})\s*(?:对|兑|=|可兑换|折合|兑换)", re.IGNORECASE)
_RIGHT_CLOCK = re.compile(r"\s*[时点]\s*\d{1,2}\s*分", re.IGNORECASE)
_RIGHT_AFTER: dict[str, re.Pattern[str] | FirstChar | None] = {
    "元": _RIGHT_CCY, "美": _RIGHT_CCY, "港": _RIGHT_CCY, "点": _RIGHT_CLOCK, "时": _RIGHT_CLOCK}
# ... and neither where the words it needs are nowhere in the answer (a quote's 兑 / 对 / = /
# 折合, a clock's 分): `read_numbers` looks once per answer, not once per number
_NO_CCY: dict[str, re.Pattern[str] | FirstChar | None] = {"元": None, "美": None, "港": None}
_NO_CLOCK: dict[str, re.Pattern[str] | FirstChar | None] = {"点": None, "时": None}
_RIGHTS: dict[tuple[bool, bool], dict[str, re.Pattern[str] | FirstChar | None]] = {
    (True, True): {**_RIGHT_AFTER}, (True, False): {**_RIGHT_AFTER, **_NO_CLOCK},
    (False, True): {**_RIGHT_AFTER, **_NO_CCY}, (False, False): {**_NO_CCY, **_NO_CLOCK}}
# the rest of a date after its year: 2025-10-17, 2025.10.17, 2025-10
_YEAR_RIGHT = re.compile(r"\s*([-/.])\s*\d{1,2}\s*\1\s*\d{1,2}(?!\d)|\s*[-/]\s*\d{1,2}(?![\d.])")
# The characters a _RIGHT match can start with (besides ASCII letters), and those a _LEFT_REV
# match can end with: a number followed by "%", "亿" or "，" needs neither test.
_RIGHT_FIRST = frozenset(" \t\n年月日号-/.:：时点分秒小个交天周指只家倍名位季股美港欧英人元韩卢兰盎克×")
_LEFT_FIRST = frozenset(" \t\n.-/:：时点(（码#第,")
_CODE_CLOSE = re.compile(r"(?:\.[A-Za-z]+)?\s*[)）]")
_LIST_CLOSE = re.compile(r"\s*[.、)）](?!\d)")
_YYYYMMDD = re.compile(r"(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])")
_WINDOW = 24


def _not_a_value(text: str, start: int, end: int, raw: str,
                 rights: dict[str, re.Pattern[str] | FirstChar | None] | None = None) -> bool:
    """True when the digit run text[start:end] is part of a date, time, code, name or marker.
    `rights`: one of _RIGHTS, for the words `text` holds (None: _RIGHT_AFTER)."""
    nxt = text[end] if end < len(text) else ""
    if nxt and (nxt in _RIGHT_FIRST or (nxt.isascii() and nxt.isalpha())):
        right = (_RIGHT_AFTER if rights is None else rights).get(nxt, _RIGHT)
        if right is not None and right.match(text, end):
            return True
    if nxt == "." and end + 1 < len(text) and text[end + 1].isdigit():
        return True  # "2025.10.17", "1.2.3": a dotted sequence, not a decimal
    if len(raw) == 4 and raw[:2] in ("19", "20") and _YEAR_RIGHT.match(text, end):
        return True
    k = start - 1
    while k >= 0 and text[k] == " ":
        k -= 1
    prv = text[k] if k >= 0 else ""
    if not prv:
        left = ""
    elif prv in _LEFT_FIRST or (prv.isascii() and prv.isalnum()):
        left = text[start - _WINDOW if start > _WINDOW else 0:start][::-1]
    else:  # nothing a date, a time, a code or an index name ends with: only the index test
        left = "" if raw not in _INDEX_NUMBERS else \
            text[start - _WINDOW if start > _WINDOW else 0:start][::-1]
    if left:
        # "Au99.99: 981.02": a time's minutes have two digits, this is a value
        if _LEFT_REV.match(left) and not (len(raw) > 2 and left.lstrip()[:1] in ":："):
            # brackets only make a code of 4-6 digits that the closing bracket follows
            if left.lstrip()[:1] in "(（":
                return 4 <= len(raw) <= 6 and raw.isdigit() and bool(
                    _CODE_CLOSE.match(text, end))
            return True
        if raw in _INDEX_NUMBERS and _INDEX_LEFT_REV.match(left):
            return True
        if len(raw) <= 2 and end < len(text) and text[end] in "点时" and \
                _CLOCK_LEFT_REV.match(left):
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
            head = text[line_start:start].strip(" -|#>")
            if head in ("", "(", "（") and _LIST_CLOSE.match(text, end):
                return True
    return False


# "\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?" with its first digit taken out of the branches,
# so the engine skips to the next digit
_DIGITS = re.compile(r"\d(?:\d{0,2}(?:,\d{3})+(?:\.\d+)?|\d*(?:\.\d+)?)")
# After the digits: a scale, then a percent-like unit, a currency, a per-weight unit, points, a
# count unit; each optional, in the order people write them ("4699.46亿元", "968.75元/克").
# Each group looks ahead at its words' first characters (case-folded like the words), so a
# group that is not there fails in one test instead of one per word.
# [ \t]?, not \s?: a unit never stands on the next line ("1455.00元\n股息" is no count)
_SUFFIX = re.compile(
    r"(?P<mag>[ \t]?(?=[万千百亿tbmk])(?:万亿|千亿|百亿|亿|千万|百万|万|千|trillion|billion|million|thousand"
    r"|trn|bn|tn|mn)|(?:[kmb])(?![a-z]))?"
    r"(?P<pct>[ \t]?(?=[%个百pb基])(?:%|个百分点|百分点|percentage points?|pp(?![a-z])|percent|pct|个基点|"
    r"bps|bp|基点|pips?)(?![a-z]))?"
    r"(?P<cur>[ \t]?(?=[美港人日欧英韩元便uhcrjegdyp])"
    r"(?:美元|美金|港元|港币|人民币元|人民币|日元|欧元|英镑|韩元|元|"
    r"便士|usd|hkd|cny|rmb|jpy|eur|gbp|us dollars?|hk dollars?|dollars?|yuan|pence|p(?!\.m))"
    r"(?![a-z]))?"
    r"(?P<per>[ \t]?(?=[/每p])(?:/\s?(?:盎司|克|千克|公斤|吨|桶|oz|ounce|g|kg|gram|bbl|barrel|股)|"
    r"每(?:盎司|克|股)|per (?:troy )?(?:ounce|oz|gram|g|share|barrel))(?![a-z]))?"
    r"(?P<pts>[ \t]?(?=[点p])(?:点位|点|pts?|points?)(?![a-z]))?"
    r"(?P<cnt>[ \t]?(?=[股手oabhslc张份笔])(?:股|手|ordinary shares|[abh][- ]shares|shares|lots|张|"
    r"contracts|份|笔)(?![a-z]))?",
    re.IGNORECASE,
)
# The characters a non-empty _SUFFIX match starts with, after at most one blank or tab (every
# unit's first characters, in both cases): after anything else the suffix regex need not run
_SUFFIX_FIRST: frozenset[str] = first_chars(_SUFFIX) or frozenset()
assert _SUFFIX_FIRST and " " not in _SUFFIX_FIRST
_CODE_WORDS = frozenset({"usd", "hkd", "cny", "rmb"})
_CURRENCY_PREFIX_LOW = re.compile(r"(?:(?:us|hk|s|nt|a|c)?\$|rmb|usd|hkd|cny)\s?$")
_CURRENCY_PREFIX = re.compile(r"(?:(?:us|hk|s|nt|a|c)?\$|¥|€|£|rmb|usd|hkd|cny)\s?$",
                              re.IGNORECASE)
_QUANTA = [Decimal(1).scaleb(-n) for n in range(40)]
_ZERO = Decimal(0)  # compared with per value: against an int 0, each test would convert it

_MAGNITUDES = {
    "万亿": Decimal(10) ** 12, "千亿": Decimal(10) ** 11, "百亿": Decimal(10) ** 10,
    "亿": Decimal(10) ** 8, "千万": Decimal(10) ** 7, "百万": Decimal(10) ** 6,
    "万": Decimal(10) ** 4, "千": Decimal(10) ** 3, "trillion": Decimal(10) ** 12,
    "tn": Decimal(10) ** 12, "trn": Decimal(10) ** 12, "billion": Decimal(10) ** 9,
    "bn": Decimal(10) ** 9, "b": Decimal(10) ** 9, "million": Decimal(10) ** 6,
    "mn": Decimal(10) ** 6, "m": Decimal(10) ** 6, "thousand": Decimal(10) ** 3,
    "k": Decimal(10) ** 3,
}
_CURRENCY = {"美元": "USD", "美金": "USD", "usd": "USD", "us dollar": "USD", "us dollars": "USD",
             "us$": "USD", "港元": "HKD", "港币": "HKD", "hkd": "HKD", "hk$": "HKD",
             "hk dollar": "HKD", "hk dollars": "HKD", "人民币": "CNY", "人民币元": "CNY",
             "cny": "CNY", "rmb": "CNY", "yuan": "CNY", "¥": "CNY", "元": "CNY", "日元": "JPY",
             "jpy": "JPY", "欧元": "EUR", "eur": "EUR", "€": "EUR", "英镑": "GBP", "gbp": "GBP",
             "£": "GBP", "便士": "GBX", "pence": "GBX", "p": "GBX", "韩元": "KRW", "$": "$",
             "dollar": "$", "dollars": "$", "s$": "SGD",
             "nt$": "TWD", "a$": "AUD", "c$": "CAD"}
_PER = {"盎司": "oz", "oz": "oz", "ounce": "oz", "troy ounce": "oz", "克": "g", "g": "g",
        "gram": "g", "千克": "kg", "公斤": "kg", "kg": "kg", "吨": "t", "桶": "bbl", "bbl": "bbl",
        "barrel": "bbl", "股": "share", "share": "share"}
_QUOTED = ("港元", "港币", "日元", "美元", "欧元", "英镑", "韩元", "HKD", "JPY", "USD", "EUR", "GBP",
           "KRW", "hkd", "jpy", "usd", "eur", "gbp", "krw", "yen")
_NOUN = re.compile(r"\s+([a-z]{3,}s)\b", re.IGNORECASE)
_NOT_COUNT = frozenset({"points", "dollars", "percents", "bps", "pips", "yuans", "pts", "cents",
                        "ounces", "grams", "barrels", "levels", "highs", "lows", "basis",
                        "times", "tons", "kgs"})
_UNIT_QUOTE = re.compile(r"(?<![\d.])(10|100|1000|10000)\s*(?:港元|港币|日元|美元|欧元|英镑|韩元|hkd|jpy|"
                         r"usd|eur|gbp|krw|yen)\s*(?:兑|对|=|:|：|折合|可兑换|兑换)\s*(?:人民币)?\s*$",
                         re.IGNORECASE)
# Words before a value: a bound ("超过", "above") or a hedge ("约", "about").
_LEAD_BOUND = ("逾", "超", "超过", "不到", "高于", "低于", "above", "below", "over", "under", "more than",
               "less than", "at least", "at most", "up to",
               # a value denied ("不是106.60元，而是106.96元", "not $249.34 but …") or a level
               # crossed ("失守3900点", "守住1460元", "跌破", "站上"): not what the answer states
               "不是", "并非", "而非", "并不是", "not", "not at", "isn't", "isn't at", "wasn't",
               "wasn't at", "rather than", "instead of", "失守", "跌破",
               "突破", "站上", "站稳", "守住", "收复", "失守了", "跌穿", "升穿", "升破", "broke below",
               "broke above", "fell below", "rose above")
_LEAD_APPROX = ("约", "大约", "近", "接近", "将近", "差不多", "about", "around", "approximately",
                "approx.", "approx", "roughly", "nearly", "almost", "some", "~")
# Words before a value, matched against the text before it reversed (one anchored try): a
# bound ("超过", "above": not a value) or a hedge ("约", "about").
_LEAD_REV = re.compile(rf"\s*(?:(?P<bound>{_rev_words(_LEAD_BOUND)})|"
                       rf"(?P<approx>{_rev_words(_LEAD_APPROX)}))(?![a-z])", re.IGNORECASE)
_LEAD_TAILS = frozenset("逾超过到于约近差~tdyewrnoxsT.DYEWRNOXS是非守破上稳住复了穿fF")
_BOUND_AFTER = re.compile(r"\s*(?:以上|以下|之上|之下|上方|下方)")


# Not frozen, like the other records the reader builds per answer (Bound, Name, Unit …):
# a frozen dataclass's __init__ pays an object.__setattr__ per field, a fifth of the
# reading time on short answers. None is changed after it is built.
@dataclass(slots=True)
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
    currency: str = ""  # "USD", "HKD", "CNY", … or "$" (a dollar sign of no stated country)
    per: str = ""  # "oz", "g", "share" …: a price per weight (元/克, 美元/盎司)
    points: bool = False  # written with 点 / pts / points
    count: bool = False  # a number of shares, lots, contracts
    scaled: bool = False  # written with 万/亿/billion …
    approx: bool = False  # "约", "about", "~"
    bound: bool = False  # "超过", "above", "以上": a bound, not a value
    range_with: int = -1  # index of the other end when this is one end of "a - b" / "a至b"

    @property
    def kind(self) -> str:
        if self.percent:
            return "percent"
        if self.unit:
            return self.unit
        if self.count:
            return "count"
        if self.points:
            return "points"
        if self.scaled:
            return "money" if self.currency else "scaled"
        return "price" if self.currency or self.per else "number"


# The characters a currency mark, a currency code or a sign can end with (and the blank).
_PREFIX_TAILS = frozenset(" $¥€£+-dybDYB")


def _skip_blank(text: str, k: int) -> int:
    return k - 1 if k > 0 and text[k - 1] == " " else k


def _prefix(text: str, ns: int) -> tuple[int, str, str]:
    """Look back from the digits over a currency mark ("$", "HK$ ", "¥", "USD ") and a +/- sign,
    each possibly followed by one blank: (where the mention starts, the currency, the sign)."""
    if ns == 0:
        return ns, "", ""
    if text[ns - 1] not in _PREFIX_TAILS and (text[ns - 1].isascii()
                                              or "\u4e00" <= text[ns - 1] <= "\u9fff"):
        return ns, "", ""  # no blank, currency mark, code ("usd") or sign before the digits
    start = ns
    cur = ""
    k = ns - 1
    if k >= 0 and text[k] == " ":
        k -= 1
    # a currency mark ends right before the digits (or one blank before them)
    m = None
    if k >= 0 and (text[k] in "$¥€£" or text[max(0, k - 2):k + 1].lower() in _CODE_WORDS):
        head = text[max(0, ns - 5):ns]
        # an ASCII head (no ¥ € £) is searched lower-cased, case-sensitively: the engine then
        # skips to a candidate character (same spans: .lower() keeps an ASCII text's length)
        m = _CURRENCY_PREFIX_LOW.search(head.lower()) if head.isascii() \
            else _CURRENCY_PREFIX.search(head)
    if m is not None:
        word = m.group(0).strip().lower()
        if word[:1].isalpha() and m.start() > 0 and head[m.start() - 1].isalpha():
            pass  # "…cusd" is a word, not a currency
        else:
            cur = _CURRENCY.get(word, "$")
            start = ns - (len(head) - m.start())
    k = _skip_blank(text, start)
    if k > 0 and text[k - 1] in "+-":
        pre = text[k - 2] if k >= 2 else ""
        if not (pre.isdigit() or pre == "."):  # "7.18-7.19" is a range, not a sign
            return k - 1, cur, text[k - 1]
    return start, cur, ""


def read_numbers(text: str, codes: list[tuple[int, int]] | None = None) -> list[Mention]:
    """Every value in `text` (already normalised), in order, with dates and codes skipped.
    `codes` collects the digit runs that may be instrument codes (five or six digits)."""
    out: list[Mention] = []
    conversion = "兑" in text or "对" in text or "=" in text or "折合" in text
    quotes = (conversion or ":" in text or "：" in text) and any_in(_QUOTED, text)
    rights = _RIGHTS[conversion, "分" in text]
    for m in _DIGITS.finditer(text):
        ns, ne = m.span()
        raw = m.group(0)
        if codes is not None and 5 <= len(raw) <= 6 and raw.isdigit():
            codes.append((ns, ne))
        if _not_a_value(text, ns, ne, raw, rights):
            continue
        # _prefix's first test, here: most numbers have nothing before them to read
        c = text[ns - 1] if ns else ""
        if not c or (c not in _PREFIX_TAILS and (c.isascii() or "\u4e00" <= c <= "\u9fff")):
            start, cur, sign = ns, "", ""
        else:
            start, cur, sign = _prefix(text, ns)
        # Digits glued to letters on either side are part of an identifier ("A50", "3M").
        if c.isascii() and c.isalpha() and not cur:  # c: the character before the digits
            continue
        if "," in raw:
            raw = raw.replace(",", "")
        dot = raw.find(".")
        places = len(raw) - dot - 1 if dot >= 0 else 0
        quantum = _QUANTA[places] if places < len(_QUANTA) else Decimal(1).scaleb(-places)
        value = Decimal(raw)
        end = ne
        c = text[ne] if ne < len(text) else ""
        if c == " " or c == "\t":
            c = text[ne + 1] if ne + 1 < len(text) else ""
        suffix = _SUFFIX.match(text, ne) if c in _SUFFIX_FIRST else None
        mag = pct_text = ""
        per = ""
        points = count = False
        if suffix is not None and suffix.end() > ne:
            mag_t, pct_t, cur_t, per_t, pts_t, cnt_t = suffix.groups()
            # the span covers the number, its scale and its percent sign; units after it are
            # read but left out, so evidence quotes the value as written
            end = max(suffix.end(1), suffix.end(2), ne)
            if mag_t:
                mag = mag_t.strip().lower()
            if pct_t:
                pct_text = pct_t.strip().lower()
            if cur_t:
                cur = _CURRENCY.get(cur_t.strip().lower(), "$")
            if per_t:
                per_text = per_t.strip().lower()
                per = _PER.get(per_text.lstrip("/每").strip().removeprefix("per ")
                               .removeprefix("troy ").strip(), per_text)
            points = pts_t is not None
            count = cnt_t is not None
        if mag:
            factor = _MAGNITUDES[mag]
            value *= factor
            quantum *= factor
        percent = pct_text in {"%", "percent", "pct"}
        unit = "" if not pct_text or percent else (
            "pp" if ("百分点" in pct_text or "percentage" in pct_text or pct_text == "pp")
            else "bp")
        if sign == "-":
            value = -value
        if not (pct_text or mag or cur or per or points or count) and \
                text[ne:ne + 1] == " " and text[ne + 1:ne + 2].isalpha():
            noun = _NOUN.match(text, ne)
            count = noun is not None and noun.group(1).lower() not in _NOT_COUNT
        if quotes:
            unit_quote = _UNIT_QUOTE.search(text, max(0, start - 16), start)
            if unit_quote is not None:  # "100港元兑91.32元": per 100 units
                per_units = Decimal(unit_quote.group(1))
                value /= per_units
                quantum /= per_units
        k = start - 1
        while k >= 0 and text[k] == " ":
            k -= 1
        lead = _LEAD_REV.match(text[start - 16 if start > 16 else 0:start][::-1]) \
            if k >= 0 and text[k] in _LEAD_TAILS else None
        approx = lead is not None and lead.group("approx") is not None
        after = suffix.end() if suffix is not None else end
        bound = (lead is not None and lead.group("bound") is not None) or (
            text[after:after + 2].strip()[:1] in ("以", "之", "上", "下") and
            bool(_BOUND_AFTER.match(text, after)))
        out.append(Mention(start, end, text[start:end].strip(), value, quantum, percent,
                           bool(sign), unit, cur, per, points, count, bool(mag), approx, bound))
    return _ranges(text, out)


# "88.20 - 91.05", "7.18-7.19", "1450至1460元", "3800~3900点", "between 98.10 and 141.77"
_RANGE_GAP = re.compile(r"(?:-|~|至|到|to|and)", re.IGNORECASE)
_RANGE_WORD = re.compile(r"(?:range|区间|between|介于|在)\W*$", re.IGNORECASE)


def _ranges(text: str, found: list[Mention]) -> list[Mention]:
    """Pair the two ends of a range. The second end's "-" is the range's dash, not a sign:
    "88.20 - 91.05" is not 88.20 and −91.05."""
    if len(found) < 2:
        return found  # nothing to pair
    out = list(found)
    for i in range(len(out) - 1):
        a, b = out[i], out[i + 1]
        if a.range_with >= 0 or a.percent != b.percent or a.unit != b.unit or a.value < _ZERO:
            continue
        gap = text[a.end:b.start]
        dash = b.signed and b.value < _ZERO and text[b.start] == "-"
        word = (gap + ("-" if dash else "")).strip().lower()
        if len(word) > 3 or not _RANGE_GAP.fullmatch(word):
            continue
        if word in ("to", "and") and not _RANGE_WORD.search(text[max(0, a.start - 12):a.start]):
            continue  # "rose from 100 to 105" is a move, "100 and 105" two values
        high = -b.value if dash else b.value
        if high < a.value:
            continue  # "3839.76 -76.47": a level and a signed change
        if dash:
            start = b.start + 1
            while start < b.end and text[start] == " ":
                start += 1
            b = replace(b, value=high, signed=False, start=start, text=text[start:b.end].strip())
        out[i] = replace(a, range_with=i + 1, currency=a.currency or b.currency,
                         per=a.per or b.per, points=a.points or b.points)
        out[i + 1] = replace(b, range_with=i, currency=b.currency or a.currency,
                             per=b.per or a.per, points=b.points or a.points)
    return out
