"""Resolve production-style questions against the full recorded AKShare tables (truth.names).

    .venv/bin/python bench/names_bench.py [--tables DIR] [--calls 20000]

DIR holds the 2025-10-17 market tables (`{market}_*.csv`; default shared/data/finsearchcomp/
market_snapshots beside the checkout); the CFETS quote table comes from tests/data/akshare.
Prints the time to build the name index once, the time to check that a new window's tables
carry the same names (the index is then kept), and the time of one `resolve_question` call
over the sample's 34 questions and a few more (FX, SGE, bonds, codes), as a watch process
calls it per trace.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import os
import platform
import statistics
import time
from pathlib import Path
from typing import Any

from assay.truth.markets import Market
from assay.truth.name_index import NameIndex, fingerprint
from assay.truth.names import NAMED_MARKETS, resolve_question, use_tables
from assay.truth.tables import Table, TableProvider

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "finsearch_t1_sample.json"
EXTRA = ["USD/CNY 最新汇率", "美元兑人民币中间价", "上海金午盘基准价", "Au99.99 现价",
         "10年期国债收益率", "招商银行H股收盘价", "600519.SH 最新价", "0700.HK price",
         "NASDAQ:AAPL close", "What is the CEO's name?",
         "请问一下贵州茅台今天下午收盘的时候的最新股价是多少元？另外成交额是多少？"]


class CsvTables(TableProvider):
    """Each market's recorded table, read once (as a provider's cached window serves it)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.loaded: dict[str, Table] = {}

    async def table(self, market: Market, instrument: str = "") -> Table:
        if market.name not in self.loaded:
            if market.name == "cny_onshore":
                path = ROOT / "tests" / "data" / "akshare" / "fx_spot_quote.csv"
            else:
                path = next(self.folder.glob(f"{market.name}_*.csv"))
            with path.open(encoding="utf-8") as fh:
                rows: list[dict[str, Any]] = list(csv.DictReader(fh))
            self.loaded[market.name] = Table(market, rows, path.name, _now())
        return self.loaded[market.name]


def _now() -> Any:
    from datetime import UTC, datetime

    return datetime.now(UTC)


def main() -> None:
    parser = argparse.ArgumentParser()
    default = ROOT / "tests" / "data" / "market_snapshots_full"  # the same as shared/'s
    parser.add_argument("--tables", type=Path, default=default)
    parser.add_argument("--calls", type=int, default=20_000)
    args = parser.parse_args()
    if args.tables is None:
        raise SystemExit("give --tables DIR (the full recorded market tables)")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}")
    tables = CsvTables(args.tables)
    resolver = use_tables("akshare", tables)
    questions = sorted({x["prompt"] for x in json.loads(SAMPLE.read_text("utf-8"))}) + EXTRA

    async def run() -> None:
        from assay.truth.markets import MARKETS

        rows = {m: (await tables.table(MARKETS[m])).rows for m in NAMED_MARKETS}
        keys = {m: MARKETS[m].key or "" for m in NAMED_MARKETS}
        print(f"tables: {sum(len(r) for r in rows.values()):,} rows in {len(rows)} tables")
        builds = []
        for _ in range(5):
            start = time.perf_counter()
            index = NameIndex.build(rows, keys)
            builds.append(time.perf_counter() - start)
        print(f"index build: {min(builds) * 1000:.0f} ms (best of 5), "
              f"{len(index.names) + len(index.cased):,} names")
        start = time.perf_counter()
        fingerprint(rows, keys)
        print(f"same-names check for a new window: {(time.perf_counter() - start) * 1000:.0f} ms")
        await resolver.index()
        times = []
        cpu = time.process_time()
        for i in range(args.calls):
            q = questions[i % len(questions)]
            start = time.perf_counter()
            await resolve_question(q)
            times.append(time.perf_counter() - start)
        cpu = time.process_time() - cpu
        times.sort()
        print(f"resolve_question: {args.calls:,} calls over {len(questions)} questions: "
              f"mean {statistics.fmean(times) * 1e6:.0f} µs, median "
              f"{times[len(times) // 2] * 1e6:.0f} µs, p99 "
              f"{times[int(len(times) * 0.99)] * 1e6:.0f} µs, max {times[-1] * 1e6:.0f} µs "
              f"(wall); CPU {cpu / len(times) * 1e6:.0f} µs a call "
              f"→ {len(times) / cpu:,.0f} calls/s on one core")

    asyncio.run(run())


if __name__ == "__main__":
    main()
