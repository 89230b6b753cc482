"""Ground truth for a run's samples, by mode:

* `stored` — the item's own `ground_truth` (FinSearchComp's default; nothing is fetched);
* `live` — fetched from a provider (AKShare by default) while the target answers, so the quote
  is the one of the moment of the answer; the gap between the two is recorded, and a fetch that
  ends up more than `window_s` before the answer is done again;
* `snapshot:<folder>[@YYYY-MM-DD]` — recorded market tables.

Evaluators then receive the snapshot's payload as `ground_truth`."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from assay.core import secrets
from assay.core.errors import ConfigError
from assay.core.text import safe_value
from assay.core.types import Item, TruthSnapshot

from .base import Provider, failed
from .registry import make_provider
from .routing import routing_of


@dataclass
class TruthConfig:
    mode: str = "stored"  # stored | live | snapshot
    provider: str = "akshare"
    code_field: str | None = None  # the item field holding the instrument code
    market: str | None = None  # force a market (cn_stock, hk_stock, us_stock, index, fx …)
    window_s: float = 30.0
    snapshots: Path | None = None
    date: str | None = None
    options: dict[str, Any] = field(default_factory=dict)  # cache_s, min_interval_s, token_env

    @classmethod
    def parse(cls, mode: str, truth: dict[str, Any] | None, base: Path) -> TruthConfig:
        truth = dict(truth or {})
        known = {"provider", "field", "market", "window_s", "cache_s", "min_interval_s",
                 "token_env"}
        unknown = sorted(set(truth) - known)
        if unknown:
            raise ConfigError(f"truth.{unknown[0]}: unknown key (known: "
                              f"{', '.join(sorted(known))})")
        cfg = cls(code_field=truth.get("field"), market=truth.get("market"),
                  window_s=float(truth.get("window_s", 30.0)),
                  options={k: truth[k] for k in ("cache_s", "min_interval_s", "token_env")
                           if k in truth})
        if mode == "stored":
            return cfg
        if mode == "live":
            cfg.mode = "live"
            cfg.provider = str(truth.get("provider", "akshare"))
            if cfg.provider == "snapshot":
                raise ConfigError("ground_truth: live fetches from a live provider; for "
                                  "recorded tables write snapshot:FOLDER")
            return cfg
        if mode.startswith("snapshot:"):
            where, _, date = mode[len("snapshot:"):].partition("@")
            folder = Path(where) if Path(where).is_absolute() else base / where
            cfg.mode, cfg.provider, cfg.snapshots, cfg.date = "snapshot", "snapshot", folder, \
                date or None
            return cfg
        raise ConfigError(f"ground-truth mode '{mode}' (use stored, live or "
                          "snapshot:FOLDER[@YYYY-MM-DD])")


class Capture:
    def __init__(self, cfg: TruthConfig) -> None:
        self.cfg = cfg
        options = dict(cfg.options)
        if cfg.mode == "live":  # a cached table is never older than the capture window
            options["cache_s"] = min(float(options.get("cache_s", 30.0)), cfg.window_s)
        self.provider: Provider = make_provider(
            cfg.provider, snapshots=cfg.snapshots, date=cfg.date, **options)
        self.routing = routing_of(cfg.provider)  # the provider's own (truth/routing.py)
        # questions that name their instrument (assay watch) are resolved against these same
        # tables: one fetch per window serves the names and the truth (imported here, so that
        # `import assay.truth.capture` stays light for commands that never fetch)
        from .tables import TableProvider

        if isinstance(self.provider, TableProvider):
            from .names import use_tables

            use_tables(cfg.provider, self.provider)

    def names_instrument(self, item: Item) -> bool:
        """Whether the item names an instrument to look up (its code field, a Wind special):
        a conversation's turn that names none ("thanks") has no truth to capture."""
        return bool(self.routing.route(item.fields, field=self.cfg.code_field,
                                       market=self.cfg.market).instrument)

    async def fetch(self, item: Item) -> TruthSnapshot:
        return settled_snapshot(await self._fetch(item))

    async def _fetch(self, item: Item) -> TruthSnapshot:
        r = self.routing.route(item.fields, field=self.cfg.code_field, market=self.cfg.market)
        if r.error is not None:
            resolution = item.fields.get("instrument_resolution")
            why = resolution.get("message") if isinstance(resolution, dict) and \
                resolution.get("status") in ("ambiguous", "none") else None
            if why:  # the question names no one instrument: there is no truth (null), and
                # nothing to fix or retry, unlike an item whose code is missing or a failure
                return failed(self.cfg.provider, r.instrument or "?", "routing",
                              f"no ground truth: {why}", status="empty")
            return failed(self.cfg.provider, r.instrument or "?", "routing", r.error)
        try:
            return await self.provider.fetch(r.instrument, r.market, item.fields)
        except ConfigError:
            raise
        except Exception as exc:  # a provider's bug costs its item, not the run
            return failed(self.cfg.provider, r.instrument, "fetch",
                          f"{type(exc).__name__}: {exc}", market=r.market)


def settled_snapshot(snap: TruthSnapshot) -> TruthSnapshot:
    """A provider's snapshot made safe where it enters: unpaired surrogates and NULs in its
    values, payload and message replaced (the message then says so), and a provider token
    echoed anywhere in it masked (assay.core.secrets)."""
    parts = {"fields": snap.fields, "source_fields": snap.source_fields, "raw": snap.raw,
             "payload": snap.payload, "message": snap.message}
    out: dict[str, Any] = {}
    sanitized = False
    for name, value in parts.items():
        out[name], changed = safe_value(secrets.mask_value(value))
        sanitized = sanitized or changed
    if not sanitized and not secrets.active():
        return snap
    if sanitized:
        note = "sanitized: unpaired surrogates or NULs replaced"
        out["message"] = f"{out['message']}; {note}" if out["message"] else note
    return replace(snap, **out)
