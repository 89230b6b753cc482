"""yfinance: `Ticker(symbol).fast_info` (last_price, open, day_high, day_low, previous_close)."""

from __future__ import annotations

from typing import Any

from assay.core.types import TruthSnapshot

from .base import call_source, failed, now, numeric, require, source_failed
from .markets import a_share_exchange, hk_code
from .routing import CodeRouting
from .vocabulary import normalise

# the fast_info keys read (their fields are in `vocabulary`)
FAST_INFO = ("last_price", "open", "day_high", "day_low", "previous_close", "last_volume",
             "market_cap")


def yahoo_code(market: str, code: str) -> str | None:
    """A stock of the tables as Yahoo writes it: 600519.SS, 000858.SZ, 0700.HK, BRK-B."""
    if market == "cn_stock":
        exchange = a_share_exchange(code)
        return f"{code}.{'SS' if exchange == 'SH' else exchange}"
    if market == "hk_stock":
        return hk_code(code)
    if market == "us_stock":
        return code.partition(".")[2].replace("_", "-")
    return None


class YfinanceProvider:
    name = "yfinance"
    routing = CodeRouting("yfinance_ticker", yahoo_code)

    def __init__(self, *, timeout_s: float = 30.0) -> None:
        self.timeout_s = timeout_s

    def _read(self, symbol: str) -> dict[str, Any]:
        yf = require("yfinance", "yfinance")
        info = yf.Ticker(symbol).fast_info
        out = {}
        for key in FAST_INFO:
            try:
                out[key] = info[key]
            except (KeyError, TypeError, ValueError, AttributeError):
                continue
        return out

    async def fetch(self, instrument: str, market: str | None = None,
                    item: dict[str, Any] | None = None) -> TruthSnapshot:
        query = f"yf.Ticker({instrument!r}).fast_info"
        started = now()
        try:
            source = await call_source(self._read, instrument, timeout_s=self.timeout_s)
        except Exception as exc:  # the source's failure is this snapshot's status
            return source_failed(self.name, instrument, query, exc)
        fields = normalise(source)
        if not fields:
            return failed(self.name, instrument, query, "yfinance returned no price",
                          status="empty", raw=source)
        clean_source = {k: numeric(v) for k, v in source.items()}
        return TruthSnapshot(self.name, instrument, query, started, "ok", fields, clean_source,
                             clean_source, None, market, {"data": {**fields,
                                                                   "symbol": instrument}})
