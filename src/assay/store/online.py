"""An online run's rows (`assay watch`): its items arrive one trace at a time, under a dataset
row of their own; its counters (received, filtered, sampled out, dropped, unknown shapes) live
in the run's summary; the UI reads score over time and the latest samples from here."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, func, insert, select

from .repo import now
from .rows import aware
from .schema import answers, datasets, items, results, runs

BUCKETS = {"minute": 60, "hour": 3600}


def dataset_id(run_id: str) -> str:
    return f"online:{run_id}"[:64]


def create_dataset(engine: Engine, run_id: str, name: str, path: str) -> str:
    """The dataset row an online run's items hang on (its items table grows as traces come)."""
    did = dataset_id(run_id)
    with engine.begin() as conn:
        if conn.execute(select(datasets.c.id).where(datasets.c.id == did)).first() is None:
            conn.execute(insert(datasets), [{"id": did, "name": name, "path": path,
                                             "format": "otlp", "n_items": 0,
                                             "created_at": now()}])
    return did


def write_items(engine: Engine, rows: list[dict[str, Any]]) -> None:
    """Items of traces just read, in one transaction (they precede their samples' rows)."""
    if rows:
        with engine.begin() as conn:
            conn.execute(insert(items), rows)


def recent_item_ids(engine: Engine, run_id: str, limit: int) -> list[str]:
    """The last traces an online run took in: a restart does not take them in twice."""
    with engine.connect() as conn:
        return [r[0] for r in conn.execute(
            select(items.c.item_id).where(items.c.dataset_id == dataset_id(run_id))
            .order_by(items.c.line.desc()).limit(limit))]


def last_line(engine: Engine, run_id: str) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.max(items.c.line)).where(
            items.c.dataset_id == dataset_id(run_id))).scalar() or 0)


def score_over_time(engine: Engine, run_id: str, bucket: str = "minute"
                    ) -> list[dict[str, Any]]:
    """Per evaluator and minute (or hour): results, scored, mean score — from the results'
    times, which are the times the samples were evaluated."""
    step = BUCKETS[bucket]
    with engine.connect() as conn:
        rows = conn.execute(select(results.c.evaluator, results.c.created_at, results.c.status,
                                   results.c.score).where(results.c.run_id == run_id)).all()
    acc: dict[tuple[str, int], list[float]] = {}
    counts: dict[tuple[str, int], int] = {}
    for evaluator, at, status, score in rows:
        t = int(aware(at).timestamp()) // step * step
        key = (evaluator, t)
        counts[key] = counts.get(key, 0) + 1
        if status == "scored" and score is not None:
            acc.setdefault(key, []).append(float(score))
    out = []
    for (evaluator, t), n in sorted(counts.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        scores = acc.get((evaluator, t), [])
        out.append({"evaluator": evaluator, "at": datetime.fromtimestamp(t, UTC).isoformat(),
                    "results": n, "scored": len(scores),
                    "mean": round(sum(scores) / len(scores), 4) if scores else None})
    return out


def latest_samples(engine: Engine, run_id: str, limit: int = 20) -> list[dict[str, Any]]:
    """The newest samples: question, answer, answer time, and each evaluator's result."""
    did = dataset_id(run_id)
    with engine.connect() as conn:
        its = conn.execute(select(items.c.item_id, items.c.fields).where(
            items.c.dataset_id == did).order_by(items.c.line.desc()).limit(limit)).all()
        ids = [r.item_id for r in its]
        res = conn.execute(select(results.c.item_id, results.c.evaluator, results.c.status,
                                  results.c.score, results.c.reason).where(
            results.c.run_id == run_id, results.c.item_id.in_(ids))).all() if ids else []
        errs = dict(conn.execute(select(answers.c.item_id, answers.c.error).where(
            answers.c.run_id == run_id, answers.c.item_id.in_(ids))).all()) if ids else {}
    by_item: dict[str, list[dict[str, Any]]] = {}
    for r in res:
        by_item.setdefault(r.item_id, []).append(
            {"evaluator": r.evaluator, "status": r.status, "score": r.score,
             "reason": r.reason})
    return [{"item_id": r.item_id, "question": (r.fields or {}).get("prompt"),
             "answer": (r.fields or {}).get("response"),
             "answered_at": (r.fields or {}).get("answered_at"),
             "service": (r.fields or {}).get("service"),
             "unknown": (r.fields or {}).get("unknown_shape"),
             "error": errs.get(r.item_id), "results": by_item.get(r.item_id, [])}
            for r in its]


def online_counters(engine: Engine, run_id: str) -> dict[str, Any]:
    with engine.connect() as conn:
        summary = conn.execute(select(runs.c.summary).where(runs.c.id == run_id)).scalar()
    value = (summary or {}).get("online")
    return dict(value) if isinstance(value, dict) else {}
