"""Item → (instrument, market) for a provider, from the ticker fields FinSearchComp items carry
(`akshare_ticker`, `wind_ticker`, `yfinance_ticker`, `tags`), and back. Each provider routes
its own items: its class declares a `routing` (`base.Routing`), found here through its
registration, so nothing here names a provider. The two shapes the built-in providers use:

* `TableRouting` — the market tables (AKShare live, recorded snapshots): the code in
  `akshare_ticker`, its table from the item's tags or the spec's `truth.market`, and the few
  instruments only a Wind code names (the SGE benchmark, COMEX gold) from `wind_ticker`;
* `CodeRouting` — a source that takes one code and no market (Yahoo, Wind, Tushare): the code
  in its own field, as written; `spell` writes an instrument of the tables the provider's way
  (for questions resolved by name), `refuse` turns away codes it cannot fetch.

Exact codes only: an item that cannot be routed gets a reason, never the nearest instrument by
name."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from assay.core.errors import ConfigError

from .base import Route, Routing
from .markets import listing
from .registry import PROVIDERS

__all__ = ["TAGS", "CodeRouting", "Route", "Routing", "TableRouting", "route", "routing_of",
           "table_market"]

# Instruments the tables serve without a code of their own, named by Wind's code; USD/CNY's is
# taken only when the item has no akshare_ticker (it has one in the CFETS table)
_SPECIAL_WIND = {"SHAU.SGE": ("SHAU", "sge_benchmark"), "GC.CMX": ("GC", "comex"),
                 "USDCNY.IB": ("USD/CNY", "cny_onshore")}
WIND_ONLY = {"sge_benchmark": "SHAU.SGE", "comex": "GC.CMX"}  # the inverse, for item_fields
WIND_ONLY_TAGS = "贵金属"
# The tags `table_market` reads each market back from (written for a question resolved by name).
TAGS = {"cn_stock": "Stock", "hk_stock": "Stock", "us_stock": "Stock", "cn_index": "Index",
        "h_index": "Index", "global_idx": "Index", "fx": "汇率", "cny_onshore": "汇率",
        "cn_bond": "国债", "sge_spot": "黄金"}


def _text(v: Any) -> str:
    return "" if v is None else str(v).strip()


def _tags(fields: Mapping[str, Any]) -> str:
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


@dataclass(frozen=True)
class TableRouting:
    """The market tables' routing: a code of the tables and the table it is in."""

    field: str = "akshare_ticker"
    needs_market: bool = True

    def route(self, fields: Mapping[str, Any], *, field: str | None = None,
              market: str | None = None) -> Route:
        source = field or self.field
        code = _text(fields.get(source))
        wind = _text(fields.get("wind_ticker")).upper()
        if not code and wind in _SPECIAL_WIND:
            instrument, special = _SPECIAL_WIND[wind]
            return Route(instrument, market or special)
        if not code:
            return Route("", None, f"the item has no {source}")
        if wind in _SPECIAL_WIND and market is None and \
                _SPECIAL_WIND[wind][1] != "cny_onshore":
            return Route(code, _SPECIAL_WIND[wind][1])
        chosen = market or table_market(code, _tags(fields))
        if chosen is None:
            return Route(code, None, f"cannot tell the market of {code!r} from tags "
                         f"{_tags(fields)!r}; give truth.market in the spec")
        return Route(code, chosen)

    def item_fields(self, market: str, code: str) -> dict[str, str] | None:
        if market in WIND_ONLY:
            return {"wind_ticker": WIND_ONLY[market], "tags": WIND_ONLY_TAGS}
        return {"akshare_ticker": code, "tags": TAGS[market]}


def _no_spelling(market: str, code: str) -> str | None:
    return None


def _takes_any(code: str) -> str | None:
    return None


@dataclass(frozen=True)
class CodeRouting:
    """A source that takes one code, as the item writes it in `field`, and no market (the
    spec's `truth.market` is passed on as given). `spell(market, table_code)` is an instrument
    of the tables in the provider's spelling, or None where it has none; `refuse(code)` is why
    a code cannot be fetched, or None."""

    field: str
    spell: Callable[[str, str], str | None] = _no_spelling
    refuse: Callable[[str], str | None] = _takes_any
    needs_market: bool = False

    def route(self, fields: Mapping[str, Any], *, field: str | None = None,
              market: str | None = None) -> Route:
        source = field or self.field
        code = _text(fields.get(source))
        if not code:
            return Route("", None, f"the item has no {source}")
        why = self.refuse(code)
        if why is not None:
            return Route(code, None, why)
        return Route(code, market)

    def item_fields(self, market: str, code: str) -> dict[str, str] | None:
        spelled = self.spell(market, code)
        if spelled is None:
            return None
        if market in WIND_ONLY:  # the tables know these by Wind's code alone
            return {self.field: spelled, "tags": WIND_ONLY_TAGS}
        return {self.field: spelled, "akshare_ticker": code, "tags": TAGS[market]}


def routing_of(provider: str) -> Routing:
    """The routing a provider's class declares, found through its registration: the class is
    imported, not built (routing an item starts no terminal and reads no token)."""
    found: Routing | None = getattr(PROVIDERS.factory(provider), "routing", None)
    if found is None:
        raise ConfigError(f"ground-truth provider '{provider}' declares no routing: give its "
                          "class a `routing` (truth/routing.py: CodeRouting, TableRouting)")
    return found


def route(provider: str, fields: Mapping[str, Any], *, field: str | None = None,
          market: str | None = None) -> Route:
    """The instrument and market of an item for `provider`, by the provider's own routing."""
    return routing_of(provider).route(fields, field=field, market=market)
