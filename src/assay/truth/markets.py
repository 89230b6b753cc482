"""The market tables Assay knows, as AKShare serves them (and as the recorded snapshot tables
store them): which function, which key column holds the instrument code, and which source
columns are which normalised fields. One table serves every instrument of its market."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_CN = {"最新价": "last", "今开": "open", "开盘价": "open", "最高": "high", "最高价": "high",
       "最低": "low", "最低价": "low", "昨收": "prev_close", "昨收价": "prev_close",
       "涨跌额": "change", "涨跌幅": "change_pct", "成交量": "volume", "成交额": "turnover",
       "总市值": "market_cap", "最新行情时间": "time", "行情时间": "time"}


# Wind real-time fields and the {"data": {...}} quote shape, for stored ground truth.
WIND = {"RT_LAST": "last", "RT_OPEN": "open", "RT_HIGH": "high", "RT_LOW": "low",
        "RT_PRE_CLOSE": "prev_close", "RT_CHG": "change", "RT_PCT_CHG": "change_pct",
        "RT_VOL": "volume", "RT_AMT": "turnover", "RT_MKT_CAP": "market_cap"}
QUOTE = {"price": "last", "open": "open", "high": "high", "low": "low",
         "previous_close": "prev_close", "change": "change", "change_percent": "change_pct",
         "volume": "volume"}
ANY_SHAPE = {**WIND, **QUOTE, **_CN}


@dataclass(frozen=True)
class Market:
    name: str
    function: str  # the akshare function
    key: str | None  # the column holding the instrument code (None: see `pick`)
    columns: dict[str, str] = field(default_factory=lambda: dict(_CN))
    kwargs: dict[str, Any] = field(default_factory=dict)
    snapshot: str | None = None  # file prefix of its recorded snapshot tables

    def query(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.kwargs.items())
        return f"ak.{self.function}({args})"


MARKETS: dict[str, Market] = {m.name: m for m in (
    Market("cn_stock", "stock_zh_a_spot_em", "代码", snapshot="cn_stock"),
    Market("hk_stock", "stock_hk_spot_em", "代码", snapshot="hk_stock"),
    Market("us_stock", "stock_us_spot_em", "代码", snapshot="us_stock"),
    Market("cn_index", "stock_zh_index_spot_em", "代码", kwargs={"symbol": "沪深重要指数"},
           snapshot="cn_index"),
    Market("h_index", "stock_hk_index_spot_em", "代码", snapshot="h_index"),
    Market("global_idx", "index_global_spot_em", "代码", snapshot="global_idx"),
    Market("fx", "forex_spot_em", "代码", snapshot="fx"),
    # CFETS onshore quotes: 货币对 "USD/CNY", 买报价, 卖报价 (forex_spot_em has only CNH/CNYC)
    Market("cny_onshore", "fx_spot_quote", "货币对", columns={"买报价": "bid", "卖报价": "ask"}),
    # SGE gold benchmark (上海金): one row per day; the afternoon fix is labelled 晚盘价
    Market("sge_benchmark", "spot_golden_benchmark_sge", None,
           columns={"早盘价": "am_fix", "晚盘价": "pm_fix", "交易时间": "time"}),
    # SGE spot (Au99.99, Au(T+D) …): one intraday table per instrument; the newest row
    Market("sge_spot", "spot_quotations_sge", None, columns={"现价": "last", "时间": "time"}),
    # China government bond yields (中债国债收益率曲线), in percent: CGB10Y → the 10年 column
    Market("cn_bond", "bond_china_yield", None, columns={"日期": "time"}),
    Market("comex", "futures_foreign_commodity_realtime", None,
           columns={"最新价": "last", "开盘价": "open", "最高价": "high", "最低价": "low",
                    "昨日结算价": "prev_close", "涨跌额": "change", "涨跌幅": "change_pct",
                    "行情时间": "time"}),
)}
INDEX_MARKETS = ("cn_index", "h_index", "global_idx")

BOND_CURVE = "中债国债收益率曲线"
_TENORS = {"3M": "3月", "6M": "6月", "1Y": "1年", "3Y": "3年", "5Y": "5年", "7Y": "7年",
           "10Y": "10年", "30Y": "30年"}


def bond_tenor(instrument: str) -> tuple[str, str] | None:
    """CGB10Y (or 中债国债收益率曲线:10年) → (curve, tenor column); None if not a known tenor."""
    code = instrument.strip()
    if ":" in code:
        curve, _, tenor = code.partition(":")
        return (curve, tenor) if tenor in _TENORS.values() else None
    m = re.fullmatch(r"CGB(\d+[MY])", code.upper())
    return (BOND_CURVE, _TENORS[m.group(1)]) if m and m.group(1) in _TENORS else None


_US = re.compile(r"^(\d{3})\.([A-Z][A-Z0-9._-]*?)(?:\.USA)?$")


def table_code(market: str, instrument: str) -> str:
    """The code as the market's table writes it. Only spelling the release is known to vary is
    normalised (FinSearchComp writes US codes as `106.PM.USA`); nothing is guessed."""
    code = instrument.strip()
    if market == "us_stock":
        m = _US.match(code.upper())
        return f"{m.group(1)}.{m.group(2)}" if m else code
    if market == "cny_onshore":
        return code.upper().replace("USDCNY", "USD/CNY") if "/" not in code else code.upper()
    return code.upper() if market in ("fx", "h_index", "global_idx") else code
