"""`assay watch SPEC`: listen for an agent's OTLP traces and score them as an online run."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from assay.core import secrets
from assay.core.errors import ConfigError
from assay.core.registry import install_hint
from assay.online.counters import Counters
from assay.store.db import open_engine


def heartbeat_line(c: Counters) -> str:
    """The watch's one-line heartbeat: what came in and what became of it."""
    waiting = c.traces - c.evaluated - c.unknown - c.failed - c.filtered_out - c.sampled_out \
        - c.dropped - c.duplicates
    return (f"watching: {c.traces} trace(s) received, {c.evaluated} evaluated"
            + (f", {waiting} in the queue" if waiting > 0 else "")
            + (f", {c.unknown} unknown shape" if c.unknown else "")
            + (f", {c.failed} failed" if c.failed else "")
            + (f", {c.dropped + c.dropped_waiting} dropped" if c.dropped + c.dropped_waiting
               else "")
            + (f", {c.bad_requests} request(s) refused" if c.bad_requests else ""))


def run_watch(spec_path: Path, *, db: str | None, models_file: Path | None,
              use_cache: bool) -> int:
    try:
        from assay.online.spec import load_watch_spec
        from assay.online.watch import watch
    except ImportError as exc:  # the OTLP decoding and conventions packages are an extra
        raise ConfigError(f"assay watch needs the 'online' extra ({exc.name} is missing): "
                          + install_hint("online")) from None
    from assay.online.watch import TOKEN_VARIABLE

    spec = load_watch_spec(spec_path)
    token = os.environ.get(TOKEN_VARIABLE) or None  # never stored: only its variable is named
    secrets.remember(token, TOKEN_VARIABLE)  # an agent's trace echoing it is stored masked
    engine = open_engine(db)

    def ready(run_id: str, port: int, resumed: bool) -> None:
        what = "resumed" if resumed else "started"
        # one plain line, flushed: scripts read the port from it (source.otlp may say port 0)
        print(f"online run {run_id} {what}: OTLP/HTTP on http://{spec.host}:{port}/v1/traces"
              + (" (token required)" if token else "") + " (Ctrl-C stops)", file=sys.stderr,
              flush=True)

    last: list[tuple[int, ...]] = [()]

    def tick(c: Counters) -> None:
        # one line when something changed since the last one: a quiet watch stays quiet
        now = (c.traces, c.evaluated, c.unknown, c.failed, c.dropped + c.dropped_waiting,
               c.bad_requests)
        if now == last[0]:
            return
        last[0] = now
        print(heartbeat_line(c), file=sys.stderr, flush=True)

    result = asyncio.run(watch(engine, spec, models_file=models_file, use_cache=use_cache,
                               on_ready=ready, token=token, on_tick=tick))
    c = result.counters
    print(f"stopped: {c.evaluated} evaluated, {c.unknown} unknown shape, {c.filtered_out} "
          f"filtered out, {c.sampled_out} sampled out, {c.dropped} dropped (backpressure), "
          f"{c.dropped_waiting} dropped waiting, {c.oversized} oversized, "
          f"{c.dropped_at_stop} dropped at stop, "
          f"{c.failed} failed; restart with the same spec to resume {result.run_id}",
          file=sys.stderr, flush=True)
    return 0
