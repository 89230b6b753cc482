"""Convention attributes for the root spans a score run's samples imply (store/implied.py):
the store makes those spans from the rows when read, but the conventions (traces/semconv.py)
live here, so a span leaving Assay — the OTLP export — gets its question in, its answer out and
its verdicts here, the same as a root span written while running."""

from __future__ import annotations

from typing import Any

from assay.core.types import Score, ScoreStatus
from assay.store import repo
from assay.store.db import Engine
from assay.store.rows import answer_from_row

from . import semconv


def with_conventions(engine: Engine, run_id: str, rows: list[dict[str, Any]]
                     ) -> list[dict[str, Any]]:
    implied = [r for r in rows if (r.get("attributes") or {}).get("stored_as")]
    if not implied:
        return rows
    run = repo.get_run(engine, run_id)
    ids = {r["item_id"] for r in implied}
    items = repo.get_items(engine, run["dataset_id"], ids) if run else {}
    answers: dict[tuple[str, str, int], dict[str, Any]] = {
        (a["item_id"], a["target"], a["epoch"]): a
               for a in repo.list_answers(engine, run_id) if a["item_id"] in ids}
    scores: dict[tuple[str, str, int], list[Score]] = {}
    for r in repo.list_results(engine, run_id):
        if r["item_id"] in ids:
            scores.setdefault((r["item_id"], r["target"], r["epoch"]), []).append(Score(
                r["score"], ScoreStatus(r["status"]), r["reason"] or "", r["evaluator"],
                r["evaluator_version"] or ""))
    out = []
    for row in rows:
        attrs = row.get("attributes") or {}
        item = items.get(row["item_id"]) if attrs.get("stored_as") else None
        if item is None:
            out.append(row)
            continue
        key = (str(row["item_id"]), str(attrs.get("target")), int(attrs.get("epoch") or 0))
        answer = answers.get(key)
        out.append({**row, "attributes": {**attrs, **semconv.root(
            item, answer_from_row(answer) if answer else None, scores.get(key, []))}})
    return out
