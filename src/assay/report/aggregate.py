"""Aggregates of a run, read from the store: per evaluator (per target too when a run has
several), the mean or pass rate with a 95 % interval — Wilson for 0/1 scores, normal
approximation otherwise — counts of null, unscored, abstained, error and skipped (not
applicable: outside the counts and the mean), the same after reviewers'
corrections, a breakdown by any item field (or by `outcome`: how each conversation ended), and
tokens, cost and latency percentiles."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from assay.core.tally import Tally as Agg
from assay.store import answers as stored_answers
from assay.store import repo
from assay.store import results as stored
from assay.store.conversations import failed_turns, outcomes
from assay.store.costs import run_cost_sheet
from assay.store.db import Engine

from .stats import percentile

OUTCOME = "outcome"  # --by outcome: how each conversation ended, not an item field


@dataclass
class RunAggregate:
    run_id: str
    by: str | None
    evaluators: dict[str, Agg] = field(default_factory=dict)
    groups: dict[str, dict[str, Agg]] = field(default_factory=dict)  # evaluator → value → Agg
    targets: dict[str, dict[str, Any]] = field(default_factory=dict)  # tokens, latency, cost
    cost: dict[str, float] = field(default_factory=dict)  # evaluator → model cost
    costs: dict[str, Any] = field(default_factory=dict)  # the cost sheet (core/costs.py)

    def as_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "by": self.by,
                "evaluators": {k: v.as_dict() for k, v in self.evaluators.items()},
                "groups": {k: {g: a.as_dict() for g, a in v.items()}
                           for k, v in self.groups.items()},
                "targets": self.targets, "cost": self.cost, "costs": self.costs}


def _group_values(value: Any) -> Iterable[str]:
    if value is None:
        return ["(none)"]
    if isinstance(value, list):
        return [str(v) for v in value] or ["(none)"]
    return [str(value)]


def aggregate(engine: Engine, run_id: str, by: str | None = "label") -> RunAggregate:
    repo.require_run(engine, run_id)
    reviews = repo.latest_reviews(engine, run_id)
    out = RunAggregate(run_id, by)
    # `--by outcome`: the conversation's outcome (answers.outcome), when the run has any
    ended = outcomes(engine, run_id) if by == OUTCOME else {}
    rows = stored.aggregate_rows(engine, run_id, None if ended else by)
    several = len({r.target for r in rows}) > 1
    for r in rows:
        name = f"{r.target} · {r.evaluator}" if several else r.evaluator
        review = reviews.get((r.item_id, r.target, r.epoch, r.evaluator))
        corrected: float | str | None = review["score"] if review else "none"
        out.evaluators.setdefault(name, Agg()).add(r.status, r.score, corrected)
        if r[6] is not None:
            out.cost[name] = out.cost.get(name, 0.0) + float(r[6])
        if by:
            per = out.groups.setdefault(name, {})
            group = ended.get((r.item_id, r.target, r.epoch)) if ended else r.group
            for g in _group_values(group):
                per.setdefault(g, Agg()).add(r.status, r.score, corrected)
    out.costs = run_cost_sheet(engine, run_id).as_dict()
    ans = stored_answers.answer_stats(engine, run_id)
    by_target: dict[str, list[Any]] = {}
    for a in ans:
        by_target.setdefault(a.target, []).append(a)
    failed = failed_turns(engine, run_id)  # one indexed GROUP BY; empty without conversations
    for name, rows_t in by_target.items():
        lat = [a.latency_s for a in rows_t if a.latency_s is not None]
        out.targets[name] = {
            "answers": len(rows_t),
            "errors": sum(1 for a in rows_t if a.error) + failed.get(name, 0),
            "tokens": sum(a.total_tokens or 0 for a in rows_t),
            "latency_p50": percentile(lat, 0.5), "latency_p95": percentile(lat, 0.95),
            "latency_p99": percentile(lat, 0.99)}
    return out


def summary_by_evaluator(engine: Engine, run_id: str) -> dict[str, Agg]:
    """Per evaluator (and target), from one GROUP BY over the run's results — fast enough for a
    page on 100,000 items — with reviewers' corrections applied on top."""
    rows = stored.status_counts(engine, run_id)
    several = len({r[0] for r in rows}) > 1
    out: dict[str, Agg] = {}
    for target, evaluator, status, n, total, sq, odd in rows:
        a = out.setdefault(f"{target} · {evaluator}" if several else evaluator, Agg())
        if status == "skipped":  # not applicable to these items: outside items and mean
            a.skipped += n
            continue
        a.items += n
        if status == "scored":
            a.scored += n
            a.total += total or 0.0
            a.sq += sq or 0.0
            a.binary = a.binary and not odd
        elif status in ("null", "unscored", "abstained"):
            setattr(a, status, getattr(a, status) + n)
        else:
            a.error += n
    for a in out.values():
        a.c_scored, a.c_total, a.c_sq = a.scored, a.total, a.sq
    reviews = repo.latest_reviews(engine, run_id)
    if reviews:
        raw = {(r.item_id, r.target, r.epoch, r.evaluator): (r.score, r.status)
               for r in stored.sample_scores(engine, run_id, {k[0] for k in reviews})}
        for key, review in reviews.items():
            if key not in raw:
                continue
            a = out[f"{key[1]} · {key[3]}" if several else key[3]]
            score, status = raw[key]
            if status == "skipped":  # as Tally.add: a review of it changes nothing
                continue
            a.reviewed += 1
            if status == "scored" and score is not None:  # take the raw score out …
                a.c_scored -= 1
                a.c_total -= score
                a.c_sq -= score * score
            if review["score"] is not None:  # … and the correction in
                a.c_scored += 1
                a.c_total += review["score"]
                a.c_sq += review["score"] ** 2
    return out
