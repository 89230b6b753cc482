"""The run list as the UI shows it: newest first, with each run's summary and name."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, select

from .schema import runs


def list_with_summaries(engine: Engine, limit: int = 200) -> list[dict[str, Any]]:
    """id, kind, status, created_at, finished_at, dataset_id, summary and the manifest's name of
    the newest runs, without the rest of the manifest."""
    with engine.connect() as conn:
        rows = conn.execute(select(runs.c.id, runs.c.kind, runs.c.status, runs.c.created_at,
                                   runs.c.finished_at, runs.c.dataset_id, runs.c.summary,
                                   runs.c.manifest["name"].as_string().label("name"))
                            .order_by(runs.c.created_at.desc()).limit(limit)).mappings().all()
    return [dict(r) for r in rows]
