"""An online run's rows (`assay watch`): its items arrive one trace at a time, under a dataset
row of their own; its counters (received, filtered, sampled out, dropped, unknown shapes) live
in the run's summary; the UI reads score over time and the latest samples from here."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, Integer, and_, case, cast, delete, exists, func, insert, select

from .repo import now, written_safely
from .schema import answers, datasets, items, results, runs, spans

UNKNOWN_SHAPE = "unknown trace shape: "  # the error of a stored trace that was not scored

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
    def write(batch: list[dict[str, Any]]) -> None:
        with engine.begin() as conn:
            conn.execute(insert(items), batch)

    if rows:  # text the trace boundary missed is replaced, not a watch stopped (repo.py)
        written_safely(write, rows)


def stored_counts(engine: Engine, run_id: str, *, remove_partial: bool = False
                  ) -> tuple[int, int, int]:
    """(evaluated, unknown shape, partial traces removed), as the store holds them: what the
    run's counters must say (a watch's counters, saved every second, can run ahead of its
    batched rows, and a `kill -9` loses the batch in memory). A trace is stored once it has its
    answer row; with `remove_partial`, an item without one (a kill between two writes of an
    older store, or an evaluation that raised) is removed with its spans, so a resend of that
    trace is evaluated rather than taken for a duplicate."""
    did = dataset_id(run_id)
    has_answer = exists().where(answers.c.run_id == run_id, answers.c.item_id == items.c.item_id)
    with engine.begin() as conn:
        removed = 0
        if remove_partial:
            partial = list(conn.execute(select(items.c.item_id).where(
                items.c.dataset_id == did, ~has_answer)).scalars())
            for start in range(0, len(partial), 500):
                chunk = partial[start:start + 500]
                conn.execute(delete(spans).where(spans.c.run_id == run_id,
                                                 spans.c.item_id.in_(chunk)))
                conn.execute(delete(results).where(results.c.run_id == run_id,
                                                   results.c.item_id.in_(chunk)))
                conn.execute(delete(items).where(items.c.dataset_id == did,
                                                 items.c.item_id.in_(chunk)))
            removed = len(partial)
        unknown = answers.c.error.like(UNKNOWN_SHAPE + "%")
        row = conn.execute(select(
            func.sum(case((unknown, 0), else_=1)), func.sum(case((unknown, 1), else_=0)))
            .where(answers.c.run_id == run_id)).one()
    return int(row[0] or 0), int(row[1] or 0), removed


def recent_item_ids(engine: Engine, run_id: str, limit: int) -> list[str]:
    """The last traces an online run took in: a restart does not take them in twice."""
    with engine.connect() as conn:
        return [r[0] for r in conn.execute(
            select(items.c.item_id).where(items.c.dataset_id == dataset_id(run_id))
            .order_by(items.c.line.desc()).limit(limit))]


def stored_items(engine: Engine, run_id: str, item_ids: list[str]) -> set[str]:
    """Which of these traces the run already holds (an exporter resending one the watcher no
    longer remembers): one query for a batch of traces."""
    if not item_ids:
        return set()
    with engine.connect() as conn:
        return {r[0] for r in conn.execute(select(items.c.item_id).where(
            items.c.dataset_id == dataset_id(run_id), items.c.item_id.in_(item_ids)))}


def last_line(engine: Engine, run_id: str) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.max(items.c.line)).where(
            items.c.dataset_id == dataset_id(run_id))).scalar() or 0)


def score_over_time(engine: Engine, run_id: str, bucket: str = "minute",
                    buckets: int = 240) -> list[dict[str, Any]]:
    """Per evaluator and minute (or hour) of the last `buckets`: results, scored, mean score —
    by the results' times (when the samples were evaluated), grouped in SQL, so a page polled
    every few seconds reads a few hundred rows, not every result of a long run."""
    step = BUCKETS[bucket]
    if engine.dialect.name == "sqlite":
        epoch: Any = cast(func.strftime("%s", results.c.created_at), Integer)
    else:
        epoch = cast(func.floor(func.extract("epoch", results.c.created_at)), Integer)
    at = (epoch // step * step).label("at")  # floor division in SQL on either database
    scored = and_(results.c.status == "scored", results.c.score.is_not(None))
    cutoff = datetime.fromtimestamp((int(now().timestamp()) // step - buckets + 1) * step, UTC)
    q = (select(results.c.evaluator, at, func.count().label("n"),
                func.sum(case((scored, 1), else_=0)).label("scored"),
                func.avg(case((scored, results.c.score), else_=None)).label("mean"))
         .where(results.c.run_id == run_id, results.c.created_at >= cutoff,
                # an evaluator's results on traces it does not apply to are no results of it
                results.c.status != "skipped")
         .group_by(results.c.evaluator, at).order_by(at, results.c.evaluator))
    with engine.connect() as conn:
        rows = conn.execute(q).all()
    return [{"evaluator": r.evaluator, "at": datetime.fromtimestamp(int(r.at), UTC).isoformat(),
             "results": int(r.n), "scored": int(r.scored or 0),
             "mean": round(float(r.mean), 4) if r.mean is not None else None} for r in rows]


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
