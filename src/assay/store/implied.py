"""The root spans a score run's samples imply rather than store.

A recorded answer judged by code against the item's own truth calls nothing and fetches
nothing: its trace is one span, the sample, and everything that span would say is already in
the sample's answer and result rows. Writing it would cost a score run a row per answer (about
a sixth of its store time), so it is made when read, the same every time: its ids are a hash
of the sample, its time the sample's first result. `list_spans` returns it beside the stored
spans, so `assay show`, the UI, the HTML report and the OTLP export see one trace model."""

from __future__ import annotations

import hashlib
from typing import Any

from sqlalchemy import Engine, and_, exists, func, select

from .schema import answers, results, spans


def implied_roots(engine: Engine, run_id: str, item_id: str | None = None
                  ) -> list[dict[str, Any]]:
    """A root span for each sample of the run with an answer and results but no span."""
    first = (select(results.c.item_id, results.c.target, results.c.epoch,
                    func.min(results.c.created_at).label("at"))
             .where(results.c.run_id == run_id)
             .group_by(results.c.item_id, results.c.target, results.c.epoch))
    if item_id is not None:
        first = first.where(results.c.item_id == item_id)
    done = first.subquery()
    traced = exists().where(spans.c.run_id == run_id, spans.c.item_id == answers.c.item_id)
    q = (select(answers.c.item_id, answers.c.target, answers.c.epoch, done.c.at)
         .join(done, and_(done.c.item_id == answers.c.item_id,
                          done.c.target == answers.c.target, done.c.epoch == answers.c.epoch))
         .where(answers.c.run_id == run_id, answers.c.error.is_(None), ~traced))
    if item_id is not None:
        q = q.where(answers.c.item_id == item_id)
    with engine.connect() as conn:
        return [root(run_id, r.item_id, r.target, r.epoch, r.at) for r in conn.execute(q)]


def root(run_id: str, item_id: str, target: str, epoch: int, at: Any) -> dict[str, Any]:
    ids = hashlib.blake2b(f"{run_id}\0{item_id}\0{target}\0{epoch}".encode(),
                          digest_size=24).hexdigest()
    return {"span_id": ids[32:], "trace_id": ids[:32], "parent_id": None, "run_id": run_id,
            "item_id": item_id, "kind": "sample", "name": item_id, "start_at": at,
            "end_at": at, "status": "ok",
            "attributes": {"target": target, "epoch": epoch, "answer": f"recorded ({target})",
                           "truth": "item field 'ground_truth'",
                           "stored_as": "answer and result rows (a span made when read)"}}
