"""Wind (WindPy): `w.wsq(code, "rt_date,rt_time,rt_last,…")`, used only when WindPy is
installed (it comes with a licensed Wind terminal, not from PyPI) and logged in. The snapshot
keeps Wind's own shape, `{"CODE___X": {"RT_LAST": …}}`, as FinSearchComp stores it."""

from __future__ import annotations

from typing import Any

from assay.core.errors import ConfigError
from assay.core.types import TruthSnapshot

from .base import call_source, now, numeric, source_failed
from .markets import EAST_MONEY_US, a_share_exchange, hk_code
from .routing import WIND_ONLY, CodeRouting
from .vocabulary import TIME, normalise

WSQ_FIELDS = "rt_date,rt_time,rt_last,rt_open,rt_high,rt_low,rt_pre_close,rt_chg,rt_pct_chg"


def parse_wsq(data: Any, code: str) -> dict[str, Any]:
    """A WindData result (ErrorCode, Codes, Fields, Data) → {RT_FIELD: value} for `code`."""
    if getattr(data, "ErrorCode", 0) != 0:
        raise RuntimeError(f"Wind error code {data.ErrorCode}: {getattr(data, 'Data', '')}")
    codes = [str(c).upper() for c in getattr(data, "Codes", [])]
    fields = [str(f).upper() for f in getattr(data, "Fields", [])]
    values = getattr(data, "Data", [])
    if code.upper() not in codes:
        raise LookupError(f"Wind returned no data for {code}")
    col = codes.index(code.upper())
    return {f: values[i][col] for i, f in enumerate(fields) if i < len(values)}


def wind_code(market: str, code: str) -> str | None:
    """An instrument of the tables as Wind writes it: 600519.SH, 0700.HK, AAPL.O, BRK.A.N, and
    the SGE benchmark and COMEX gold (SHAU.SGE, GC.CMX); stocks only otherwise, where the rule
    is fixed."""
    if market in WIND_ONLY:
        return WIND_ONLY[market]
    if market == "cn_stock":
        return f"{code}.{a_share_exchange(code)}"
    if market == "hk_stock":
        return hk_code(code)
    if market == "us_stock":
        prefix, _, ticker = code.partition(".")
        suffix = EAST_MONEY_US.get(prefix)
        return f"{ticker.replace('_', '.')}.{suffix}" if suffix else None
    return None


class WindProvider:
    name = "wind"
    routing = CodeRouting("wind_ticker", wind_code)

    def __init__(self, *, timeout_s: float = 30.0) -> None:
        self.timeout_s = timeout_s
        try:
            from WindPy import w
        except ImportError:
            raise ConfigError("the wind provider needs WindPy, which comes with a licensed "
                              "Wind terminal (it is not on PyPI)") from None
        self.w = w
        if not w.isconnected():
            w.start()
        if not w.isconnected():
            raise ConfigError("WindPy is installed but not logged in (w.start() failed)")

    async def fetch(self, instrument: str, market: str | None = None,
                    item: dict[str, Any] | None = None) -> TruthSnapshot:
        query = f'w.wsq("{instrument}","{WSQ_FIELDS}")'
        started = now()
        try:
            data = await call_source(self.w.wsq, instrument, WSQ_FIELDS,
                                     timeout_s=self.timeout_s)
            source = parse_wsq(data, instrument)
        except Exception as exc:  # the source's failure is this snapshot's status
            return source_failed(self.name, instrument, query, exc)
        clean_source = {k: (numeric(v) if k not in ("RT_DATE", "RT_TIME") else
                            str(int(v)) if isinstance(v, float) else str(v))
                        for k, v in source.items() if v is not None}
        fields = normalise(clean_source)
        has_number = any(k != TIME for k in fields)
        return TruthSnapshot(self.name, instrument, query, started,
                             "ok" if has_number else "empty", fields, clean_source, source,
                             None if has_number else "Wind returned no value", market,
                             {instrument.replace(".", "___"): clean_source})
