"""AKShare patched at its boundary only: each market function returns a pandas DataFrame read
from the recorded snapshot CSV (or a response-shape fixture), as AKShare would."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DATA, ROOT

SNAPSHOTS = ROOT / "examples" / "data" / "market_snapshots"
SHAPES = DATA / "akshare"
TABLES = {
    "stock_zh_a_spot_em": SNAPSHOTS / "cn_stock_20251017T103505Z.csv",
    "stock_hk_spot_em": SNAPSHOTS / "hk_stock_20251017T103505Z.csv",
    "stock_us_spot_em": SNAPSHOTS / "us_stock_20251017T103505Z.csv",
    "stock_zh_index_spot_em": SNAPSHOTS / "cn_index_20251017T103505Z.csv",
    "stock_hk_index_spot_em": SNAPSHOTS / "h_index_20251017T103505Z.csv",
    "index_global_spot_em": SNAPSHOTS / "global_idx_20251017T103505Z.csv",
    "forex_spot_em": SNAPSHOTS / "fx_20251017T103505Z.csv",
    "spot_golden_benchmark_sge": SHAPES / "spot_golden_benchmark_sge.csv",
    "fx_spot_quote": SHAPES / "fx_spot_quote.csv",
    "futures_foreign_commodity_realtime": SHAPES / "futures_foreign_commodity_realtime_GC.csv",
    "bond_china_yield": SHAPES / "bond_china_yield.csv",
    "spot_quotations_sge": SHAPES / "spot_quotations_sge_Au99.99.csv",
}


def frame(path: Path) -> Any:
    import pandas as pd

    # codes stay text (000001, 00700), prices become floats, as AKShare returns them
    return pd.read_csv(path, dtype={"代码": str, "内部编号": str})


class Akshare:
    """Every AKShare function the providers call answers from a file; any other one raises, so
    a test can never reach the network through AKShare."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import akshare

        from assay.truth.markets import MARKETS

        self.module = akshare
        self.monkeypatch = monkeypatch
        self.calls: list[tuple[str, dict[str, Any]]] = []
        for market in MARKETS.values():
            assert market.function in TABLES, f"no recorded table for ak.{market.function}"
        for name, path in TABLES.items():
            self.set(name, lambda path=path, **kw: frame(path))
        import requests

        def offline(*args: Any, **kwargs: Any) -> Any:
            raise requests.ConnectionError("tests never reach the network")

        monkeypatch.setattr(requests.sessions.Session, "request", offline)

    def set(self, name: str, fn: Callable[..., Any]) -> None:
        def recorded(**kwargs: Any) -> Any:
            self.calls.append((name, kwargs))
            return fn(**kwargs)
        self.monkeypatch.setattr(self.module, name, recorded)


@pytest.fixture()
def akshare_recorded(monkeypatch: pytest.MonkeyPatch) -> Akshare:
    return Akshare(monkeypatch)
