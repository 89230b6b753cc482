"""`assay compare`, `assay review`, `assay export`, `assay report`: the CLI side of reports."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table

from assay.core.errors import ConfigError
from assay.core.outputs import refuse_inputs
from assay.core.tally import Tally as Agg
from assay.report.aggregate import aggregate
from assay.report.compare import compare_runs
from assay.report.export import export_run
from assay.report.gate import MaxDrop, check_options
from assay.report.provenance import dataset_warnings
from assay.store import repo
from assay.store.costs import run_cost_sheet
from assay.store.db import open_engine, store_file

from .terminal import escape


def _console() -> Console:
    c = Console()
    return c if c.is_terminal else Console(width=1000)


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def _ci(ci: tuple[float, float] | None) -> str:
    return "–" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def agg_table(title: str, first: str, rows: list[tuple[str, Agg]]) -> Table:
    """The figures of each row; a `skipped` column (results of evaluators that do not apply
    to the item: outside `items` and the mean) when any row has some."""
    t = Table(title=title)
    skipped = any(a.skipped for _, a in rows)
    for col in (first, "items", "scored", "mean", "95% CI", "null", "unscored", "abstained",
                "error", *(["skipped"] if skipped else []),
                "reviewed", "corrected mean"):
        t.add_column(col, justify="left" if col == first else "right")
    for name, a in rows:
        t.add_row(escape(name), str(a.items), str(a.scored), _pct(a.mean), _ci(a.ci),
                  str(a.null), str(a.unscored), str(a.abstained), str(a.error),
                  *([str(a.skipped)] if skipped else []), str(a.reviewed),
                  _pct(a.corrected_mean) if a.reviewed else "–")
    return t


def print_aggregates(run_id: str, db: str | None, by: str | None) -> None:
    engine = open_engine(db)
    agg = aggregate(engine, run_id, by)
    c = _console()
    c.print(agg_table("scores (95% CI: Wilson for 0/1 scores, else normal)", "evaluator",
                      list(agg.evaluators.items())))
    for name, groups in agg.groups.items():  # a group it applies to none of: no row
        c.print(agg_table(f"{name} by {by}", str(by), sorted(
            (g, a) for g, a in groups.items() if a.items or not a.skipped)))
    from .costs_view import print_costs

    run = repo.get_run(engine, run_id) or {}
    summary = run.get("summary") or {}
    print_costs(c, run_cost_sheet(engine, run_id), summary.get("budget") or {})


def compare(run_ids: list[str], *, evaluators: list[str], targets: list[str], db: str | None,
            show: int, as_json: bool, gate: CompareGate | None = None) -> int:
    from .ci_cmd import finish_compare

    gate = gate or CompareGate()
    check_options(gate.alpha, gate.min_paired, gate.resamples)
    refuse_inputs(gate.junit, "--junit", {"the store": store_file(db)})
    refuse_inputs(gate.markdown, "--markdown", {"the store": store_file(db)})
    engine = open_engine(db)
    if targets and len(targets) != len(run_ids):
        raise ConfigError("--target is given once per run, in the same order")
    tsel: list[str | None] | None = list(targets) if targets else None
    pairs = compare_runs(engine, run_ids, evaluators=evaluators or None, targets=tsel,
                         level=1 - gate.alpha,  # the interval the verdicts read: 95 % by default
                         resamples=gate.resamples)

    def finish() -> int:
        return finish_compare(engine, run_ids, pairs, targets=tsel,
                              fail_if_worse=gate.fail_if_worse, alpha=gate.alpha,
                              min_paired=gate.min_paired, resamples=gate.resamples,
                              junit=gate.junit, github=gate.github, as_json=as_json,
                              max_drop=gate.max_drop, markdown=gate.markdown)

    for warning in dataset_warnings(engine, run_ids):  # on stderr: --json output stays JSON
        Console(stderr=True, soft_wrap=True).print(escape(warning))
    if as_json:
        print(json.dumps([p.as_dict() for p in pairs], ensure_ascii=False, default=str))
        return finish()
    c = _console()
    t = Table(title=f"{run_ids[0]} (baseline) vs " + ", ".join(run_ids[1:]))
    level = pairs[0].ci_level if pairs else 0.95
    for col in ("evaluator", "run", "paired", "baseline mean", "mean", "difference",
                f"{100 * level:g}% CI (bootstrap)", "1→0", "0→1", "McNemar p", "only baseline",
                "only this run"):
        t.add_column(col, justify="left" if col in ("evaluator", "run") else "right")
    for p in pairs:
        t.add_row(escape(p.evaluator), p.other, str(p.paired), _pct(p.mean_base),
                  _pct(p.mean_other), "–" if p.diff is None else f"{p.diff:+.3f}",
                  _ci(p.ci95), str(len(p.to_worse)), str(len(p.to_better)),
                  "–" if p.mcnemar_p is None else f"{p.mcnemar_p:.1e}" if p.mcnemar_p < 1e-4
                  else f"{p.mcnemar_p:.4f}",
                  str(len(p.only_base)), str(len(p.only_other)))
    c.print(t)
    for p in pairs:
        for label, ids in (("1→0 (worse)", p.to_worse), ("0→1 (better)", p.to_better),
                           (f"only in {p.baseline}", p.only_base),
                           (f"only in {p.other}", p.only_other)):
            if ids:
                more = f" … and {len(ids) - show} more" if len(ids) > show else ""
                c.print(f"{escape(p.evaluator)} {p.other} {label}: "
                        + escape(", ".join(ids[:show])) + more)
        if p.unscored_pairs:
            c.print(f"{escape(p.evaluator)} {p.other}: {p.unscored_pairs} paired item(s) "
                    "without a score on one side (null, unscored or error) are not compared")
        if p.skipped:
            c.print(f"{escape(p.evaluator)} {p.other}: {p.skipped} item(s) it does not apply "
                    "to in one run or both (skipped, its when:) are not compared")
    return finish()


@dataclass(frozen=True)
class CompareGate:
    """compare's CI options: --fail-if-worse, --alpha, --min-paired, --resamples, --junit,
    --github."""

    fail_if_worse: bool = False
    alpha: float = 0.05
    min_paired: int = 10
    resamples: int = 2000
    junit: Path | None = None
    github: bool = False
    max_drop: MaxDrop = field(default_factory=MaxDrop)
    markdown: Path | None = None


def review(run_id: str, item_id: str | None, *, evaluator: str | None, score: str | None,
           reason: str | None, reviewer: str | None, target: str | None, epoch: int,
           db: str | None) -> int:
    engine = open_engine(db)
    c = _console()
    if item_id is None:  # list the run's reviews
        rows = sorted(repo.latest_reviews(engine, run_id).values(), key=lambda r: r["id"])
        t = Table(title=f"reviews of run {run_id}")
        for col in ("item", "target", "evaluator", "corrected", "reason", "reviewer", "when"):
            t.add_column(col)
        for r in rows:
            t.add_row(escape(r["item_id"]), escape(r["target"]), escape(r["evaluator"]),
                      "null" if r["score"] is None else f"{r['score']:g}",
                      escape(r["reason"]), escape(r["reviewer"]),
                      r["created_at"].strftime("%Y-%m-%d %H:%M"))
        c.print(t)
        return 0
    missing = [n for n, v in (("--evaluator", evaluator), ("--score", score),
                              ("--reason", reason), ("--reviewer", reviewer)) if not v]
    if missing:
        raise ConfigError(f"a review needs {', '.join(missing)}")
    assert evaluator and score and reason and reviewer
    value: float | None
    if score.lower() in ("null", "none"):
        value = None
    else:
        try:
            value = float(score)
        except ValueError:
            raise ConfigError(f"--score must be a number or null, not '{score}'") from None
    row = repo.add_review(engine, run_id=run_id, item_id=item_id, evaluator=evaluator,
                          score=value, reason=reason, reviewer=reviewer, target=target,
                          epoch=epoch)
    raw = row["raw_score"]
    c.print(f"review stored: {escape(item_id)} {escape(evaluator)} "
            f"{'null' if raw is None else f'{raw:g}'} → "
            f"{'null' if value is None else f'{value:g}'} by {escape(reviewer)} "
            "(the raw score is kept)")
    return 0


def export(run_id: str, fmt: str, out: Path, db: str | None) -> int:
    refuse_inputs(out, "--out", {"the store": store_file(db)})
    n = export_run(open_engine(db), run_id, fmt, out)
    Console(stderr=True).print(f"{n} row(s) written to {out}")
    return 0


def report(run_id: str, compare_with: list[str], out: Path, db: str | None, by: str | None,
           limit: int) -> int:
    from assay.report.html import write_report

    refuse_inputs(out, "--out", {"the store": store_file(db)})
    n = write_report(open_engine(db), run_id, compare_with, out, by=by, limit=limit)
    Console(stderr=True).print(f"report written to {out} ({n:,} bytes; opens offline)")
    return 0


