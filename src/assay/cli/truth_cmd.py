"""`assay truth fetch`: one snapshot from one provider, with its provenance."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from assay.core.errors import ConfigError
from assay.core.types import TruthSnapshot
from assay.truth.base import FIELDS
from assay.truth.registry import make_provider
from assay.truth.routing import routing_of, table_market

from .terminal import escape


def fetch(*, provider: str, instrument: str, market: str | None, tags: str | None,
          snapshots: Path | None, date: str | None, as_json: bool) -> int:
    if market is None and routing_of(provider).needs_market:
        market = table_market(instrument, tags or "") if tags else None
        if market is None:
            raise ConfigError(f"give --market for {provider} (cn_stock, hk_stock, us_stock, "
                              "index, fx, cny_onshore, sge_benchmark, comex) or --tags "
                              "(Stock, Index, 汇率)")
    p = make_provider(provider, snapshots=snapshots, date=date)
    snap: TruthSnapshot = asyncio.run(p.fetch(instrument, market))
    c = Console()
    if not c.is_terminal:
        c = Console(width=1000)
    if as_json:
        print(json.dumps(snap.as_record(), ensure_ascii=False, default=str))
    else:
        _print(c, snap)
    return 0 if snap.status == "ok" else 1


def _print(c: Console, snap: TruthSnapshot) -> None:
    colour = {"ok": "green", "empty": "yellow"}.get(snap.status, "red")
    c.print(f"[bold]{escape(snap.instrument)}[/] from {snap.provider}"
            + (f" ({snap.market})" if snap.market else "")
            + f" — [{colour}]{snap.status}[/]" + (f": {escape(snap.message)}"
                                                  if snap.message else ""))
    c.print(f"query      {escape(snap.query)}")
    c.print(f"fetched at {snap.fetched_at.isoformat()}")
    if snap.fields:
        t = Table("field", "value", title="normalised")
        for name in FIELDS:
            if name in snap.fields:
                t.add_row(name, str(snap.fields[name]))
        c.print(t)
    if snap.source_fields:
        s = Table("source field", "value", title="as the source names them")
        for k, v in snap.source_fields.items():
            s.add_row(escape(str(k)), escape(_text(v)))
        c.print(s)


def _text(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)
