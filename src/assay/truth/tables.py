"""Providers that answer from a market table: AKShare live, or recorded snapshot tables.

A lookup is by exact code in the table's key column; an instrument the table does not have is
status `error` saying so — never the nearest name."""

from __future__ import annotations

import asyncio
import csv
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from assay.core.types import TruthSnapshot

from .base import call_source, clean, failed, now, numeric, require, source_failed
from .markets import INDEX_MARKETS, MARKETS, Market, bond_tenor, table_code
from .routing import TableRouting
from .vocabulary import Hints, normalise, snapshot_from_payload

Rows = list[dict[str, Any]]


class Table:
    def __init__(self, market: Market, rows: Rows, query: str, fetched_at: datetime) -> None:
        self.market = market
        self.rows = rows
        self.query = query
        self.fetched_at = fetched_at
        self.index = ({str(r.get(market.key)).strip(): r for r in rows}
                      if market.key else {})


def _snapshot(provider: str, table: Table, instrument: str, row: dict[str, Any],
              query: str) -> TruthSnapshot:
    source = {k: clean(v) for k, v in row.items()}
    fields = normalise(row)
    has_number = any(k != "time" for k in fields)
    return TruthSnapshot(provider, instrument, query, table.fetched_at,
                         "ok" if has_number else "empty", fields, source, row,
                         None if has_number else "the row has no numeric value",
                         table.market.name, source)


def lookup(provider: str, table: Table, instrument: str) -> TruthSnapshot:
    m = table.market
    if not table.rows:
        return failed(provider, instrument, table.query, "the source returned an empty table",
                      status="empty", market=m.name)
    if m.name == "cn_bond":
        return _bond(provider, table, instrument)
    if m.key is None:  # one-instrument tables: the newest row
        row = table.rows[-1] if m.name in ("sge_benchmark", "sge_spot") else table.rows[0]
        return _snapshot(provider, table, instrument, row, table.query)
    code = table_code(m.name, instrument)
    query = f"{table.query} → {m.key} == {code!r}"
    found = table.index.get(code)
    if found is None:
        return failed(provider, instrument, query, f"instrument {code!r} is not in the "
                      f"{m.name} table ({len(table.rows)} rows; exact codes only)", market=m.name)
    return _snapshot(provider, table, instrument, found, query)


def _bond(provider: str, table: Table, instrument: str) -> TruthSnapshot:
    picked = bond_tenor(instrument)
    if picked is None:
        return failed(provider, instrument, table.query, f"{instrument!r} is not a bond yield "
                      "code (CGB3M … CGB30Y, or CURVE:TENOR)", market="cn_bond")
    curve, tenor = picked
    rows = [r for r in table.rows if str(r.get("曲线名称")) == curve and
            numeric(r.get(tenor)) is not None]
    query = f"{table.query} → 曲线名称 == {curve!r}, newest 日期, column {tenor!r}"
    if not rows:
        return failed(provider, instrument, query, f"no {curve} {tenor} yield in the table",
                      status="empty", market="cn_bond")
    row = max(rows, key=lambda r: str(r.get("日期")))
    value = numeric(row[tenor])
    source = {k: clean(v) for k, v in row.items()}
    fields = normalise({"收益率": value, "日期": row.get("日期")})
    return TruthSnapshot(provider, instrument, query, table.fetched_at, "ok", fields, source,
                         row, None, "cn_bond", {"收益率": value, "日期": clean(row.get("日期")),
                                                "曲线名称": curve, "期限": tenor})


class TableProvider:
    """Shared by AKShare and snapshot tables: resolve the market, load its table, look up."""

    name = "tables"
    routing = TableRouting()

    async def table(self, market: Market, instrument: str = "") -> Table:
        raise NotImplementedError

    async def fetch(self, instrument: str, market: str | None = None,
                    item: dict[str, Any] | None = None) -> TruthSnapshot:
        markets = list(INDEX_MARKETS) if market == "index" else [market] if market else []
        if not markets or any(m not in MARKETS for m in markets):
            return failed(self.name, instrument, "", f"unknown market {market!r} (known: "
                          f"{', '.join(MARKETS)}, index)")
        found: list[TruthSnapshot] = []
        last: TruthSnapshot | None = None
        for name in markets:
            try:
                table = await self.table(MARKETS[name], instrument)
            except Exception as exc:  # the source's failure is this snapshot's status
                last = source_failed(self.name, instrument, MARKETS[name].query(), exc,
                                     market=name)
                continue
            snap = lookup(self.name, table, instrument)
            if snap.status != "error":
                found.append(snap)
            last = snap
        if len(found) > 1 and found[0].market != "global_idx" and \
                all(s.market == "global_idx" for s in found[1:]):
            # global_idx repeats the home markets' main indices (HSI, 000300) under the same
            # codes: the home table (cn_index, h_index) is the index's own
            return found[0]
        if len(found) > 1:
            return failed(self.name, instrument, "; ".join(s.query for s in found),
                          f"code {instrument!r} is in several index tables "
                          f"({', '.join(str(s.market) for s in found)}); give the market")
        if found:
            return found[0]
        assert last is not None
        return last


class AkshareProvider(TableProvider):
    """Live AKShare tables. AKShare scrapes public sites, so it is asked politely: at most one
    call per `min_interval_s`, and a table fetched for one item serves every item of the same
    market for `cache_s` (one bulk fetch per window; concurrent items wait for the same call)."""

    name = "akshare"

    def __init__(self, *, cache_s: float = 30.0, min_interval_s: float = 1.0,
                 timeout_s: float = 60.0) -> None:
        self.cache_s = cache_s
        self.min_interval_s = min_interval_s
        self.timeout_s = timeout_s
        self._tables: dict[str, tuple[float, Table]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._gate = asyncio.Lock()
        self._last_call = 0.0
        self.calls = 0  # how many times the source was actually asked

    @staticmethod
    def arguments(market: Market, instrument: str) -> dict[str, Any]:
        """The call's arguments: most tables take none (one call serves the whole market)."""
        if market.name == "comex":
            return {"symbol": "GC"}
        if market.name == "sge_spot":
            return {"symbol": instrument}
        if market.name == "cn_bond":  # the last two weeks hold the newest published curve
            today = now().date()
            return {"start_date": (today - timedelta(days=14)).strftime("%Y%m%d"),
                    "end_date": today.strftime("%Y%m%d")}
        return dict(market.kwargs)

    def _call(self, market: Market, kwargs: dict[str, Any]) -> Rows:
        ak = require("akshare", "akshare")
        fn: Callable[..., Any] = getattr(ak, market.function)
        frame = fn(**kwargs)
        if frame is None:
            return []
        return list(frame.to_dict("records"))

    async def table(self, market: Market, instrument: str = "") -> Table:
        # one table per market, except SGE spot (one per instrument)
        slot = market.name + (f":{instrument}" if market.name == "sge_spot" else "")
        lock = self._locks.setdefault(slot, asyncio.Lock())
        async with lock:
            cached = self._tables.get(slot)
            if cached is not None and time.monotonic() - cached[0] < self.cache_s:
                return cached[1]
            async with self._gate:  # rate limit across all markets of this provider
                wait = self.min_interval_s - (time.monotonic() - self._last_call)
                if wait > 0:
                    await asyncio.sleep(wait)
                self._last_call = time.monotonic()
            self.calls += 1
            started = now()
            kwargs = self.arguments(market, instrument)
            rows = await call_source(self._call, market, kwargs, timeout_s=self.timeout_s)
            args = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
            table = Table(market, rows, f"ak.{market.function}({args})", started)
            self._tables[slot] = (time.monotonic(), table)
            return table


_STAMP = re.compile(r"^(?P<market>[a-z_]+)_(?P<stamp>\d{8}T\d{6}Z)\.csv$")


class SnapshotProvider(TableProvider):
    """Recorded tables (`{market}_{YYYYMMDDTHHMMSSZ}.csv`, as FinSearchComp stores AKShare's),
    the newest of each market or those of one date; for an instrument no table has (the SGE
    benchmark, COMEX gold), the item's own stored `ground_truth`."""

    name = "snapshot"

    def __init__(self, snapshots: str | Path, date: str | None = None) -> None:
        self.folder = Path(snapshots)
        if not self.folder.is_dir():
            from assay.core.errors import ConfigError

            raise ConfigError(f"snapshot folder {self.folder} does not exist")
        self.date = date.replace("-", "") if date else None
        self.files: dict[str, Path] = {}
        for p in sorted(self.folder.glob("*.csv")):
            m = _STAMP.match(p.name)
            if m and (self.date is None or m.group("stamp").startswith(self.date)):
                self.files[m.group("market")] = p  # sorted: the newest stamp wins
        self._tables: dict[str, Table] = {}

    async def table(self, market: Market, instrument: str = "") -> Table:
        if market.name in self._tables:
            return self._tables[market.name]
        path = self.files.get(market.snapshot or "")
        if path is None:
            raise LookupError(f"no recorded {market.name} table in {self.folder}"
                              + (f" for {self.date}" if self.date else ""))
        with path.open(encoding="utf-8") as fh:
            rows: Rows = list(csv.DictReader(fh))
        stamp = _STAMP.match(path.name).group("stamp")  # type: ignore[union-attr]
        taken = datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
        table = Table(market, rows, f"snapshot {path.name}", taken)
        self._tables[market.name] = table
        return table

    async def fetch(self, instrument: str, market: str | None = None,
                    item: dict[str, Any] | None = None) -> TruthSnapshot:
        has_table = market == "index" or (market in MARKETS and
                                          MARKETS[market].snapshot in self.files)
        if has_table:
            return await super().fetch(instrument, market, item)
        if item is not None and item.get("ground_truth") is not None:
            return stored(item, instrument, provider=self.name, market=market)
        return await super().fetch(instrument, market, item)


def stored(item: dict[str, Any], instrument: str, *, provider: str = "stored",
           market: str | None = None) -> TruthSnapshot:
    """The item's own `ground_truth`, as recorded with the dataset (FinSearchComp's default),
    read through the one vocabulary."""
    query = "item field 'ground_truth'" + (f" (recorded {item['time']})" if item.get("time")
                                           else "")
    return snapshot_from_payload(item.get("ground_truth"), hints=Hints.of_item(item),
                                 provider=provider, instrument=instrument, query=query,
                                 fetched_at=_item_time(item.get("time")), market=market)


def _item_time(value: Any) -> datetime:
    if isinstance(value, str):
        for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d"):
            try:
                return datetime.strptime(value, fmt).replace(tzinfo=UTC)
            except ValueError:
                continue
    return now()
