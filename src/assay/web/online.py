"""An online run (`assay watch`) as the UI shows it live: its counters (received, evaluated,
dropped …), score over time per minute or hour, and the latest samples; the page polls the
JSON of the same view."""

from __future__ import annotations

from typing import Any

from assay.core.errors import ConfigError
from assay.report import charts
from assay.store import online

from .queries import run_or_404

LATEST = 20


def online_view(engine: Any, run_id: str, bucket: str = "minute") -> dict[str, Any]:
    run = run_or_404(engine, run_id)
    if run["kind"] != "online":
        raise LookupError(f"run '{run_id}' is not an online run")
    if bucket not in online.BUCKETS:
        raise ConfigError(f"bucket must be one of {', '.join(online.BUCKETS)}, not '{bucket}'")
    m = run["manifest"] or {}
    return {"run": {k: run[k] for k in ("id", "kind", "status", "created_at", "finished_at")},
            "name": m.get("name"), "source": m.get("source"), "sample": m.get("sample"),
            "seed": m.get("seed"), "filter": m.get("filter"),
            "evaluators": [e.get("name") for e in m.get("evaluators", [])],
            "counters": online.online_counters(engine, run_id), "bucket": bucket,
            "over_time": online.score_over_time(engine, run_id, bucket),
            "latest": online.latest_samples(engine, run_id, LATEST)}


def over_time_chart(over_time: list[dict[str, Any]]) -> str:
    """The mean score per evaluator and minute (or hour) as a line chart (inline SVG); times
    shown as HH:MM (UTC), with the date when the rows span several days."""
    days = {r["at"][:10] for r in over_time}
    series: dict[str, list[tuple[str, float | None]]] = {}
    for r in over_time:
        at = r["at"][:16].replace("T", " ") if len(days) > 1 else r["at"][11:16]
        series.setdefault(r["evaluator"], []).append((at, r["mean"]))
    return charts.line(series)
