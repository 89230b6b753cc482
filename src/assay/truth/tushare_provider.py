"""Tushare Pro: the latest daily bar of an A-share (`pro.daily(ts_code=…)`); the token is read
from an environment variable (default TUSHARE_TOKEN) at call time and never stored."""

from __future__ import annotations

import os
import re
from typing import Any

from assay.core import secrets
from assay.core.errors import ConfigError
from assay.core.types import TruthSnapshot

from .base import call_source, clean, failed, now, require, source_failed
from .markets import a_share_exchange
from .routing import CodeRouting
from .vocabulary import normalise

_TS_CODE = re.compile(r"^\d{6}\.(SH|SZ|BJ)$")


def tushare_code(market: str, code: str) -> str | None:
    """An A-share of the tables as Tushare writes it (600519.SH); its provider serves no
    other market."""
    return f"{code}.{a_share_exchange(code)}" if market == "cn_stock" else None


def refused(code: str) -> str | None:
    if _TS_CODE.match(code):
        return None
    return f"{code!r} is not a Tushare A-share code (like 600519.SH)"


class TushareProvider:
    name = "tushare"
    routing = CodeRouting("wind_ticker", tushare_code, refused)

    def __init__(self, *, token_env: str = "TUSHARE_TOKEN", timeout_s: float = 30.0) -> None:
        self.token_env = token_env
        self.timeout_s = timeout_s
        if not os.environ.get(token_env):
            raise ConfigError(f"the tushare provider reads its token from ${token_env}, "
                              "which is not set")

    def _read(self, code: str) -> list[dict[str, Any]]:
        ts = require("tushare", "tushare")
        token = os.environ[self.token_env]
        secrets.remember(token, self.token_env)  # masked if an error repeats it
        pro = ts.pro_api(token)
        frame = pro.daily(ts_code=code)
        return [] if frame is None else list(frame.to_dict("records"))

    async def fetch(self, instrument: str, market: str | None = None,
                    item: dict[str, Any] | None = None) -> TruthSnapshot:
        query = f"pro.daily(ts_code={instrument!r})"
        started = now()
        try:
            rows = await call_source(self._read, instrument, timeout_s=self.timeout_s)
        except Exception as exc:  # the source's failure is this snapshot's status
            return source_failed(self.name, instrument, query, exc)
        if not rows:
            return failed(self.name, instrument, query, "tushare returned no rows",
                          status="empty")
        latest = max(rows, key=lambda r: str(r.get("trade_date", "")))
        source = {k: clean(v) for k, v in latest.items()}
        fields = normalise(latest)
        return TruthSnapshot(self.name, instrument, query + f" → trade_date "
                             f"{source.get('trade_date')}", started, "ok", fields, source,
                             source, None, market, {"data": {**{k: v for k, v in
                                                                fields.items()},
                                                             "symbol": instrument}})
