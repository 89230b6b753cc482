"""Temporary: verbatim copies of the market classifiers and provider switches that
`truth.markets.listing` and the providers' own routing replace (routing.py, names.py,
name_index.py, rubric/instruments.py as of 36adc17), for the comparison in test_listing_vs_old.py;
removed with it."""

from __future__ import annotations

import re
from typing import Any

_SPECIAL_WIND = {"SHAU.SGE": ("SHAU", "sge_benchmark"), "GC.CMX": ("GC", "comex"),
                 "USDCNY.IB": ("USD/CNY", "cny_onshore")}
_TS_CODE = re.compile(r"^\d{6}\.(SH|SZ|BJ)$")
DEFAULT_FIELD = {"akshare": "akshare_ticker", "snapshot": "akshare_ticker",
                 "yfinance": "yfinance_ticker", "tushare": "wind_ticker", "wind": "wind_ticker"}
Routed = tuple[str, str | None, str | None]


def _text(v: Any) -> str:
    return "" if v is None else str(v).strip()


def _tags(fields: dict[str, Any]) -> str:
    tags = fields.get("tags")
    return " ".join(map(str, tags)) if isinstance(tags, list) else _text(tags)


def table_market(code: str, tags: str) -> str | None:
    lowered = tags.lower()
    if "stock" in lowered or "股" in tags:
        if re.fullmatch(r"\d{6}", code):
            return "cn_stock"
        if re.fullmatch(r"\d{5}", code):
            return "hk_stock"
        if re.fullmatch(r"\d{3}\.[A-Za-z][A-Za-z0-9._-]*", code):
            return "us_stock"
        return None
    if "index" in lowered or "指数" in tags:
        return "index"
    if "债" in tags or "bond" in lowered or "yield" in lowered:
        return "cn_bond"
    if "黄金" in tags and "spot" not in lowered and code.startswith(("Au", "Ag", "Pt", "iAu")):
        return "sge_spot"
    if "汇率" in tags or "fx" in lowered or "currency" in lowered:
        return "cny_onshore" if "/" in code or code.upper() == "USDCNY" else "fx"
    return None


def route(provider: str, fields: dict[str, Any], *, field: str | None = None,
          market: str | None = None) -> Routed:
    source = field or DEFAULT_FIELD.get(provider, "akshare_ticker")
    code = _text(fields.get(source))
    wind = _text(fields.get("wind_ticker"))
    if provider in ("akshare", "snapshot"):
        if not code and wind.upper() in _SPECIAL_WIND:
            instrument, special = _SPECIAL_WIND[wind.upper()]
            return (instrument, market or special, None)
        if not code:
            return ("", None, f"the item has no {source}")
        if wind.upper() in _SPECIAL_WIND and market is None and \
                _SPECIAL_WIND[wind.upper()][1] != "cny_onshore":
            return (code, _SPECIAL_WIND[wind.upper()][1], None)
        chosen = market or table_market(code, _tags(fields))
        if chosen is None:
            return (code, None, f"cannot tell the market of {code!r} from tags "
                    f"{_tags(fields)!r}; give truth.market in the spec")
        return (code, chosen, None)
    if not code:
        return ("", None, f"the item has no {source}")
    if provider == "tushare" and not _TS_CODE.match(code):
        return (code, None, f"{code!r} is not a Tushare A-share code (like 600519.SH)")
    return (code, market, None)


_TAGS = {"cn_stock": "Stock", "hk_stock": "Stock", "us_stock": "Stock", "cn_index": "Index",
         "h_index": "Index", "global_idx": "Index", "fx": "汇率", "cny_onshore": "汇率",
         "cn_bond": "国债", "sge_spot": "黄金"}
_WIND_ONLY = {"sge_benchmark": "SHAU.SGE", "comex": "GC.CMX"}
_US_EXCHANGE = {"105": "O", "106": "N", "107": "A"}


def provider_fields(market: str, code: str, provider: str) -> dict[str, str] | None:
    if market in _WIND_ONLY:
        return {"wind_ticker": _WIND_ONLY[market], "tags": "贵金属"} \
            if provider in ("akshare", "snapshot", "wind") else None
    if provider in ("akshare", "snapshot"):
        return {"akshare_ticker": code, "tags": _TAGS[market]}
    spelled = _stock_code(market, code, provider)
    if spelled is None:
        return None
    name = "yfinance_ticker" if provider == "yfinance" else "wind_ticker"
    return {name: spelled, "akshare_ticker": code, "tags": _TAGS[market]}


def _stock_code(market: str, code: str, provider: str) -> str | None:
    if market == "cn_stock":
        exchange = "SH" if code.startswith(("6", "900")) else \
            "BJ" if code.startswith(("4", "8", "92")) else "SZ"
        if provider == "yfinance":
            return f"{code}.{'SS' if exchange == 'SH' else exchange}"
        return f"{code}.{exchange}"
    if provider == "tushare":
        return None
    if market == "hk_stock":
        return f"{code[1:] if code.startswith('0') else code}.HK"
    if market == "us_stock":
        prefix, _, ticker = code.partition(".")
        if provider == "yfinance":
            return ticker.replace("_", "-")
        suffix = _US_EXCHANGE.get(prefix)
        return f"{ticker.replace('_', '.')}.{suffix}" if suffix else None
    return None


def exchange_of_stock(code: str) -> str:
    if code.startswith(("6", "900")):
        return "SH"
    if code.startswith(("4", "8", "92")):
        return "BJ"
    return "SZ"


def listing_letter(tickers: tuple[str, ...], truth_code: str) -> str:
    """rubric/instruments._listing's reading of the codes (its words come first, unchanged)."""
    for t in (*tickers, truth_code):
        u = t.upper().replace("___", ".")
        if re.fullmatch(r"\d{6}(\.(SH|SZ|BJ))?", u):
            return "A"
        if re.fullmatch(r"\d{4,5}(\.HK)?", u):
            return "H"
        if re.fullmatch(r"\d{3}\.[A-Z][A-Z0-9._-]*|[A-Z][A-Z0-9-]*\.(O|N|A|OQ|US)", u):
            return "US"
    return ""
