"""What the pages and the API read: one function per view, shared by both, each a bounded read
from the store (a page of results, one item), so a run of 100,000 items stays fast."""

from __future__ import annotations

from typing import Any

from assay.core.conversation import OUTCOMES
from assay.core.errors import ConfigError
from assay.report import charts, itemview
from assay.report.aggregate import summary_by_evaluator
from assay.report.calibration import run_calibrations
from assay.report.compare import compare_runs
from assay.report.provenance import dataset_warnings
from assay.report.reasons import stated_reason
from assay.report.stats import percentile
from assay.store import browse, dataset_names, repo
from assay.store import conversations as stored_conversations
from assay.store import datasets as stored_datasets
from assay.store import results as stored_results
from assay.store import reviews as stored_reviews
from assay.store.costs import run_cost_sheet
from assay.store.db import Engine
from assay.store.rows import answer_record, result_record

from . import conversation as conversation_view

PAGE = 50


def run_or_404(engine: Engine, run_id: str) -> dict[str, Any]:
    run = repo.get_run(engine, run_id)
    if run is None:
        raise LookupError(f"no run '{run_id}'")
    return run


def runs_list(engine: Engine, limit: int = 200, text: str | None = None
              ) -> list[dict[str, Any]]:
    out = []
    for r in browse.run_list(engine, limit, text or None):
        summary = r["summary"] or {}
        evaluators = summary.get("evaluators") or {}
        targets = r["targets"] if isinstance(r["targets"], dict) else {}
        out.append({"id": r["id"], "kind": r["kind"], "status": r["status"],
                    "name": r["name"], "created_at": r["created_at"],
                    "dataset_id": r["dataset_id"],
                    "tags": [str(t) for t in r["tags"]] if isinstance(r["tags"], list) else [],
                    "targets": sorted(targets), "items": r["items"],
                    "cost": (summary.get("costs") or {}).get("total"),
                    "means": {k: v.get("mean") for k, v in evaluators.items()}})
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
            "calibration": run_calibrations(engine, run_id) if len(aggs) > 1 else [],
            # conversations per outcome and target (empty: the run has none), one GROUP BY
            "outcomes": conversation_view.outcome_table(
                stored_conversations.outcome_counts(engine, run_id)),
            # finance-cause's causes per target, one GROUP BY on evidence.cause (None: the
            # run has no result of it)
            "causes": _causes(engine, run_id, set(aggs))}


def _causes(engine: Engine, run_id: str, evaluators: set[str]) -> dict[str, Any] | None:
    name = conversation_view.CAUSE_EVALUATOR
    if name not in evaluators:
        return None
    return conversation_view.cause_table(
        stored_results.evidence_counts(engine, run_id, name, "cause"))


def results_page(engine: Engine, run_id: str, *, evaluator: str | None = None,
                 status: str | None = None, label: str | None = None,
                 score: str | None = None, text: str | None = None,
                 where: list[str] | None = None, outcome: str | None = None, sort: str = "",
                 page: int = 1, size: int = PAGE) -> dict[str, Any]:
    """One page of a run's results, filtered (evaluator, status, label, score, `text` in the
    question, answer or reason, `where` "FIELD=VALUE" on any item field, `outcome`: the
    conversations that ended so) and sorted; each row's `reason` is the judge's own
    (report/reasons.py), not how its reply was parsed."""
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
    if outcome and outcome not in OUTCOMES:
        raise ConfigError(f"outcome filter must be one of {', '.join(OUTCOMES)}, "
                          f"not '{outcome}'")
    if sort not in browse.SORTS:
        raise ConfigError(f"sort must be one of {', '.join(s for s in browse.SORTS if s)}, "
                          f"not '{sort}'")
    total, rows = browse.browse_page(
        engine, run_id, run["dataset_id"], evaluator=evaluator, status=status, label=label,
        score=value, no_score=score in ("none", "null"), text=text or None,
        where=parse_where(where or []), outcome=outcome or None, sort=sort, limit=size,
        offset=(page - 1) * size)
    for r in rows:
        r["parse_note"] = r["reason"] if r["how"] and r["reason"] == r["how"] else None
        r["reason"] = stated_reason(r["reason"], r.pop("how"), r.pop("reply"))
        del r["id"]
    evaluators = _EVALUATORS.get((id(engine), run_id)) if run["status"] != "running" else None
    if evaluators is None:
        evaluators = stored_results.evaluator_names(engine, run_id)
        if run["status"] != "running":
            _EVALUATORS[(id(engine), run_id)] = evaluators
    return {"total": total, "page": page, "size": size,
            "pages": max(1, -(-total // size)), "rows": rows,
            "evaluators": sorted(evaluators)}


def parse_where(where: list[str]) -> dict[str, str]:
    """["tags=Stock", "method=x"] → {"tags": "Stock", …}; an entry without "=" is refused."""
    out: dict[str, str] = {}
    for w in where:
        if not w.strip():
            continue
        name, eq, value = w.partition("=")
        if not eq or not name.strip():
            raise ConfigError(f"an item-field filter is FIELD=VALUE, not '{w}'")
        if any(ord(ch) < 32 for ch in name):  # SQLite's JSON path refuses a NUL (a 500 before)
            raise ConfigError(f"an item-field filter's FIELD has a control character: {name!r}")
        out[name.strip()] = value.strip()
    return out


def item_fields(engine: Engine, run_id: str) -> list[str]:
    return browse.field_names(engine, run_or_404(engine, run_id)["dataset_id"])


_CHARTS: dict[tuple[int, str, int], dict[str, Any]] = {}


def run_charts(engine: Engine, run_id: str) -> dict[str, Any]:
    """The run page's charts, drawn by report/charts.py as the HTML report draws them: score
    by evaluator (corrected by reviews, with 95 % intervals), by label (from the run's stored
    summary), and the answers' latency per target with percentiles."""
    run = run_or_404(engine, run_id)
    key = (id(engine), run_id, stored_reviews.newest_review_id(engine, run_id))
    if run["status"] != "running" and key in _CHARTS:
        return _CHARTS[key]
    s = run_summary(engine, run_id)
    overall = charts.bars([(n, a.get("corrected_mean", a.get("mean")),
                            a.get("corrected_ci95", a.get("ci95")), a.get("scored", 0))
                           for n, a in s["evaluators"].items()])
    by_label = {name: charts.bars([(g, a.get("mean"), a.get("ci95"), a.get("scored", 0))
                                   for g, a in sorted(groups.items())])
                for name, groups in ((run["summary"] or {}).get("by_label") or {}).items()}
    lat: dict[str, list[float]] = {}
    for target, seconds in browse.answer_latencies(engine, run_id):
        lat.setdefault(target, []).append(seconds)
    latency = {t: {"chart": charts.histogram(v), "n": len(v), "p50": percentile(v, 0.5),
                   "p90": percentile(v, 0.9), "p99": percentile(v, 0.99)}
               for t, v in sorted(lat.items())}
    out = {"overall": overall, "by_label": by_label, "latency": latency}
    if run["status"] != "running":
        if len(_CHARTS) > 64:
            _CHARTS.clear()
        _CHARTS[key] = out
    return out


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


def item_view(engine: Engine, run_id: str, item_id: str) -> dict[str, Any]:
    """The item page: the item's fields once; per sample (target, epoch) its answer with the
    rubric's values marked, its ground truth with the gap in words and a stale flag, its spans
    as a waterfall; per evaluator its score, the judge's own reason and its evidence. A sample
    that is a conversation has `conversation` (web/conversation.py): its outcome and its turns
    with their scores, read in two queries (turns, turn results) whatever their number."""
    chain = item_chain(engine, run_id, item_id)
    played = stored_conversations.conversation_turns(engine, run_id, item_id)
    samples: dict[tuple[str, int], dict[str, Any]] = {}
    for row in chain["results"]:
        key = (row["target"], row["epoch"])
        sample = samples.get(key)
        if sample is None:
            truth = row["truth"]
            gap = truth.get("gap_s") if truth else None
            sample = samples[key] = {
                "target": row["target"], "epoch": row["epoch"], "answer": row["answer"],
                "truth": truth, "gap": itemview.humane_gap(gap),
                "stale": itemview.is_stale(gap), "spans": itemview.waterfall(row["spans"]),
                "marked": None, "read": None, "evaluators": [], "conversation": None}
            turns = played.get((item_id, *key))
            if turns is not None or (row["answer"] or {}).get("outcome"):
                sample["conversation"] = conversation_view.conversation_record(
                    turns or [], row["answer"])
        ev = row.get("evidence") or {}
        row["stated"] = stated_reason(row["reason"], (ev.get("parsed") or {}).get("how"),
                                      ev.get("reply"))
        answer_text = (row["answer"] or {}).get("text") or ""
        if sample["marked"] is None and isinstance(ev.get("values"), list):
            read = (ev.get("read") or {}).get("text") if isinstance(ev.get("read"), dict) \
                else None
            text = read if read and read != answer_text else answer_text
            sample["read"] = {"text": read, "rewrites": (ev.get("read") or {}).get("rewrites")
                              } if read and read != answer_text else None
            sample["marked"] = itemview.marked(text, ev["values"], ev.get("ignored") or [])
            sample["marked_by"] = row["evaluator"]
        sample["evaluators"].append(row)
    return {"run_id": run_id, "item_id": item_id, "fields": chain["fields"],
            "samples": list(samples.values())}


def datasets_list(engine: Engine) -> list[dict[str, Any]]:
    return stored_datasets.list_datasets(engine)


def named_versions(engine: Engine) -> list[dict[str, Any]]:
    """Every named dataset version (`assay datasets add`), by name and number."""
    return [{**v.__dict__, "ref": v.ref} for v in dataset_names.versions(engine)]


def compare_matrix(engine: Engine, run_ids: list[str], *, evaluator: str | None = None,
                   changed_only: bool = False, page: int = 1, size: int = PAGE
                   ) -> dict[str, Any]:
    """Items × runs for one evaluator (by default the first that every run has): a page of
    samples, each with one cell per run (score and status, None where the run lacks it) and
    whether the runs differ on it."""
    for r in run_ids:
        run_or_404(engine, r)
    have: dict[str, set[str]] = {}
    for run, name in browse.evaluators_of(engine, run_ids):
        have.setdefault(name, set()).add(run)
    names = sorted(have, key=lambda n: (len(have[n]) < len(run_ids), n))
    if evaluator and evaluator not in have:
        raise ConfigError(f"no run here has evaluator '{evaluator}' "
                          f"(they have {', '.join(names) or 'none'})")
    chosen = evaluator or (names[0] if names else None)
    means = {r: ((run_summary(engine, r)["evaluators"].get(chosen) or {}).get("mean")
                 if chosen else None) for r in run_ids}
    if chosen is None:
        return {"runs": run_ids, "evaluators": [], "evaluator": None, "rows": [], "total": 0,
                "page": 1, "pages": 1, "means": means, "changed_only": changed_only}
    size = max(1, min(500, size))
    page = max(1, page)
    samples = _matrix_keys(engine, run_ids, chosen, changed_only)
    total = len(samples)
    cells = browse.matrix_cells(engine, run_ids, chosen,
                                samples[(page - 1) * size:page * size])
    by_sample: dict[tuple[str, str, int], dict[str, dict[str, Any]]] = {}
    for run, item, target, epoch, score, status in cells:
        by_sample.setdefault((item, target, epoch), {})[run] = {"score": score,
                                                                "status": status}
    rows = []
    for (item, target, epoch), got in sorted(by_sample.items()):
        row_cells = [got.get(r) for r in run_ids]
        seen = {(c["score"], c["status"] if c["score"] is None else "") if c else None
                for c in row_cells}
        rows.append({"item_id": item, "target": target, "epoch": epoch, "cells": row_cells,
                     "changed": len(seen) > 1})
    return {"runs": run_ids, "evaluators": names, "evaluator": chosen, "rows": rows,
            "total": total, "page": page, "pages": max(1, -(-total // size)), "means": means,
            "changed_only": changed_only}


# A comparison of finished runs only changes by review: its sample list (the matrix's rows)
# and its statistics are kept between requests, as the run summary is.
_MATRIX: dict[tuple[Any, ...], list[tuple[str, str, int]]] = {}
_PAIRS: dict[tuple[Any, ...], tuple[list[Any], list[str]]] = {}


def _finished_key(engine: Engine, run_ids: list[str]) -> tuple[Any, ...] | None:
    runs = [run_or_404(engine, r) for r in run_ids]
    if any(r["status"] == "running" for r in runs):
        return None
    return (id(engine), *run_ids,
            *(stored_reviews.newest_review_id(engine, r) for r in run_ids))


def _matrix_keys(engine: Engine, run_ids: list[str], evaluator: str, changed_only: bool
                 ) -> list[tuple[str, str, int]]:
    key = _finished_key(engine, run_ids)
    full = None if key is None else (*key, evaluator, changed_only)
    if full is not None and full in _MATRIX:
        return _MATRIX[full]
    samples = browse.matrix_keys(engine, run_ids, evaluator, changed_only=changed_only)
    if full is not None:
        if len(_MATRIX) > 16:
            _MATRIX.clear()
        _MATRIX[full] = samples
    return samples


def comparison(engine: Engine, run_ids: list[str]) -> tuple[list[Any], list[str]]:
    """report.compare.compare_runs and the runs' dataset warnings, kept for finished runs
    until their next review (both read every result or item: seconds at 100,000 items)."""
    key = _finished_key(engine, run_ids)
    if key is not None and key in _PAIRS:
        return _PAIRS[key]
    pairs = compare_runs(engine, run_ids)
    out = (pairs, dataset_warnings(engine, run_ids) if pairs else [])
    if key is not None:
        if len(_PAIRS) > 16:
            _PAIRS.clear()
        _PAIRS[key] = out
    return out


def side_by_side(engine: Engine, run_ids: list[str], item_id: str) -> dict[str, Any]:
    """One item's chain in each run (question and truth once; per run its answers and, per
    evaluator, score, the judge's reason and evidence)."""
    columns: list[dict[str, Any]] = []
    fields: dict[str, Any] = {}
    for r in run_ids:
        try:
            chain = item_chain(engine, r, item_id)
        except LookupError:
            columns.append({"run_id": r, "missing": True, "results": []})
            continue
        fields = fields or chain["fields"]
        for row in chain["results"]:
            ev = row.get("evidence") or {}
            row["stated"] = stated_reason(row["reason"], (ev.get("parsed") or {}).get("how"),
                                          ev.get("reply"))
        columns.append({"run_id": r, "missing": False, "results": chain["results"]})
    if not fields:
        raise LookupError(f"no run of {', '.join(run_ids)} has item '{item_id}'")
    evaluators = sorted({row["evaluator"] for c in columns for row in c["results"]})
    return {"item_id": item_id, "fields": fields, "columns": columns, "evaluators": evaluators}


# The review queue's order of a finished run's samples (reviews only filter it): kept.
_QUEUE: dict[tuple[int, str], list[tuple[int, tuple[str, str, int]]]] = {}
QUEUE_KINDS = ("evaluators disagree", "abstained, unscored or failed", "the rest")


def _queue_order(engine: Engine, run: dict[str, Any]) -> list[tuple[int, tuple[str, str, int]]]:
    key = (id(engine), run["id"])
    if run["status"] != "running" and key in _QUEUE:
        return _QUEUE[key]
    by_sample: dict[tuple[str, str, int], list[tuple[float | None, str]]] = {}
    for r in stored_results.sample_scores(engine, run["id"]):
        by_sample.setdefault((r[0], r[1], r[2]), []).append((r[4], r[5]))
    order = []
    for sample, got in by_sample.items():
        if all(st == "skipped" for _, st in got):
            continue  # no evaluator applies to it: nothing to review
        binary = {s for s, st in got if st == "scored" and s in (0.0, 1.0)}
        if len(binary) > 1:
            kind = 0  # one evaluator passed it, another failed it
        elif any(st in ("abstained", "unscored", "error") for _, st in got):
            kind = 1
        else:
            kind = 2
        order.append((kind, sample))
    order.sort()
    if run["status"] != "running":
        if len(_QUEUE) > 16:
            _QUEUE.clear()
        _QUEUE[key] = order
    return order


def review_queue(engine: Engine, run_id: str, skip: int = 0) -> dict[str, Any]:
    """The next sample nobody has reviewed: samples where evaluators disagree (one passed it,
    one failed it: a judge against the rules) first, then those an evaluator abstained on,
    could not score or failed, then the rest; `skip` passes over that many. With the item's
    page view of it."""
    run = run_or_404(engine, run_id)
    reviewed = {k[:3] for k in repo.latest_reviews(engine, run_id)}
    left = [(kind, s) for kind, s in _queue_order(engine, run) if s not in reviewed]
    counts = [sum(1 for kind, _ in left if kind == i) for i in range(len(QUEUE_KINDS))]
    skip = max(0, min(skip, max(0, len(left) - 1)))
    out: dict[str, Any] = {"run_id": run_id, "left": len(left), "counts": counts,
                           "kinds": QUEUE_KINDS, "skip": skip, "reviewed": len(reviewed),
                           "next": None}
    if left:
        kind, (item_id, target, epoch) = left[skip]
        view = item_view(engine, run_id, item_id)
        view["samples"] = [s for s in view["samples"]
                           if (s["target"], s["epoch"]) == (target, epoch)]
        out["next"] = {"kind": QUEUE_KINDS[kind], "item_id": item_id, "target": target,
                       "epoch": epoch, "view": view}
    return out
