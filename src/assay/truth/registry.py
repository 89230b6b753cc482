"""The ground-truth providers: one registration each. A new provider is a module with a class
(or factory) and one `PROVIDERS.register` line here; `make_provider`, `assay truth providers`
and the docs then know it. An optional data package is named in `requires`, so a missing one
stops before any fetch with the extra to install."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.core.errors import ConfigError
from assay.core.registry import Arg, Registry

if TYPE_CHECKING:
    from .base import Provider

PROVIDERS: Registry[Provider] = Registry("providers", noun="ground-truth provider")
LIVE = (Arg("cache_s", help="seconds a fetched table serves every item of its market"),
        Arg("min_interval_s", help="seconds between two calls to the source"),
        Arg("timeout_s", help="seconds per call"))

PROVIDERS.register(
    "akshare", "assay.truth.tables:AkshareProvider", kind="live", requires=("akshare",),
    extra="akshare", summary="AKShare's public market tables (A-shares, HK, US, indices, FX, "
    "gold)", args=LIVE)
PROVIDERS.register(
    "yfinance", "assay.truth.yfinance_provider:YfinanceProvider", kind="live",
    requires=("yfinance",), extra="yfinance", summary="Yahoo Finance quotes "
    "(Ticker.fast_info)", args=(LIVE[2],))
PROVIDERS.register(
    "tushare", "assay.truth.tushare_provider:TushareProvider", kind="live",
    requires=("tushare",), extra="tushare", summary="Tushare Pro's latest daily bar of an "
    "A-share", args=(Arg("token_env", help="the environment variable holding the token "
                         "(default TUSHARE_TOKEN)"), LIVE[2]))
PROVIDERS.register(
    "wind", "assay.truth.wind_provider:WindProvider", kind="live", requires=("WindPy",),
    hint="WindPy comes with a licensed Wind terminal (it is not on PyPI)",
    summary="Wind real-time quotes (w.wsq), with a logged-in Wind terminal",
    args=(LIVE[2],))
PROVIDERS.register(
    "snapshot", "assay.truth.tables:SnapshotProvider", kind="recorded",
    summary="recorded market tables ({market}_{YYYYMMDDTHHMMSSZ}.csv), offline",
    args=(Arg("snapshots", True, "the folder of recorded tables"),
          Arg("date", help="the tables of this day (YYYY-MM-DD); default the newest")))

NAMES = tuple(PROVIDERS.names())  # kept for callers that list the built-in names


def make_provider(name: str, **options: Any) -> Provider:
    """A provider by name; options it does not take (or left as None) are ignored, so one set
    of truth options serves every provider."""
    entry = PROVIDERS.entry(name)
    takes = {a.name for a in PROVIDERS.arguments(entry) or ()}
    given = {k: (str(v) if isinstance(v, Path) else v) for k, v in options.items()
             if k in takes and v not in (None, "")}
    if entry.name == "snapshot" and not given.get("snapshots"):
        raise ConfigError("the snapshot provider needs a folder of recorded tables "
                          "(--snapshots DIR, or snapshot:DIR in a spec)")
    return PROVIDERS.build(entry.name, **given)
