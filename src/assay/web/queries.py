"""What the pages and the API read: one function per view, shared by both, each a bounded
query (a page of results, one item), so a run of 100,000 items stays fast."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, and_, func, select

from assay.core.errors import ConfigError
from assay.report.aggregate import summary_sql
from assay.store import repo
from assay.store.schema import datasets, items, results, runs

PAGE = 50


def run_or_404(engine: Engine, run_id: str) -> dict[str, Any]:
    run = repo.get_run(engine, run_id)
    if run is None:
        raise LookupError(f"no run '{run_id}'")
    return run


def runs_list(engine: Engine, limit: int = 200) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        rows = conn.execute(select(runs.c.id, runs.c.kind, runs.c.status, runs.c.created_at,
                                   runs.c.finished_at, runs.c.dataset_id, runs.c.summary,
                                   runs.c.manifest["name"].as_string().label("name"))
                            .order_by(runs.c.created_at.desc()).limit(limit)).mappings().all()
    out = []
    for r in rows:
        summary = (r["summary"] or {}).get("evaluators") or {}
        out.append({"id": r["id"], "kind": r["kind"], "status": r["status"],
                    "name": r["name"], "created_at": r["created_at"],
                    "dataset_id": r["dataset_id"],
                    "means": {k: v.get("mean") for k, v in summary.items()}})
    return out


# A finished run's results only change by review: its summary is kept between requests.
_SUMMARIES: dict[tuple[int, str, int], dict[str, Any]] = {}
_EVALUATORS: dict[tuple[int, str], list[str]] = {}


def _review_mark(engine: Engine, run_id: str) -> int:
    from assay.store.schema import reviews

    with engine.connect() as conn:
        return int(conn.execute(select(func.coalesce(func.max(reviews.c.id), 0))
                                .where(reviews.c.run_id == run_id)).scalar_one())


def run_summary(engine: Engine, run_id: str) -> dict[str, Any]:
    run = run_or_404(engine, run_id)
    key = (id(engine), run_id, _review_mark(engine, run_id))
    if run["status"] != "running" and key in _SUMMARIES:
        return _SUMMARIES[key]
    out = _summary(engine, run)
    if run["status"] != "running":
        if len(_SUMMARIES) > 64:
            _SUMMARIES.clear()
        _SUMMARIES[key] = out
    return out


def _summary(engine: Engine, run: dict[str, Any]) -> dict[str, Any]:
    run_id = run["id"]
    aggs = summary_sql(engine, run_id)
    return {"run": {k: run[k] for k in ("id", "kind", "status", "created_at", "finished_at",
                                        "dataset_id")},
            "manifest": run["manifest"], "evaluators": {k: a.as_dict() for k, a in
                                                        aggs.items()}}


def results_page(engine: Engine, run_id: str, *, evaluator: str | None = None,
                 status: str | None = None, label: str | None = None,
                 score: str | None = None, page: int = 1, size: int = PAGE
                 ) -> dict[str, Any]:
    run = run_or_404(engine, run_id)
    size = max(1, min(500, size))
    page = max(1, page)
    conds = [results.c.run_id == run_id]
    if evaluator:
        conds.append(results.c.evaluator == evaluator)
    if status:
        conds.append(results.c.status == status)
    if score:
        if score in ("none", "null"):
            conds.append(results.c.score.is_(None))
        else:
            try:
                conds.append(results.c.score == float(score))
            except ValueError:
                raise ConfigError(f"score filter must be a number or none, not '{score}'") \
                    from None
    base = select(results.c.id).where(*conds)
    label_col = items.c.label
    with engine.connect() as conn:
        if label:
            # items.label is its own indexed column: the join runs from the label's items to
            # their results through the (run, item, …) unique index
            base = base.join(items, and_(items.c.dataset_id == run["dataset_id"],
                                         items.c.item_id == results.c.item_id)
                             ).where(items.c.label == label)
        total = conn.execute(select(func.count()).select_from(base.subquery())).scalar_one()
        ids = [r[0] for r in conn.execute(base.order_by(results.c.id).limit(size)
                                          .offset((page - 1) * size))]
        rows = conn.execute(
            select(results.c.item_id, results.c.target, results.c.epoch,
                   results.c.evaluator, results.c.score, results.c.status,
                   results.c.reason, label_col.label("label"))
            .join(items, and_(items.c.dataset_id == run["dataset_id"],
                              items.c.item_id == results.c.item_id), isouter=True)
            .where(results.c.id.in_(ids)).order_by(results.c.id)).mappings().all() \
            if ids else []
        evaluators = _EVALUATORS.get((id(engine), run_id)) if run["status"] != "running" \
            else None
        if evaluators is None:
            evaluators = [r[0] for r in conn.execute(
                select(results.c.evaluator).where(results.c.run_id == run_id).distinct())]
            if run["status"] != "running":
                _EVALUATORS[(id(engine), run_id)] = evaluators
    return {"total": total, "page": page, "size": size,
            "pages": max(1, -(-total // size)), "rows": [dict(r) for r in rows],
            "evaluators": sorted(evaluators)}


def labels(engine: Engine, run_id: str) -> list[str]:
    run = run_or_404(engine, run_id)
    with engine.connect() as conn:
        return sorted(r[0] for r in conn.execute(
            select(items.c.label).where(items.c.dataset_id == run["dataset_id"],
                                        items.c.label.is_not(None)).distinct()))


def item_chain(engine: Engine, run_id: str, item_id: str) -> dict[str, Any]:
    """Everything about one item in one run: fields, answers, ground truth, results with
    evidence, reviews, spans."""
    run = run_or_404(engine, run_id)
    found = repo.get_items(engine, run["dataset_id"], [item_id])
    if item_id not in found:
        raise LookupError(f"run '{run_id}' has no item '{item_id}'")
    item = found[item_id]
    with engine.connect() as conn:
        res = [dict(r) for r in conn.execute(
            select(results).where(results.c.run_id == run_id, results.c.item_id == item_id)
            .order_by(results.c.id)).mappings().all()]
    answers = {(a["item_id"], a["target"], a["epoch"]): a
               for a in repo.list_answers(engine, run_id, item_id)}
    truths = {(t["item_id"], t["target"], t["epoch"]): t
              for t in repo.list_truth(engine, run_id, item_id)}
    reviews = repo.latest_reviews(engine, run_id)
    spans = repo.list_spans(engine, run_id, item_id)
    rows = []
    for r in res:
        key = (item_id, r["target"], r["epoch"])
        rows.append({**r, "fields": item.fields, "answer": answers.get(key),
                     "truth": truths.get(key), "review": reviews.get((*key, r["evaluator"])),
                     "spans": [{**s, "ms": (s["end_at"] - s["start_at"]).total_seconds() * 1000
                                if s["end_at"] else None} for s in spans
                               if (s["attributes"] or {}).get("target") in (None, r["target"])
                               and (s["attributes"] or {}).get("epoch") in (None, r["epoch"])]})
    return {"run_id": run_id, "item_id": item_id, "fields": item.fields, "results": rows}


def datasets_list(engine: Engine) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        return [dict(r) for r in conn.execute(select(datasets).order_by(
            datasets.c.created_at.desc())).mappings().all()]
