"""The market tables Assay knows, as AKShare serves them (and as the recorded snapshot tables
store them): which function and which key column holds the instrument code. One table serves
every instrument of its market. Which column is which normalised field is said once, for every
provider, in `vocabulary`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Market:
    name: str
    function: str  # the akshare function
    key: str | None  # the column holding the instrument code (None: see `pick`)
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
    Market("cny_onshore", "fx_spot_quote", "货币对"),
    # SGE gold benchmark (上海金): one row per day; the afternoon fix is labelled 晚盘价
    Market("sge_benchmark", "spot_golden_benchmark_sge", None),
    # SGE spot (Au99.99, Au(T+D) …): one intraday table per instrument; the newest row
    Market("sge_spot", "spot_quotations_sge", None),
    # China government bond yields (中债国债收益率曲线), in percent: CGB10Y → the 10年 column
    Market("cn_bond", "bond_china_yield", None),
    Market("comex", "futures_foreign_commodity_realtime", None),
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


# --- which stock market a code is listed on -----------------------------------------------

STOCK_MARKETS = ("cn_stock", "hk_stock", "us_stock")


@dataclass(frozen=True, slots=True)
class Listing:
    """Where a stock code says it is listed, from its form alone."""

    market: str  # cn_stock, hk_stock or us_stock: the market table that lists it
    # A-shares: SH, SZ or BJ (the written suffix, else from the leading digits); HK; US: O, N
    # or A (Wind's letters for NASDAQ, NYSE, NYSE American) when the code says, else ""
    exchange: str
    table: bool  # written as the market's table writes it (600519, 00700, 105.AAPL)


# As the market tables write codes: what an item's akshare_ticker holds.
_CN_TABLE_CODE = re.compile(r"\d{6}")
_HK_TABLE_CODE = re.compile(r"\d{5}")
_US_TABLE_CODE = re.compile(r"(\d{3})\.[A-Za-z][A-Za-z0-9._-]*")
# As people and the other sources write them, read in upper case with Wind's ___ for ".":
# 600519.SH, 0700.HK, 700.HK, AAPL.O, 106.PM.USA. (600519.SS, Yahoo's, is none of these.)
_CN_WRITTEN = re.compile(r"\d{6}(?:\.(SH|SZ|BJ))?")
_HK_WRITTEN = re.compile(r"\d{4,5}(?:\.HK)?")
_US_WRITTEN = re.compile(r"(\d{3})\.[A-Z][A-Z0-9._-]*|[A-Z][A-Z0-9-]*\.(O|N|A|OQ|US)")
# East Money's prefix of a US code → Wind's letter of its exchange (NASDAQ, NYSE, NYSE American)
EAST_MONEY_US = {"105": "O", "106": "N", "107": "A"}
_US_SUFFIX = {"O": "O", "OQ": "O", "N": "N", "A": "A", "US": ""}


def a_share_exchange(code: str) -> str:
    """The exchange of a six-digit A-share code, from its leading digits."""
    if code.startswith(("6", "900")):
        return "SH"
    if code.startswith(("4", "8", "92")):
        return "BJ"
    return "SZ"


def listing(code: str) -> Listing | None:
    """The stock market `code` is listed on, from its form: the tables' own codes (600519,
    00700, 105.AAPL) and the usual spellings (600519.SH, 0700.HK, AAPL.O, 106.PM.USA); None for
    anything else (an index, a pair, a bare ticker like AAPL: its form does not say). The one
    reading of a code's market, for routing (`truth.routing.table_market`), the names
    (`truth.names`, `truth.name_index`) and the rubric (`evaluators.rubric.instruments`)."""
    if _CN_TABLE_CODE.fullmatch(code):
        return Listing("cn_stock", a_share_exchange(code), True)
    if _HK_TABLE_CODE.fullmatch(code):
        return Listing("hk_stock", "HK", True)
    m = _US_TABLE_CODE.fullmatch(code)
    if m:
        return Listing("us_stock", EAST_MONEY_US.get(m.group(1), ""), True)
    written = code.upper().replace("___", ".")
    m = _CN_WRITTEN.fullmatch(written)
    if m:
        return Listing("cn_stock", m.group(1) or a_share_exchange(written), False)
    if _HK_WRITTEN.fullmatch(written):
        return Listing("hk_stock", "HK", False)
    m = _US_WRITTEN.fullmatch(written)
    if m:
        exchange = EAST_MONEY_US.get(m.group(1), "") if m.group(1) else _US_SUFFIX[m.group(2)]
        return Listing("us_stock", exchange, False)
    return None


def hk_code(code: str) -> str:
    """A Hong Kong table code as Wind and Yahoo write it: 00700 → 0700.HK."""
    return f"{code[1:] if code.startswith('0') else code}.HK"
