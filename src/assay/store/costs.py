"""What a run has cost, read from the store: the `cost` column each priced model call fills on
its answer or its result (migration 0010 filled it for rows stored before) — one GROUP BY per
table, plain column sums, no JSON read."""

from __future__ import annotations

from sqlalchemy import Engine, case, func, select

from assay.core.costs import CostSheet, EvaluatorCost, cost_sheet

from .schema import answers, results, runs, turns


def run_cost_sheet(engine: Engine, run_id: str) -> CostSheet:
    """Targets' answers, judges' results, and conversations' simulated users (`turns` rows of
    source simulator), each a column sum."""
    a_cost, r_cost = answers.c.cost, results.c.cost
    scored = results.c.status == "scored"
    correct = func.sum(case(((scored & (results.c.score == 1.0)), 1), else_=0))
    odd = func.sum(case(((scored & results.c.score.not_in([0.0, 1.0])), 1), else_=0))
    with engine.connect() as conn:
        targets = {t: (float(s) if n else None) for t, s, n in conn.execute(
            select(answers.c.target, func.sum(a_cost), func.count(a_cost))
            .where(answers.c.run_id == run_id).group_by(answers.c.target))}
        rows = [EvaluatorCost(t, e, float(s) if n else None, int(c or 0), not o)
                for t, e, s, n, c, o in conn.execute(
                    select(results.c.target, results.c.evaluator, func.sum(r_cost),
                           func.count(r_cost), correct, odd)
                    .where(results.c.run_id == run_id)
                    .group_by(results.c.target, results.c.evaluator)
                    .order_by(func.min(results.c.id)))]
        simulators = {t: (float(s) if n else None) for t, s, n in conn.execute(
            select(turns.c.target, func.sum(turns.c.cost), func.count(turns.c.cost))
            .where(turns.c.run_id == run_id, turns.c.source == "simulator")
            .group_by(turns.c.target))}
        summary = conn.execute(select(runs.c.summary).where(runs.c.id == run_id)).scalar()
    sheet = cost_sheet(targets, rows, simulators)
    dropped = (summary or {}).get("discarded_cost") if isinstance(summary, dict) else None
    if isinstance(dropped, int | float) and dropped > 0:  # rows `assay retry` dropped
        sheet.discarded = float(dropped)
        sheet.total += sheet.discarded
    return sheet


def run_spent(engine: Engine, run_id: str) -> float:
    """Everything the run's stored answers and results cost: what a resumed run has spent."""
    return run_cost_sheet(engine, run_id).total
