"""`assay report`: one self-contained HTML file — summary with intervals, charts (score by
group, latency distribution, judge agreement), conversations per outcome, LLM judges calibrated
against the rubric, an optional comparison, and a per-item table whose rows expand to the
item's trace. Everything a model wrote is escaped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, select_autoescape

from assay.core.conversation import OUTCOMES
from assay.core.errors import ConfigError
from assay.core.outputs import replaced
from assay.store import repo
from assay.store.conversations import outcome_counts
from assay.store.db import Engine
from assay.store.rows import answer_record, result_record

from . import charts
from .aggregate import aggregate
from .agreement import agreement
from .calibration import run_calibrations
from .causes import BY_CAUSE, cause_counts
from .compare import compare_runs
from .provenance import dataset_warnings
from .stats import percentile

TEMPLATES = Path(__file__).parent / "templates"


def env() -> Environment:
    e = Environment(loader=FileSystemLoader(TEMPLATES),
                    autoescape=select_autoescape(["html", "j2"]))
    e.filters["num"] = lambda x, d=3: "–" if x is None else f"{x:.{d}f}"
    e.filters["usd"] = lambda x: "–" if x is None else f"{x:.4f}" if x >= 0.01 else f"{x:.6f}"
    e.filters["ci"] = lambda ci: "–" if not ci else f"[{ci[0]:.3f}, {ci[1]:.3f}]"
    e.filters["pval"] = lambda x: "–" if x is None else (f"{x:.1e}" if x < 1e-4 else f"{x:.4f}")
    # JSON as people read it (CJK kept), escaped by autoescape like any other text
    e.filters["js"] = lambda v: json.dumps(v, ensure_ascii=False, default=str)
    e.filters["q"] = lambda s: quote(str(s), safe="")  # one path segment of a link
    return e


def item_rows(engine: Engine, run_id: str, limit: int) -> tuple[list[dict[str, Any]], int]:
    """Per-item rows with their trace, failures first; at most `limit` rows."""
    run = repo.get_run(engine, run_id)
    assert run is not None
    res = repo.list_results(engine, run_id)
    # failures first; results of evaluators that do not apply to the item (skipped) last
    order = {"error": 0, "abstained": 1, "unscored": 2, "null": 3, "skipped": 5}
    res.sort(key=lambda r: (order.get(r["status"], 3 if (r["score"] or 0) < 1 else 4),
                            r["item_id"]))
    chosen = res[:limit]
    ids = {r["item_id"] for r in chosen}
    items = repo.get_items(engine, run["dataset_id"], ids)
    answers = {(a["item_id"], a["target"], a["epoch"]): answer_record(a)
               for a in repo.list_answers(engine, run_id) if a["item_id"] in ids}
    truths = {(t["item_id"], t["target"], t["epoch"]): t
              for t in repo.list_truth(engine, run_id) if t["item_id"] in ids}
    reviews = repo.latest_reviews(engine, run_id)
    spans: dict[str, list[dict[str, Any]]] = {}
    if len(chosen) <= 5000:
        for s in repo.list_spans(engine, run_id):
            if s["item_id"] in ids:
                spans.setdefault(s["item_id"], []).append(s)
    rows = []
    for r in chosen:
        key = (r["item_id"], r["target"], r["epoch"])
        item = items.get(r["item_id"])
        rows.append({**result_record(r), "fields": item.fields if item else {},
                     "answer": answers.get(key),
                     "truth": truths.get(key), "review": reviews.get((*key, r["evaluator"])),
                     "spans": [{**s, "ms": (s["end_at"] - s["start_at"]).total_seconds() * 1000
                                if s["end_at"] else None} for s in spans.get(r["item_id"], [])
                               if (s["attributes"] or {}).get("target") in (None, r["target"])]})
    return rows, len(res)


def write_report(engine: Engine, run_id: str, compare_with: list[str], out: Path, *,
                 by: str | None = "label", limit: int = 2000) -> int:
    run = repo.require_run(engine, run_id)
    causes = cause_counts(engine, run_id)  # the "causes" section, when finance-cause ran
    by = None if by == BY_CAUSE else by  # --by cause: that section, not an item field
    agg = aggregate(engine, run_id, by)
    group_charts = {name: charts.bars([(g, a.mean, a.ci, a.scored) for g, a in
                                       sorted(groups.items())])
                    for name, groups in agg.groups.items()}
    overall_chart = charts.bars([(n, a.mean, a.ci, a.scored) for n, a in
                                 agg.evaluators.items()])
    latencies = {t: [a["latency_s"] for a in repo.list_answers(engine, run_id)
                     if a["target"] == t and a["latency_s"] is not None]
                 for t in agg.targets}
    latency_charts = {t: charts.histogram(v) for t, v in latencies.items() if v}
    pairs = agreement(repo.list_results(engine, run_id)) if len(agg.evaluators) > 1 else []
    calibrations = run_calibrations(engine, run_id) if len(agg.evaluators) > 1 else []
    comparison = compare_runs(engine, [run_id, *compare_with]) if compare_with else []
    data_warnings = dataset_warnings(engine, [run_id, *compare_with]) if compare_with else []
    rows, total = item_rows(engine, run_id, limit)
    html = env().get_template("report.html.j2").render(
        run=run, manifest=run["manifest"] or {}, agg=agg, by=by, overall_chart=overall_chart,
        group_charts=group_charts, latency_charts=latency_charts, pairs=pairs,
        calibrations=calibrations, outcomes=outcome_counts(engine, run_id),
        outcome_names=OUTCOMES, causes=causes, comparison=comparison,
        data_warnings=data_warnings, rows=rows, total=total, limit=limit,
        p=lambda v, q: percentile(v, q), latencies=latencies,
        css=(TEMPLATES / "assay.css").read_text("utf-8"))
    try:
        with replaced(out) as tmp:  # the old file stays whole until the new one is
            tmp.write_text(html, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write {out}: {exc.strerror or exc}") from None
    return len(html.encode())
