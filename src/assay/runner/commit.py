"""Commit policies: how finished samples' rows reach the store.

`GroupCommit` (`assay run`): every sample that finishes in the same turn of the event loop
shares one transaction, so a SIGKILL loses only samples in flight, at the cost of one small
transaction per loop turn. `BatchCommit` (`assay score`, recorded answers): rows go in
batches of thousands, each its own transaction; a kill loses at most the batch not yet written,
and the batch is what makes 100,000 recorded answers score at thousands per second.
Both call `on_flush` with the result rows just written (the JSONL output follows the store).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from assay.store import repo
from assay.store.db import Engine

Rows = dict[str, list[dict[str, Any]]]
TABLES = ("answers", "truth_snapshots", "results", "spans", "turns", "turn_results")


def _empty() -> Rows:
    return {name: [] for name in TABLES}


class GroupCommit:
    """Rows of finished samples, written in one transaction per event-loop turn."""

    def __init__(self, engine: Engine,
                 on_flush: Callable[[list[dict[str, Any]]], None] | None = None) -> None:
        self.engine = engine
        self.on_flush = on_flush
        self.rows = _empty()
        self.pending: asyncio.Future[None] | None = None

    async def commit(self, *, samples: int = 1, **rows: list[dict[str, Any]]) -> None:
        for name, more in rows.items():
            self.rows[name].extend(more)
        if self.pending is None:
            loop = asyncio.get_running_loop()
            self.pending = loop.create_future()
            loop.call_soon(self._flush, self.pending)
        await asyncio.shield(self.pending)

    def _flush(self, fut: asyncio.Future[None]) -> None:
        self.pending = None
        rows, self.rows = self.rows, _empty()
        try:
            repo.write_rows(self.engine, rows)
            if self.on_flush is not None:
                self.on_flush(rows["results"])
        except Exception as exc:  # every waiter sees the store's error
            fut.set_exception(exc)
        else:
            fut.set_result(None)

    async def close(self) -> None:
        if self.pending is not None:
            await asyncio.shield(self.pending)


class BatchCommit:
    """Rows written every `size` samples or `seconds`, whichever comes first."""

    def __init__(self, engine: Engine,
                 on_flush: Callable[[list[dict[str, Any]]], None] | None = None, *,
                 size: int = 2000, seconds: float = 1.0) -> None:
        self.engine = engine
        self.on_flush = on_flush
        self.size = size
        self.seconds = seconds
        self.rows = _empty()
        self.samples = 0
        self.flushed_at = time.monotonic()

    async def commit(self, *, samples: int = 1, **rows: list[dict[str, Any]]) -> None:
        for name, more in rows.items():
            self.rows[name].extend(more)
        if samples:
            self.samples += samples
            if self.samples >= self.size or time.monotonic() - self.flushed_at >= self.seconds:
                self.flush()

    def flush(self) -> None:
        rows, self.rows = self.rows, _empty()
        self.samples = 0
        self.flushed_at = time.monotonic()
        if any(rows.values()):
            self.write(rows)
            if self.on_flush is not None:
                self.on_flush(rows["results"])

    def write(self, rows: Rows) -> None:
        repo.write_rows(self.engine, rows)

    async def close(self) -> None:
        self.flush()
