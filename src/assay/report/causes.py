"""Counts of the causes `finance-cause` found in a run, per target: what `--by cause` shows in
`assay show` and `assay score`, and the report's "causes" section. A result without a cause (no
tool calls recorded, an abstention, an error) is counted under its status in brackets."""

from __future__ import annotations

from dataclasses import dataclass, field

from assay.store import results as stored
from assay.store.db import Engine

EVALUATOR = "finance-cause"
BY_CAUSE = "cause"  # `--by cause`: the causes finance-cause holds, not an item field
# the written order of the causes (evaluators/cause/evaluator.py); others after them
ORDER = ("truth_unavailable", "right", "no_retrieval", "wrong_instrument", "stale_data",
         "misread")


@dataclass
class CauseCounts:
    """target → cause → count, and every cause seen, in the written order."""

    targets: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def causes(self) -> list[str]:
        seen = {c for per in self.targets.values() for c in per}
        rank = {c: i for i, c in enumerate(ORDER)}
        return sorted(seen, key=lambda c: (rank.get(c, len(rank)), c))

    def __bool__(self) -> bool:
        return bool(self.targets)

    def total(self, target: str) -> int:
        return sum(self.targets.get(target, {}).values())


def cause_counts(engine: Engine, run_id: str, evaluator: str = EVALUATOR) -> CauseCounts:
    out = CauseCounts()
    for target, status, cause in stored.cause_rows(engine, run_id, evaluator):
        key = str(cause) if cause else f"({status})"
        per = out.targets.setdefault(str(target), {})
        per[key] = per.get(key, 0) + 1
    return out


def no_causes_message(run_id: str) -> str:
    return (f"run {run_id} has no {EVALUATOR} results: --by cause counts the causes "
            f"{EVALUATOR} finds (score with -e {EVALUATOR}, or add it to the spec's evaluators)")
