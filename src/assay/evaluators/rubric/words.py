"""The words that name a quantity, in answers and in the required-points line (zh and en).

Field names are the ground-truth vocabulary's (`assay.truth.vocabulary`): an answer's "最新价"
and a source's 最新价 / RT_LAST / exchange_rate all land on `last`. The few extra names below
exist only to absorb values an answer gives for quantities no question asks about (the
offshore rate beside the onshore one, the after-hours price …), so those values are never
mistaken for a required point.
"""

from __future__ import annotations

import re
import string
from typing import Any, Final

from assay.truth.vocabulary import (
    AM_FIX,
    ASK,
    BID,
    CHANGE,
    CHANGE_PCT,
    CLOSE,
    HIGH,
    LAST,
    LOW,
    MARKET_CAP,
    OPEN,
    PERCENT_FIELDS,
    PM_FIX,
    PREV_CLOSE,
    PRICE_FIELDS,
    RATE,
    TURNOVER,
    VOLUME,
    YIELD,
)

__all__ = ["AM_FIX", "ASK", "BID", "CHANGE", "CHANGE_PCT", "CLOSE", "HIGH", "LAST", "LOW",
           "MARKET_CAP", "OPEN", "PERCENT_FIELDS", "PM_FIX", "PREV_CLOSE", "PRICE_FIELDS", "RATE",
           "TURNOVER", "VOLUME", "YIELD"]

# Answer-only fields.
CENTRAL_PARITY: Final = "central_parity"
OFFSHORE: Final = "offshore"
ONSHORE: Final = "onshore"
EXTENDED: Final = "extended_hours"
# "前一交易日收于…", "closed yesterday at …": a close with a date. The written rules do not
# check dates, so it answers whichever of the close or the previous close is asked for.
DATED_CLOSE: Final = "dated_close"
DAY_RANGE: Final = "day_range"  # "日内区间 88.20 - 91.05": its ends are the low and the high
RANGE52: Final = "52_week"  # 52-week / year / all-time highs and lows
CONVERTED: Final = "converted"  # "约合204.5美元": the same value in another currency
OTHER: Final = "other"

NAMES_ZH: Final = {
    LAST: "最新价", OPEN: "开盘价", HIGH: "最高价", LOW: "最低价", PREV_CLOSE: "昨收", CLOSE: "收盘价",
    CHANGE: "涨跌额", CHANGE_PCT: "涨跌幅", MARKET_CAP: "总市值", VOLUME: "成交量",
    TURNOVER: "成交额", CENTRAL_PARITY: "中间价", OFFSHORE: "离岸价", ONSHORE: "在岸价", BID: "买入价",
    ASK: "卖出价", EXTENDED: "盘前/盘后价", AM_FIX: "早盘价", PM_FIX: "午盘价", YIELD: "收益率",
    RATE: "利率", RANGE52: "52周高低", DATED_CLOSE: "收盘价", DAY_RANGE: "日内区间",
    CONVERTED: "换算值", OTHER: "其他",
}
NAMES_EN: Final = {
    LAST: "latest price", OPEN: "open", HIGH: "high", LOW: "low", PREV_CLOSE: "previous close",
    CLOSE: "close", CHANGE: "change", CHANGE_PCT: "change percent", MARKET_CAP: "market value",
    VOLUME: "volume", TURNOVER: "turnover", CENTRAL_PARITY: "central parity",
    OFFSHORE: "offshore rate", ONSHORE: "onshore rate", BID: "bid", ASK: "ask",
    EXTENDED: "extended-hours price",
    AM_FIX: "morning fix", PM_FIX: "afternoon fix", YIELD: "yield", RATE: "interest rate",
    RANGE52: "52-week range", DATED_CLOSE: "close", DAY_RANGE: "day's range",
    CONVERTED: "converted value", OTHER: "other",
}


def display(field: str, lang: str) -> str:
    return (NAMES_ZH if lang == "zh" else NAMES_EN).get(field, field)


# --- words in answers -------------------------------------------------------------------------
# Direction words: they name a change and give it a sign. "跌至 / fell to" name a level instead
# and are listed under `last` (the longest match wins, so "跌至" beats "跌").
FALL_WORDS: Final = (
    "下跌", "下挫", "下滑", "下降", "回落", "走低", "跌幅", "跌", "降", "调降", "贬值", "收跌", "大跌",
    "重挫", "跳水", "低收", "▼", "↓", "fell", "fall", "falls", "falling", "down", "declined",
    "decline", "declines", "dropped", "drop", "drops", "lost", "loss", "lower", "decrease",
    "decreased", "slipped", "slid", "sank", "tumbled", "shed", "retreated", "eased", "dipped",
)
RISE_WORDS: Final = (
    "上涨", "上升", "走高", "上扬", "涨幅", "涨", "升", "调升", "升值", "收涨", "大涨", "飙升", "高收",
    "▲", "↑", "rose", "rise", "rises", "rising", "up", "gained", "gain", "gains", "increased",
    "increase", "climbed", "higher", "advanced", "added", "jumped", "surged", "rallied",
    "ticked up",
)

ANSWER_WORDS: Final[dict[str, tuple[str, ...]]] = {
    LAST: (
        "最新价", "最新价格", "最新股价", "最新报价", "股价", "价格", "现价", "收盘价", "收盘", "收报",
        "收于", "报收", "报", "最新报", "现报", "报价", "基准价", "基准价格", "汇率", "在岸汇率",
        "即期汇率", "点位", "收益率", "利率", "成交价", "结算价", "跌至",
        "涨至", "升至", "降至", "回落至", "回升至", "上涨至", "下跌至", "下挫至", "走低至", "走高至",
        "至", "指数", "最新收盘价", "最新点位", "最新汇率", "最新收益率", "最新利率", "收市价",
        "收市", "价", "金价", "最新", "最新为", "latest", "now", "currently", "美元兑人民币",
        "人民币兑美元", "price", "latest price",
        "last price", "closing price", "close", "closed at", "closed", "last", "trading at",
        "traded at", "trades at", "quoted at", "stands at", "stood at", "exchange rate", "rate",
        "level", "yield", "fell to", "rose to", "dropped to", "climbed to", "declined to",
        "slipped to", "to", "settled at", "ended at", "finished at", "index", "is at", "was at",
        "sits at", "last traded at", "last trade", "spot rate", "spot price", "quote",
        "share price", "stock price", "changed hands at", "change hands at", "changing hands at",
        "closing level", "closed the day at", "ended the day at",
        "benchmark price", "benchmark", "fixing price",
    ),
    OPEN: ("开盘价", "开盘", "今开", "开盘报", "开于", "开市价", "开市", "open", "opening price", "opened at",
           "opened", "opening", "open price", "opening level"),
    HIGH: ("最高价", "最高", "高位", "最高达到", "最高达", "日内最高", "高点", "最高点位", "最高点",
           "盘中最高", "冲高", "冲高至", "一度冲高至", "摸高", "高见", "最高见", "上探", "上探至",
           "最高触及", "日高", "high", "day high", "intraday high", "highest", "high of",
           "daily high", "session high", "peaked at", "hit a high of"),
    LOW: ("最低价", "最低", "低位", "最低达到", "最低达", "日内最低", "低点", "最低点位", "最低点",
          "盘中最低", "下探", "最低下探", "下探至", "探底", "低见", "最低见",
          "最低触及", "日低", "low", "day low", "intraday low", "lowest", "low of",
          "daily low", "session low", "hit a low of", "bottomed at"),
    PREV_CLOSE: ("昨收", "昨收价", "前收盘", "前收盘价", "前收", "前收市价", "前收市", "昨结", "昨日结算价",
                 "昨结算",
                 "previous close", "prior close", "previous closing price", "prev close", "prev",
                 "prev.",
                 "previous settlement", "prior settlement", "prior settle", "pre-close"),
    DATED_CLOSE: ("昨日收盘", "昨日收盘价", "前一交易日收盘", "前一交易日收盘价", "上一交易日收盘",
                  "上一交易日收盘价", "前一日收盘价", "上个交易日收盘价", "前一交易日收于", "昨日收于",
                  "昨天收盘价", "昨收于", "昨日收报", "前一交易日收报", "上一交易日收于",
                  "yesterday's close", "previous day's close", "prior day's close",
                  "previous session's close", "closed yesterday at", "the day before",
                  "last close", "last closing price", "most recent close"),
    CHANGE: ("涨跌额", "涨跌", "升跌", "变动", "change", "changed", "net change", "chg", "net chg",
             *FALL_WORDS,
             *RISE_WORDS),
    CHANGE_PCT: ("涨跌幅", "涨跌幅度", "变动幅度", "change percent", "percent change",
                 "percentage change", "change percentage", "pct change", "% change", "chg%",
                 "pct chg", "chg pct", "升跌幅",
                 "涨跌百分比"),
    MARKET_CAP: ("总市值", "市值", "market cap", "market capitalization", "market value",
                 "market capitalisation", "mkt cap"),
    VOLUME: ("成交量", "交易量", "volume", "trading volume", "shares traded", "vol"),
    TURNOVER: ("成交额", "成交金额", "交易额", "turnover", "trading value", "value traded"),
    CENTRAL_PARITY: ("中间价", "中间汇率", "中间价报", "central parity", "fixing", "midpoint rate",
                     "central rate", "midpoint", "parity rate", "daily fix"),
    OFFSHORE: ("离岸", "离岸价", "离岸汇率", "离岸人民币", "offshore", "cnh", "offshore yuan",
               "offshore rate"),
    ONSHORE: ("在岸", "在岸价", "在岸汇率", "在岸人民币", "在岸价格", "onshore", "onshore rate",
              "onshore yuan"),
    BID: ("买入价", "买价", "买报价", "买入汇率", "bid", "bid price"),
    ASK: ("卖出价", "卖价", "卖报价", "卖出汇率", "ask", "offer", "ask price", "offer price"),
    EXTENDED: ("盘后", "盘后价", "盘前", "盘前价", "夜盘", "after-hours", "after hours",
               "pre-market", "premarket", "extended hours", "extended-hours", "extended trading",
               "overnight"),
    AM_FIX: ("早盘价", "早盘基准价", "上午基准价", "早盘价格", "早盘", "早盘报", "morning fix", "am fix",
             "morning benchmark", "morning price"),
    PM_FIX: ("午盘价", "晚盘价", "午盘基准价", "下午基准价", "午盘价格", "晚盘基准价", "午盘", "晚盘",
             "午盘报", "afternoon fix",
             "pm fix", "afternoon benchmark", "afternoon price"),
    RANGE52: ("52周", "52-week", "52 week", "52wk", "一年内", "年内最高", "年内最低", "历史最高",
              "历史最低", "历史高点", "历史新高", "all-time high", "all-time low", "record high",
              "record low", "year-to-date high", "ytd high", "年初至今最高", "52周最高",
              "52周最低", "52-week high", "52-week low", "52-week range", "52周区间",
              "fifty-two-week"),
    DAY_RANGE: ("区间", "日内区间", "波动区间", "交易区间", "价格区间", "盘中区间", "日内波动区间", "range",
                "day's range", "day range", "intraday range", "trading range", "daily range",
                "price range", "session range",
                # a trade verb with "between" names the day's range, whatever field word came
                # before it: "opened at $47.54 and traded between $45.74 and $47.88"
                "traded between", "trading between", "trades between", "traded in a range of",
                "ranged between", "moved between", "fluctuated between",
                "swung between", "oscillated between", "varied between", "波动于", "交投于"),
    CONVERTED: ("约合", "折合", "折算", "相当于", "合人民币", "合港元", "合美元", "换算", "equivalent to",
                "equivalent", "converted", "or about"),
    OTHER: ("振幅", "换手率", "市盈率", "市净率", "量比", "股息率", "股息收益率", "分红收益率", "截至",
            "as of", "from", "compared to", "compared with", "relative to", "versus", "vs",
            "前一交易日", "目标价", "target price", "price target", "target", "均价", "average",
            "成交均价", "均线", "moving average", "ma", "支撑", "阻力", "support", "resistance",
            "dividend yield", "yield on dividends", "earnings yield", "p/e", "pe", "pb", "eps",
            "每股收益", "营收", "revenue", "净利润", "net income", "profit", "转换", "converts",
            "conversion", "ratio", "比例", "估值", "valuation", "持仓量", "open interest", "涨停",
            "跌停", "limit up", "limit down", "涨停价", "跌停价", "turnover rate", "amplitude",
            "流通市值", "float", "free float", "年初至今", "ytd", "year-to-date",
            "预计", "预期", "forecast", "expected", "estimate", "consensus", "有望", "目标",
            "beta", "rsi", "macd", "股本", "shares outstanding", "总股本", "流通股", "per share",
            "每股", "派息", "dividend", "分红", "利润", "收入", "毛利率", "margin", "pct of",
            "美元指数", "dollar index", "dxy", "中间价较", "人民币中间价较", "利差", "期限利差",
            "spread", "real yield", "breakeven", "tips", "实际收益率", "通胀预期", "占比", "家数",
            "贴水", "升水", "basis", "基差", "较上日", "较前日", "较昨日", "较前一日", "较前一交易日",
            "较上一交易日", "较上周", "较上月", "上日", "前日", "from a day earlier", "delivered",
            "交付", "deliveries", "销量", "sales",
            "相差", "difference", "gap", "below", "above", "低于", "高于"),
}

# The base a change is measured from: "较昨日结算价4,304.6下跌48.7", "down 12 from yesterday's
# close of 512.30". A comparison word and the close word after it are one word, so "较昨日"
# does not hide "昨日结算价" (leaving "结算价" to read as the latest), and a dated close used
# as the base is the previous close, never the answer's close.
_COMPARE_ZH: Final = ("较", "相比", "相较", "对比", "比")
_COMPARE_EN: Final = ("from", "vs", "vs.", "versus", "compared with", "compared to",
                      "relative to")


def _compared(words: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for w in words:
        if w.isascii():
            out += [f"{c} {a}{w}" for c in _COMPARE_EN for a in ("", "the ", "a ")]
        else:
            out += [c + w for c in _COMPARE_ZH]
    return tuple(out)


ANSWER_WORDS[PREV_CLOSE] += _compared(ANSWER_WORDS[PREV_CLOSE] + ANSWER_WORDS[DATED_CLOSE])

# Words that, earlier in the same clause, turn a bound `last` into another field:
# "离岸人民币汇率 7.20" is the offshore rate even though "汇率" is nearer to the number.
QUALIFIERS: Final[dict[str, str]] = {
    "离岸": OFFSHORE, "offshore": OFFSHORE, "cnh": OFFSHORE, "在岸": ONSHORE, "onshore": ONSHORE,
    "中间价": CENTRAL_PARITY,
    "central parity": CENTRAL_PARITY, "fixing": CENTRAL_PARITY, "盘后": EXTENDED,
    "盘前": EXTENDED, "after-hours": EXTENDED, "after hours": EXTENDED,
    "pre-market": EXTENDED, "premarket": EXTENDED, "extended hours": EXTENDED,
    "extended trading": EXTENDED, "overnight": EXTENDED, "买入": BID, "卖出": ASK,
    "目标价": OTHER,
    "target": OTHER, "52周": RANGE52, "52-week": RANGE52, "52 week": RANGE52, "52wk": RANGE52,
    "历史": RANGE52, "all-time": RANGE52, "record": RANGE52, "年内": RANGE52, "一年内": RANGE52,
    "年初至今": OTHER, "ytd": OTHER, "year-to-date": OTHER, "均价": OTHER, "average": OTHER,
    "预计": OTHER, "预期": OTHER, "forecast": OTHER, "expected": OTHER, "estimate": OTHER,
    "涨停": OTHER, "跌停": OTHER, "limit": OTHER, "一度": OTHER, "at one point": OTHER,
    "盘中一度": OTHER,
}
# Words that put a change or a level in another period than the day: "up 20% this year".
PERIODS: Final = (
    "年初至今", "今年以来", "年内", "本周", "本月", "近一周", "近一个月", "近一月", "近一年", "过去一周",
    "过去一个月", "过去一年", "近5日", "近五日", "5日", "五日", "本年", "今年", "上周", "上月", "去年",
    "ytd", "year-to-date", "this year", "累计", "年初以来", "今年来", "ytd累计", "this week", "this month",
    "past week", "past month",
    "past year", "last week", "last month", "last year", "since january", "year to date",
    "over the week", "over the month", "for the week", "for the month", "for the year",
    "52-week", "52 week", "52周", "five-day", "5-day", "one-year", "12-month",
)

FALL_SET: Final = frozenset(w.lower() for w in FALL_WORDS)
RISE_SET: Final = frozenset(w.lower() for w in RISE_WORDS)
# "涨跌幅 / 涨幅 / 跌幅" are percent words even without a % sign after the number.
PCT_WORDS: Final = frozenset({"涨跌幅", "涨跌幅度", "涨幅", "跌幅", "变动幅度", "涨跌百分比", "chg%"})

# --- words in the required-points line ------------------------------------------------------
REQUIRED_WORDS: Final[dict[str, tuple[str, ...]]] = {
    LAST: ("最新价", "最新价格", "最新股价", "股价", "价格", "现价", "收盘价", "收盘", "基准价",
           "基准价格", "汇率", "点位", "指数", "收益率", "利率", "报价", "price", "close",
           "closing price", "exchange rate", "rate", "level", "index", "yield", "quote",
           "closing level", "benchmark price"),
    OPEN: ("开盘价", "开盘", "今开", "开盘点位", "open", "opening price", "opening",
           "opening level"),
    HIGH: ("最高价", "最高", "最高点位", "最高点", "high", "high price", "highest", "high level"),
    LOW: ("最低价", "最低", "最低点位", "最低点", "low", "low price", "lowest", "low level"),
    PREV_CLOSE: ("昨收", "昨收价", "昨日收盘价", "前收盘价", "前一交易日收盘价",
                 "previous close", "previous closing price", "prior close"),
    CHANGE: ("涨跌额", "change amount", "price change", "net change"),
    CHANGE_PCT: ("涨跌幅", "涨跌幅度", "涨幅", "跌幅", "change percentage", "change percent",
                 "percentage change", "percent change", "pct change"),
    MARKET_CAP: ("总市值", "市值", "market cap", "market capitalization", "market value"),
    VOLUME: ("成交量", "trading volume", "volume"),
    TURNOVER: ("成交额", "成交金额", "turnover"),
    CENTRAL_PARITY: ("中间价", "central parity"),
    AM_FIX: ("早盘价", "早盘基准价"),
    PM_FIX: ("午盘价", "晚盘价"),
}


# The characters with a meaning in a pattern outside a class (VERBOSE's blanks and "#" aside:
# these patterns are never compiled with it). `re.escape` escapes blanks, "-", "&" and "~" too,
# which changes nothing compiled but costs the parser (in Python) a call per escape: written
# plainly, the lexer's ASCII vocabulary takes 2 % fewer instructions to compile (117 → 115 M).
_SPECIAL: Final = frozenset("\\.^$*+?{}[]|()")


def literal(text: str) -> str:
    """`text` as a pattern that matches it, outside a class: `re.escape` of the characters
    with a meaning there only."""
    if _SPECIAL.isdisjoint(text):
        return text
    return "".join("\\" + c if c in _SPECIAL else c for c in text)


def _trie_pattern(words: list[str]) -> str:
    """A regex equivalent to `w1|w2|…` that prefers the longest word, written as a trie.

    Python's `re` tries each branch of a flat alternation at every position; with ~300 words
    that was most of the rubric's time. A trie shares prefixes, so each position costs a few
    character tests."""
    trie: dict[str, dict] = {}  # type: ignore[type-arg]
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:  # type: ignore[type-arg]
        # a run of nodes with one child each and no word ending there (most of a trie's
        # nodes): their characters in a row, without a call and a list per character
        head = ""
        while len(node) == 1:
            ch = next(iter(node))
            if not ch:
                return head
            head += literal(ch)
            node = node[ch]
        ends = "" in node
        branches = [literal(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return head
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if ends:
            # Greedy `?` keeps longest-match: the longer branch is tried before stopping here.
            return head + ("(?:" + body + ")?" if len(branches) == 1 else body + "?")
        return head + body

    return emit(trie)


def alternation(words: dict[str, tuple[str, ...]]) -> tuple[re.Pattern[str], dict[str, str]]:
    """One regex over all words, longest match first, so '开盘价' wins over '价' and
    'opening price' over 'price'. ASCII words match whole words only ('up' must not match
    inside 'update'). Callers pass lower-cased text: matching without IGNORECASE is faster."""
    owner: dict[str, str] = {}
    for field, ws in words.items():
        for w in ws:
            owner.setdefault(w.lower(), field)
    ascii_words = [w for w in owner if w.isascii() and w[0].isalnum()]
    other_words = [w for w in owner if not (w.isascii() and w[0].isalnum())]
    parts = []
    # Each branch starts with a class of its words' first characters: the engine tests a
    # class in one step, where it would try each first character of a trie in turn (three
    # times faster on Chinese text).
    if ascii_words:
        parts.append(_first_chars(ascii_words) + r"(?<![A-Za-z])(?:" + _trie_pattern(ascii_words)
                     + r")(?![A-Za-z])")
    if other_words:
        parts.append(_first_chars(other_words) + "(?:" + _trie_pattern(other_words) + ")")
    return re.compile("|".join(parts)), owner


def led_by_first(words: list[str], boundary: bool, order: str = "") -> str:
    """The alternation of `words`, longest match first, as one alternative per first character,
    each led by its character: the regex then starts with a set of characters, so the engine
    skips to a candidate, and it drops an alternative in one test. `boundary`: ASCII words,
    whole words only (the start tested after the first character: "c(?<![A-Za-z]c)…").
    `order`: characters whose alternatives come first (the common ones); alternatives of
    different characters never match at the same place, so their order changes no match."""
    rank = {c: k for k, c in enumerate(order)}
    by_first: dict[str, list[str]] = {}  # the words' rests, by first character, in one pass
    for w in words:
        by_first.setdefault(w[0], []).append(w[1:])
    alts = []
    for c in sorted(by_first, key=lambda c: (rank.get(c, len(rank)), c)):
        rest = by_first[c]
        body = _trie_pattern([r for r in rest if r]) if any(rest) else ""
        tail = (f"(?:{body})?" if body else "") if "" in rest else f"(?:{body})"
        e = literal(c)
        alts.append(f"{e}(?<![A-Za-z]{e}){tail}(?![A-Za-z])" if boundary else f"{e}{tail}")
    return "|".join(alts)


def _first_chars(words: list[str]) -> str:
    return "(?=[" + "".join(sorted({re.escape(w[0]) for w in words})) + "])"


def any_in(words: tuple[str, ...], text: str) -> bool:
    """Whether any of `words` is in `text`. A few `in` tests cost less than one regex search:
    a search's setup alone (state, match object) costs as much as a dozen of them."""
    for w in words:  # noqa: SIM110 - a loop, not any(<generator>): no generator per call
        if w in text:
            return True
    return False


# İ, ı and ſ are the only characters that IGNORECASE matches as an ASCII letter (i, s) while
# str.lower() gives something else (İ even two characters). In a text without them, a word of
# lower-case letters and caseless characters matches case-insensitively exactly where it
# stands in the text's .lower(), which is as long as the text.
_CASE_ODD = ("\u0130", "\u0131", "\u017f")


def lowers_plainly(text: str) -> bool:
    """Whether `text.lower()` is as long as `text` and holds a lower-case word exactly where an
    IGNORECASE search of `text` finds it (see _CASE_ODD)."""
    return text.isascii() or not any_in(_CASE_ODD, text)


def longest_first(words: list[str]) -> str:
    """A group that matches what `(?:w1|w2|…)` does with the words sorted longest first: of two
    words that both match at a position one is a prefix of the other, and the trie tries the
    longer first too. The engine tries a few branches per character instead of every word
    (with IGNORECASE it cannot skip a word's branch at its first character)."""
    return "(?:" + _trie_pattern(words) + ")"


class Blanker:
    """Each of `words` in a text replaced by as many blanks, found left to right, the longest at
    a place: what `re.sub(trie(words), <blanks as long as the match>, text)` gives, without a
    pattern. For word lists a run meets rarely: the trie of the reader's 222 Chinese fillers
    cost 26 M instructions to compile (each node's set of three or more single characters is
    a 65,536-entry map, built in Python) and served four values of the 99-item sample."""

    __slots__ = ("_by_first",)

    def __init__(self, words: list[str]) -> None:
        by_first: dict[str, list[str]] = {}
        for w in dict.fromkeys(words):  # each once, in order
            if w:
                by_first.setdefault(w[0], []).append(w)
        self._by_first = {c: tuple(sorted(ws, key=len, reverse=True))
                          for c, ws in by_first.items()}

    def blank(self, text: str) -> str:
        by_first = self._by_first
        parts: list[str] = []
        i, last, n = 0, 0, len(text)
        while i < n:
            for w in by_first.get(text[i], ()):
                if text.startswith(w, i):
                    parts += (text[last:i], " " * len(w))
                    i = last = i + len(w)
                    break
            else:
                i += 1
        if not parts:
            return text
        parts.append(text[last:])
        return "".join(parts)


def trie(words: list[str]) -> str:
    """A guarded trie over `words` (no word boundaries), for other modules' word lists."""
    return _first_chars(words) + "(?:" + _trie_pattern(words) + ")"


# (answers are read by the lexer's one regex over all vocabularies, `lexer.TOKENS`)
REQUIRED_RE, REQUIRED_OWNER = alternation(REQUIRED_WORDS)
QUALIFIER_RE, _ = alternation({k: (k,) for k in QUALIFIERS})

# Words that name the instrument ("恒生科技指数", "the S&P 500 index") as much as a quantity:
# they make `last` required only when no other field is named.
NAME_LIKE: Final = frozenset({"指数", "index"})


# Characters that IGNORECASE matches as an ASCII letter besides its two cases (see _CASE_ODD;
# the Kelvin sign K is a "k").
_ALSO_AS = {"i": "\u0130\u0131", "s": "\u017f", "k": "\u212a"}


def _cased(chars: set[str]) -> set[str] | None:
    """`chars` with the characters IGNORECASE matches them with; None where that is not known
    here (a non-ASCII letter with case: Greek σ / ς, µ / μ …)."""
    if any(not c.isascii() and c.lower() != c.upper() for c in chars):
        return None
    out = set(chars)
    for c in chars:
        out |= {c.lower(), c.upper(), *_ALSO_AS.get(c.lower(), "")}
    return {c for c in out if len(c) == 1}


def _first(items: Any) -> tuple[set[str] | None, bool]:
    """The characters the first non-blank character a match of the parsed `items` consumes
    can be (None: any), and whether a match may consume only blanks (or nothing). A superset:
    lookarounds are passed over, classes of categories are any character."""
    from re import _constants as C  # type: ignore[attr-defined]
    out: set[str] = set()
    for op, av in items:
        if op is C.LITERAL:
            ch = chr(av)
            if ch.isspace():
                continue
            cased = _cased({ch})
            if cased is None:
                return None, True
            return out | cased, False
        if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
            continue
        if op is C.IN:
            chars: set[str] = set()
            blank = False
            for iop, iav in av:
                if iop is C.LITERAL:
                    blank = blank or chr(iav).isspace()
                    chars.add(chr(iav))
                elif iop is C.RANGE and iav[1] - iav[0] < 512:
                    chars |= {chr(c) for c in range(iav[0], iav[1] + 1)}
                elif iop is C.CATEGORY and iav in (C.CATEGORY_SPACE, C.CATEGORY_UNI_SPACE):
                    blank = True
                else:
                    return None, True
            cased = _cased({c for c in chars if not c.isspace()})
            if cased is None:
                return None, True
            out |= cased
            if not blank:
                return out, False
            continue
        if op is C.BRANCH:
            blank = False
            for alt in av[1]:
                got, b = _first(alt)
                if got is None:
                    return None, True
                out |= got
                blank = blank or b
            if not blank:
                return out, False
            continue
        if op is C.SUBPATTERN or op is C.ATOMIC_GROUP:
            got, blank = _first(av[-1] if op is C.SUBPATTERN else av)
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            got, blank = _first(av[2])
            blank = blank or av[0] == 0
        else:
            return None, True
        if got is None:
            return None, True
        out |= got
        if not blank:
            return out, False
    return out, True


def first_chars(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """The characters the first non-blank character a match of `pattern` consumes can be (a
    superset; None: any)."""
    from re import _parser as P  # type: ignore[attr-defined]
    got, _ = _first(P.parse(pattern.pattern, pattern.flags).data)
    return None if got is None else frozenset(got)


class FirstChar:
    """`pattern.match(text, pos) is not None` for the alternation of `alternatives`, trying only
    those that can start with the first non-blank character at `pos` (with an ASCII letter:
    those that can start with any ASCII letter): an anchored match of a long alternation enters
    every branch (with IGNORECASE the engine cannot skip a branch at its first character), a
    dict lookup picks the few that can match. Backreferences must be named and the names unique
    (each alternative is compiled on its own or with a few others).

    Each character's pattern is compiled the first time a match starts with that character
    (the alternatives are read for their first characters then too): a run meets a few of them,
    and compiling them all was a third of `numbers`' import."""

    __slots__ = ("_alternatives", "_by", "_chars", "_compiled", "_firsts", "_flags")

    def __init__(self, alternatives: list[str], flags: int = 0) -> None:
        self._alternatives = alternatives
        self._flags = flags
        self._firsts: list[set[str] | None] | None = None
        self._chars: set[str] = set()
        self._compiled: dict[tuple[int, ...], re.Pattern[str] | None] = {}
        self._by: dict[str, re.Pattern[str] | None] = {}  # first character → its pattern

    def _pattern_for(self, c: str) -> re.Pattern[str] | None:
        """The alternatives that can start with `c` (those that can start with anything, where
        none names it), compiled as one pattern, and kept for `c` (for any character while
        few are kept, for those the alternatives name always)."""
        firsts = self._firsts
        if firsts is None:
            from re import _parser as P  # type: ignore[attr-defined]
            firsts = []
            for alt in self._alternatives:
                got, blank = _first(P.parse(alt, self._flags).data)
                firsts.append(None if got is None or blank else got)
            self._firsts = firsts
            self._chars = set().union(*(f for f in firsts if f is not None))
        if c in _ASCII_LETTERS:
            # one pattern for every ASCII letter: the alternatives that can start with any of
            # them. Per letter, the subsets differed by an alternative or two and each held the
            # month words, so a run compiled them again and again (7 and 11 patterns for the
            # sample, 0.11 G instructions); a letter's extra alternatives fail at their first
            # test, and a match is tried about once an item.
            keys = tuple(k for k, f in enumerate(firsts)
                         if f is None or not _ASCII_LETTERS.isdisjoint(f))
        else:
            keys = tuple(k for k, f in enumerate(firsts) if f is None or c in f)
        if keys not in self._compiled:
            self._compiled[keys] = re.compile(
                "|".join(self._alternatives[k] for k in keys), self._flags) if keys else None
        p = self._compiled[keys]
        if c in self._chars or len(self._by) < 1024:
            self._by[c] = p
        return p

    def match(self, text: str, pos: int = 0) -> bool:
        k, n = pos, len(text)
        while k < n and text[k].isspace():
            k += 1
        c = text[k] if k < n else ""
        p = self._by.get(c, _UNSEEN)
        if p is _UNSEEN:
            p = self._pattern_for(c)
        return p is not None and p.match(text, pos) is not None


_ASCII_LETTERS: Final = frozenset(string.ascii_letters)
_UNSEEN: Any = object()  # FirstChar: a first character whose pattern is not compiled yet
