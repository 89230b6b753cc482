"""Item → (instrument, market) for a provider, from the ticker fields FinSearchComp items carry
(`akshare_ticker`, `wind_ticker`, `yfinance_ticker`, `tags`). Exact codes only: an item that
cannot be routed gets a reason, never the nearest instrument by name."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .markets import listing

_SPECIAL_WIND = {"SHAU.SGE": ("SHAU", "sge_benchmark"), "GC.CMX": ("GC", "comex"),
                 "USDCNY.IB": ("USD/CNY", "cny_onshore")}
_TS_CODE = re.compile(r"^\d{6}\.(SH|SZ|BJ)$")
DEFAULT_FIELD = {"akshare": "akshare_ticker", "snapshot": "akshare_ticker",
                 "yfinance": "yfinance_ticker", "tushare": "wind_ticker", "wind": "wind_ticker"}


@dataclass(frozen=True)
class Route:
    instrument: str
    market: str | None = None
    error: str | None = None


def _text(v: Any) -> str:
    return "" if v is None else str(v).strip()


def _tags(fields: dict[str, Any]) -> str:
    tags = fields.get("tags")
    return " ".join(map(str, tags)) if isinstance(tags, list) else _text(tags)


def table_market(code: str, tags: str) -> str | None:
    """Which AKShare table an akshare-style code belongs to, from the item's tags: a stock's
    from the code, written as the tables write it (`markets.listing`)."""
    lowered = tags.lower()
    if "stock" in lowered or "股" in tags:
        found = listing(code)
        return found.market if found is not None and found.table else None
    if "index" in lowered or "指数" in tags:
        return "index"
    if "债" in tags or "bond" in lowered or "yield" in lowered:
        return "cn_bond"
    if "黄金" in tags and "spot" not in lowered and code.startswith(("Au", "Ag", "Pt", "iAu")):
        return "sge_spot"
    if "汇率" in tags or "fx" in lowered or "currency" in lowered:
        # CFETS writes pairs "USD/CNY"; East Money's fx table never has a "/"
        return "cny_onshore" if "/" in code or code.upper() == "USDCNY" else "fx"
    return None


def route(provider: str, fields: dict[str, Any], *, field: str | None = None,
          market: str | None = None) -> Route:
    source = field or DEFAULT_FIELD.get(provider, "akshare_ticker")
    code = _text(fields.get(source))
    wind = _text(fields.get("wind_ticker"))
    if provider in ("akshare", "snapshot"):
        if not code and wind.upper() in _SPECIAL_WIND:
            instrument, special = _SPECIAL_WIND[wind.upper()]
            return Route(instrument, market or special)
        if not code:
            return Route("", None, f"the item has no {source}")
        if wind.upper() in _SPECIAL_WIND and market is None and \
                _SPECIAL_WIND[wind.upper()][1] != "cny_onshore":
            return Route(code, _SPECIAL_WIND[wind.upper()][1])
        chosen = market or table_market(code, _tags(fields))
        if chosen is None:
            return Route(code, None, f"cannot tell the market of {code!r} from tags "
                         f"{_tags(fields)!r}; give truth.market in the spec")
        return Route(code, chosen)
    if not code:
        return Route("", None, f"the item has no {source}")
    if provider == "tushare" and not _TS_CODE.match(code):
        return Route(code, None, f"{code!r} is not a Tushare A-share code (like 600519.SH)")
    return Route(code, market)
