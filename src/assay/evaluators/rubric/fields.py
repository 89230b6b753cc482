"""The quantities a T1 question can ask for, and the words that name them.

One vocabulary serves three readers: the required-points line of a rubric (必答点 / Required
Content), the student's answer, and the keys of the ground-truth payloads. Keeping the words in
one table is what makes "each value is tied to the field it speaks of" checkable.
"""

from __future__ import annotations

import re
from typing import Final

# Canonical fields. `last` is the headline quantity of the instrument: latest price, close,
# benchmark price, exchange rate, index level, yield.
LAST: Final = "last"
OPEN: Final = "open"
HIGH: Final = "high"
LOW: Final = "low"
PREV_CLOSE: Final = "prev_close"
CHANGE: Final = "change"
CHANGE_PCT: Final = "change_pct"
MARKET_CAP: Final = "market_cap"
VOLUME: Final = "volume"
TURNOVER: Final = "turnover"
# Fields that are never the answer to a T1 question by themselves but must absorb the numbers
# an answer gives for them, so those numbers are not mistaken for a required field.
CENTRAL_PARITY: Final = "central_parity"
OFFSHORE: Final = "offshore"
BID: Final = "bid"
ASK: Final = "ask"
EXTENDED: Final = "extended_hours"
AM_FIX: Final = "am_fix"
PM_FIX: Final = "pm_fix"
OTHER: Final = "other"

# Price-like fields: the ones a "within the day's high–low" rule speaks of.
PRICE_FIELDS: Final = frozenset({LAST, OPEN, HIGH, LOW, PREV_CLOSE, AM_FIX, PM_FIX})
# Fields in percent units: a tolerance written with % is in percentage points for them.
PERCENT_FIELDS: Final = frozenset({CHANGE_PCT})

NAMES_ZH: Final = {
    LAST: "最新价", OPEN: "开盘价", HIGH: "最高价", LOW: "最低价", PREV_CLOSE: "昨收",
    CHANGE: "涨跌额", CHANGE_PCT: "涨跌幅", MARKET_CAP: "总市值", VOLUME: "成交量",
    TURNOVER: "成交额", CENTRAL_PARITY: "中间价", OFFSHORE: "离岸价", BID: "买入价",
    ASK: "卖出价", EXTENDED: "盘前/盘后价", AM_FIX: "早盘价", PM_FIX: "午盘价", OTHER: "其他",
}
NAMES_EN: Final = {
    LAST: "latest price", OPEN: "open", HIGH: "high", LOW: "low", PREV_CLOSE: "previous close",
    CHANGE: "change", CHANGE_PCT: "change percent", MARKET_CAP: "market value",
    VOLUME: "volume", TURNOVER: "turnover", CENTRAL_PARITY: "central parity",
    OFFSHORE: "offshore rate", BID: "bid", ASK: "ask", EXTENDED: "extended-hours price",
    AM_FIX: "morning fix", PM_FIX: "afternoon fix", OTHER: "other",
}


def display(field: str, lang: str) -> str:
    return (NAMES_ZH if lang == "zh" else NAMES_EN).get(field, field)


# --- words in answers -------------------------------------------------------------------------
# Direction words: they name a change and give it a sign. "跌至 / fell to" name a level instead
# and are listed under `last` (the longest match wins, so "跌至" beats "跌").
FALL_WORDS: Final = (
    "下跌", "下挫", "下滑", "下降", "回落", "走低", "跌幅", "跌", "降", "调降", "贬值",
    "fell", "fall", "falls", "falling", "down", "declined", "decline", "declines", "dropped",
    "drop", "drops", "lost", "loss", "lower", "decrease", "decreased", "slipped", "slid",
)
RISE_WORDS: Final = (
    "上涨", "上升", "走高", "上扬", "涨幅", "涨", "升", "调升", "升值", "rose", "rise",
    "rises", "rising", "up", "gained", "gain", "gains", "increased", "increase", "climbed",
    "higher", "advanced", "added",
)

ANSWER_WORDS: Final[dict[str, tuple[str, ...]]] = {
    LAST: (
        "最新价", "最新价格", "最新股价", "最新报价", "股价", "价格", "现价", "收盘价", "收盘",
        "收报", "收于", "报收", "报", "基准价", "基准价格", "汇率", "在岸汇率", "在岸价",
        "即期汇率", "点位", "收益率", "利率", "成交价", "结算价", "跌至", "涨至", "升至", "降至",
        "回落至", "回升至", "上涨至", "下跌至", "下挫至", "走低至", "走高至", "至", "指数",
        "price", "latest price", "last price", "closing price", "close", "closed at", "closed",
        "last", "trading at", "traded at", "trades at", "quoted at", "stands at", "stood at",
        "exchange rate", "rate", "level", "yield", "fell to", "rose to", "dropped to",
        "climbed to", "declined to", "slipped to", "to", "settled at", "ended at", "finished at",
        "index",
    ),
    OPEN: ("开盘价", "开盘", "今开", "开盘报", "开于", "open", "opening price", "opened at",
           "opened", "opening", "open price"),
    HIGH: ("最高价", "最高", "最高达到", "最高达", "日内最高", "高点", "最高点位", "最高点",
           "high", "day high",
           "intraday high", "highest", "high of", "daily high"),
    LOW: ("最低价", "最低", "最低达到", "最低达", "日内最低", "低点", "最低点位", "最低点",
          "low", "day low",
          "intraday low", "lowest", "low of", "daily low"),
    PREV_CLOSE: ("昨收", "昨收价", "昨日收盘", "昨日收盘价", "前收盘", "前收盘价", "前收",
                 "前一交易日收盘", "前一交易日收盘价", "上一交易日收盘", "上一交易日收盘价",
                 "昨日结算价", "previous close", "prior close", "previous closing price",
                 "prev close", "yesterday's close", "previous day's close"),
    CHANGE: ("涨跌额", "涨跌", "变动", "change", "changed", "net change", *FALL_WORDS,
             *RISE_WORDS),
    CHANGE_PCT: ("涨跌幅", "涨跌幅度", "变动幅度", "change percent", "percent change",
                 "percentage change", "change percentage", "pct change", "% change"),
    MARKET_CAP: ("总市值", "市值", "market cap", "market capitalization", "market value"),
    VOLUME: ("成交量", "交易量", "volume", "trading volume"),
    TURNOVER: ("成交额", "成交金额", "交易额", "turnover", "trading value"),
    CENTRAL_PARITY: ("中间价", "中间汇率", "central parity", "fixing", "midpoint rate",
                     "central rate"),
    OFFSHORE: ("离岸", "离岸价", "离岸汇率", "离岸人民币", "offshore", "cnh"),
    BID: ("买入价", "买价", "买报价", "bid"),
    ASK: ("卖出价", "卖价", "卖报价", "ask", "offer"),
    EXTENDED: ("盘后", "盘后价", "盘前", "盘前价", "after-hours", "after hours", "pre-market",
               "premarket", "extended hours", "extended-hours"),
    AM_FIX: ("早盘价", "早盘基准价"),
    PM_FIX: ("午盘价", "晚盘价", "午盘基准价"),
    OTHER: ("振幅", "换手率", "市盈率", "市净率", "量比", "股息率", "截至", "as of", "from",
            "compared to", "compared with", "relative to", "versus", "vs", "前一交易日",
            "目标价", "target price", "52周", "52-week", "均价", "average", "成交均价"),
}

# Words that, earlier in the same clause, turn a bound `last` into another field:
# "离岸人民币汇率 7.20" is the offshore rate even though "汇率" is nearer to the number.
QUALIFIERS: Final[dict[str, str]] = {
    "离岸": OFFSHORE, "offshore": OFFSHORE, "中间价": CENTRAL_PARITY,
    "central parity": CENTRAL_PARITY, "盘后": EXTENDED, "盘前": EXTENDED,
    "after-hours": EXTENDED, "after hours": EXTENDED, "pre-market": EXTENDED,
    "premarket": EXTENDED, "买入": BID, "卖出": ASK, "昨日": PREV_CLOSE, "昨天": PREV_CLOSE,
    "yesterday": PREV_CLOSE, "目标价": OTHER, "target": OTHER,
}

FALL_SET: Final = frozenset(w.lower() for w in FALL_WORDS)
RISE_SET: Final = frozenset(w.lower() for w in RISE_WORDS)
# "涨跌幅 / 涨幅 / 跌幅" are percent words even without a % sign after the number.
PCT_WORDS: Final = frozenset({"涨跌幅", "涨跌幅度", "涨幅", "跌幅", "变动幅度"})

# --- words in the required-points line ------------------------------------------------------
REQUIRED_WORDS: Final[dict[str, tuple[str, ...]]] = {
    LAST: ("最新价", "最新价格", "最新股价", "股价", "价格", "现价", "收盘价", "收盘", "基准价",
           "基准价格", "汇率", "点位", "指数", "收益率", "利率", "报价", "price", "close",
           "closing price", "exchange rate", "rate", "level", "index", "yield", "quote"),
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


def _trie_pattern(words: list[str]) -> str:
    """A regex equivalent to `w1|w2|…` that prefers the longest word, written as a trie.

    Python's `re` tries each branch of a flat alternation at every position; with ~200 words
    that was most of the rubric's time. A trie shares prefixes, so each position costs a few
    character tests."""
    trie: dict[str, dict] = {}  # type: ignore[type-arg]
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:  # type: ignore[type-arg]
        ends = "" in node
        branches = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if ends:
            # Greedy `?` keeps longest-match: the longer branch is tried before stopping here.
            return "(?:" + body + ")?" if len(branches) == 1 else body + "?"
        return body

    return emit(trie)


def _alternation(words: dict[str, tuple[str, ...]]) -> tuple[re.Pattern[str], dict[str, str]]:
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
    if ascii_words:
        parts.append(r"(?<![A-Za-z])(?:" + _trie_pattern(ascii_words) + r")(?![A-Za-z])")
    if other_words:
        parts.append(_trie_pattern(other_words))
    return re.compile("|".join(parts)), owner


ANSWER_RE, ANSWER_OWNER = _alternation(ANSWER_WORDS)
REQUIRED_RE, REQUIRED_OWNER = _alternation(REQUIRED_WORDS)
QUALIFIER_RE, _ = _alternation({k: (k,) for k in QUALIFIERS})

# Words that name the instrument ("恒生科技指数", "the S&P 500 index") as much as a quantity:
# they make `last` required only when no other field is named.
NAME_LIKE: Final = frozenset({"指数", "index"})

# --- keys of ground-truth payloads ----------------------------------------------------------
TRUTH_KEYS: Final[dict[str, str]] = {
    # Wind real-time fields (w.wsq rt_*)
    "rt_last": LAST, "rt_open": OPEN, "rt_high": HIGH, "rt_low": LOW,
    "rt_pre_close": PREV_CLOSE, "rt_chg": CHANGE, "rt_pct_chg": CHANGE_PCT,
    "rt_mkt_cap": MARKET_CAP, "rt_vol": VOLUME, "rt_amt": TURNOVER, "rt_close": LAST,
    "rt_bid1": BID, "rt_ask1": ASK,
    # {"data": {...}} quote shape and yfinance fast_info
    "price": LAST, "last": LAST, "last_price": LAST, "close": LAST, "open": OPEN, "high": HIGH,
    "low": LOW, "previous_close": PREV_CLOSE, "prev_close": PREV_CLOSE, "change": CHANGE,
    "change_percent": CHANGE_PCT, "change_pct": CHANGE_PCT, "day_high": HIGH, "day_low": LOW,
    "market_cap": MARKET_CAP, "volume": VOLUME, "last_volume": VOLUME,
    # FX shape (CFETS-style)
    "exchange_rate": LAST, "exchange_rate_hi": HIGH, "exchange_rate_lo": LOW,
    "open_exchange_rate": OPEN, "pre_close_exchange_rate": PREV_CLOSE,
    "exchange_range": CHANGE, "exchange_per": CHANGE_PCT,
    # AKShare / East Money columns
    "最新价": LAST, "现价": LAST, "收盘价": LAST, "收盘": LAST, "今开": OPEN, "开盘价": OPEN,
    "开盘": OPEN, "最高": HIGH, "最高价": HIGH, "最低": LOW, "最低价": LOW, "昨收": PREV_CLOSE,
    "昨收价": PREV_CLOSE, "昨日结算价": PREV_CLOSE, "涨跌额": CHANGE, "涨跌幅": CHANGE_PCT,
    "总市值": MARKET_CAP, "成交量": VOLUME, "成交额": TURNOVER, "早盘价": AM_FIX,
    "晚盘价": PM_FIX, "收益率": LAST, "中间价": CENTRAL_PARITY,
}
# Keys that carry numbers which are not values: dates, times, codes.
TRUTH_META_KEYS: Final = frozenset({
    "rt_date", "rt_time", "symbol", "trading_date", "latest_trading_day", "代码", "名称",
    "交易时间", "最新行情时间", "currency_pair", "序号", "内部编号", "date", "time", "日期",
    "时间", "行情时间", "code", "name", "request", "currency", "exchange", "timezone",
})
