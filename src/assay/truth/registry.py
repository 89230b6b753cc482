"""Provider names → providers; an unknown name lists the known ones."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from assay.core.errors import ConfigError

from .base import Provider

NAMES = ("akshare", "yfinance", "tushare", "wind", "snapshot")


def make_provider(name: str, **options: Any) -> Provider:
    if name == "akshare":
        from .tables import AkshareProvider

        return AkshareProvider(**{k: v for k, v in options.items()
                                  if k in ("cache_s", "min_interval_s", "timeout_s")})
    if name == "snapshot":
        from .tables import SnapshotProvider

        folder = options.get("snapshots")
        if not folder:
            raise ConfigError("the snapshot provider needs a folder of recorded tables "
                              "(--snapshots DIR, or snapshot:DIR in a spec)")
        return SnapshotProvider(Path(folder), options.get("date"))
    if name == "yfinance":
        from .yfinance_provider import YfinanceProvider

        return YfinanceProvider()
    if name == "tushare":
        from .tushare_provider import TushareProvider

        return TushareProvider(token_env=options.get("token_env") or "TUSHARE_TOKEN")
    if name == "wind":
        from .wind_provider import WindProvider

        return WindProvider()
    close = difflib.get_close_matches(name, NAMES, n=2, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else f"; known: {', '.join(NAMES)}"
    raise ConfigError(f"unknown ground-truth provider '{name}'{hint}")
