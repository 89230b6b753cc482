"""What the pages and the API read: one function per view, shared by both, each a bounded read
from the store (a page of results, one item), so a run of 100,000 items stays fast."""

from __future__ import annotations

from typing import Any

from assay.core.errors import ConfigError
from assay.report.aggregate import summary_by_evaluator
from assay.report.calibration import run_calibrations
from assay.store import dataset_names, repo
from assay.store import datasets as stored_datasets
from assay.store import results as stored_results
from assay.store import reviews as stored_reviews
from assay.store import runs as stored_runs
from assay.store.costs import run_cost_sheet
from assay.store.db import Engine
from assay.store.rows import answer_record, result_record

PAGE = 50


def run_or_404(engine: Engine, run_id: str) -> dict[str, Any]:
    run = repo.get_run(engine, run_id)
    if run is None:
        raise LookupError(f"no run '{run_id}'")
    return run


def runs_list(engine: Engine, limit: int = 200) -> list[dict[str, Any]]:
    out = []
    for r in stored_runs.list_with_summaries(engine, limit):
        summary = (r["summary"] or {}).get("evaluators") or {}
        out.append({"id": r["id"], "kind": r["kind"], "status": r["status"],
                    "name": r["name"], "created_at": r["created_at"],
                    "dataset_id": r["dataset_id"],
                    "means": {k: v.get("mean") for k, v in summary.items()}})
    return out


# A finished run's results only change by review: its summary is kept between requests.
_SUMMARIES: dict[tuple[int, str, int], dict[str, Any]] = {}
_EVALUATORS: dict[tuple[int, str], list[str]] = {}


def run_summary(engine: Engine, run_id: str) -> dict[str, Any]:
    run = run_or_404(engine, run_id)
    key = (id(engine), run_id, stored_reviews.newest_review_id(engine, run_id))
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
    aggs = summary_by_evaluator(engine, run_id)
    return {"run": {k: run[k] for k in ("id", "kind", "status", "created_at", "finished_at",
                                        "dataset_id")},
            "manifest": run["manifest"], "evaluators": {k: a.as_dict() for k, a in
                                                        aggs.items()},
            "costs": run_cost_sheet(engine, run_id).as_dict(),
            "budget": (run["summary"] or {}).get("budget"),
            "stop_reason": (run["summary"] or {}).get("stop_reason"),
            # LLM judges measured against finance-rubric where it decided (empty without both)
            "calibration": run_calibrations(engine, run_id) if len(aggs) > 1 else []}


def results_page(engine: Engine, run_id: str, *, evaluator: str | None = None,
                 status: str | None = None, label: str | None = None,
                 score: str | None = None, page: int = 1, size: int = PAGE
                 ) -> dict[str, Any]:
    run = run_or_404(engine, run_id)
    size = max(1, min(500, size))
    page = max(1, page)
    value: float | None = None
    if score and score not in ("none", "null"):
        try:
            value = float(score)
        except ValueError:
            raise ConfigError(f"score filter must be a number or none, not '{score}'") \
                from None
    total, rows = stored_results.results_page(
        engine, run_id, run["dataset_id"], evaluator=evaluator, status=status, label=label,
        score=value, no_score=score in ("none", "null"), limit=size, offset=(page - 1) * size)
    evaluators = _EVALUATORS.get((id(engine), run_id)) if run["status"] != "running" else None
    if evaluators is None:
        evaluators = stored_results.evaluator_names(engine, run_id)
        if run["status"] != "running":
            _EVALUATORS[(id(engine), run_id)] = evaluators
    return {"total": total, "page": page, "size": size,
            "pages": max(1, -(-total // size)), "rows": rows,
            "evaluators": sorted(evaluators)}


def labels(engine: Engine, run_id: str) -> list[str]:
    run = run_or_404(engine, run_id)
    return stored_datasets.item_labels(engine, run["dataset_id"])


def tree_order(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Spans parent first, children by start time under it, each with its `depth`: an agent's
    tool calls (timed by its own clock) sit under its target span, not wherever they began."""
    by_id = {s["span_id"] for s in spans}
    children: dict[str | None, list[dict[str, Any]]] = {}
    for s in spans:  # already by start time
        children.setdefault(s["parent_id"] if s["parent_id"] in by_id else None, []).append(s)
    out: list[dict[str, Any]] = []
    stack = [(s, 0) for s in reversed(children.get(None, []))]
    while stack:
        s, depth = stack.pop()
        out.append({**s, "depth": depth})
        stack.extend((c, depth + 1) for c in reversed(children.get(s["span_id"], [])))
    return out


def item_chain(engine: Engine, run_id: str, item_id: str) -> dict[str, Any]:
    """Everything about one item in one run: fields, answers, ground truth, results with
    evidence, reviews, spans."""
    run = run_or_404(engine, run_id)
    found = repo.get_items(engine, run["dataset_id"], [item_id])
    if item_id not in found:
        raise LookupError(f"run '{run_id}' has no item '{item_id}'")
    item = found[item_id]
    res = stored_results.item_results(engine, run_id, item_id)
    answers = {(a["item_id"], a["target"], a["epoch"]): answer_record(a)
               for a in repo.list_answers(engine, run_id, item_id)}
    truths = {(t["item_id"], t["target"], t["epoch"]): t
              for t in repo.list_truth(engine, run_id, item_id)}
    reviews = repo.latest_reviews(engine, run_id)
    spans = tree_order(repo.list_spans(engine, run_id, item_id))
    rows = []
    for r in res:
        key = (item_id, r["target"], r["epoch"])
        rows.append({**result_record(r), "fields": item.fields, "answer": answers.get(key),
                     "truth": truths.get(key), "review": reviews.get((*key, r["evaluator"])),
                     "spans": [{**s, "ms": (s["end_at"] - s["start_at"]).total_seconds() * 1000
                                if s["end_at"] else None} for s in spans
                               if (s["attributes"] or {}).get("target") in (None, r["target"])
                               and (s["attributes"] or {}).get("epoch") in (None, r["epoch"])]})
    return {"run_id": run_id, "item_id": item_id, "fields": item.fields, "results": rows}


def datasets_list(engine: Engine) -> list[dict[str, Any]]:
    return stored_datasets.list_datasets(engine)


def named_versions(engine: Engine) -> list[dict[str, Any]]:
    """Every named dataset version (`assay datasets add`), by name and number."""
    return [{**v.__dict__, "ref": v.ref} for v in dataset_names.versions(engine)]
