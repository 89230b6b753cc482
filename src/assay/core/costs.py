"""A run's cost sheet: what its targets' answers and its judges cost (from the model registry's
prices), in total and per correct answer.

Cost per correct answer, for each evaluator whose scores are 0/1: everything spent on that
target's samples — its answers and every judgment of them — divided by the answers that
evaluator scored 1. It is what one right answer cost, judging included. Evaluators with other
scales have no "correct", so no figure. In `core` so the runner (the summary printed after a run)
and the reports (read back from the store) compute it the same way."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class CostSheet:
    targets: dict[str, float] = field(default_factory=dict)  # target → its answers' cost
    judges: dict[str, float] = field(default_factory=dict)  # evaluator → its model calls' cost
    # target → what its conversations' simulated users cost (core/conversation.py)
    simulators: dict[str, float] = field(default_factory=dict)
    # what attempts `assay retry` dropped had cost: paid, part of the total, shown apart
    discarded: float = 0.0
    per_correct: dict[str, float | None] = field(default_factory=dict)  # evaluator → cost
    correct: dict[str, int] = field(default_factory=dict)  # evaluator → answers scored 1
    total: float = 0.0

    @property
    def empty(self) -> bool:
        """No priced model took part: nothing to show."""
        return not self.targets and not self.judges and not self.simulators \
            and not self.discarded

    def as_dict(self) -> dict[str, Any]:
        return {"targets": {k: round(v, 8) for k, v in self.targets.items()},
                "judges": {k: round(v, 8) for k, v in self.judges.items()},
                "simulators": {k: round(v, 8) for k, v in self.simulators.items()},
                "discarded": round(self.discarded, 8),
                "per_correct": {k: None if v is None else round(v, 8)
                                for k, v in self.per_correct.items()},
                "correct": dict(self.correct), "total": round(self.total, 8)}


@dataclass(frozen=True)
class EvaluatorCost:
    """One (target, evaluator) of a run: its judges' cost (None: no priced model call), how many
    answers it scored 1, and whether every score it gave was 0 or 1."""

    target: str
    evaluator: str
    cost: float | None
    correct: int
    binary: bool


def cost_sheet(target_costs: Mapping[str, float | None], rows: Iterable[EvaluatorCost],
               simulator_costs: Mapping[str, float | None] | None = None) -> CostSheet:
    """Names follow the run's summary: `target · evaluator` when the run has several targets.
    `simulator_costs`: per target, what the simulated users of its conversations cost — part
    of what that target's samples cost, shown apart (role `simulator`)."""
    rows = list(rows)
    several = len({r.target for r in rows} | set(target_costs)) > 1
    sheet = CostSheet()
    spent_on: dict[str, float] = {}  # target → answers + judgments (+ simulated users)
    for t, cost in target_costs.items():
        if cost is not None:
            sheet.targets[t] = cost
            spent_on[t] = spent_on.get(t, 0.0) + cost
    for t, cost in (simulator_costs or {}).items():
        if cost is not None:
            sheet.simulators[t] = cost
            spent_on[t] = spent_on.get(t, 0.0) + cost
    for r in rows:
        if r.cost is not None:
            name = f"{r.target} · {r.evaluator}" if several else r.evaluator
            sheet.judges[name] = sheet.judges.get(name, 0.0) + r.cost
            spent_on[r.target] = spent_on.get(r.target, 0.0) + r.cost
    sheet.total = sum(spent_on.values())
    if sheet.empty:
        return sheet
    for r in rows:
        if not r.binary:
            continue
        name = f"{r.target} · {r.evaluator}" if several else r.evaluator
        sheet.correct[name] = r.correct
        spent = spent_on.get(r.target, 0.0)
        sheet.per_correct[name] = spent / r.correct if r.correct else None
    return sheet
