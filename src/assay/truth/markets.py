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
