"""Per-evaluator (and per-label) counts, mean score and its 95 % interval (Wilson for 0/1 scores,
else normal), with reviewers' corrections beside the raw figures, accumulated one result at a
time.

In `core` because both the runner (a run's summary, built as it scores) and the report (the
same figures read back from the store) count this way; the runner must not import the report."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

Z95 = 1.959963984540054


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval for a proportion; None without observations."""
    if n <= 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Tally:
    items: int = 0
    scored: int = 0
    total: float = 0.0
    sq: float = 0.0
    binary: bool = True
    null: int = 0
    unscored: int = 0
    abstained: int = 0  # a code evaluator could not decide (candidates in its evidence)
    error: int = 0
    # not applicable (status `skipped`): outside `items`, the counts and the mean
    skipped: int = 0
    # after reviewers' corrections
    c_scored: int = 0
    c_total: float = 0.0
    c_sq: float = 0.0
    reviewed: int = 0
    cost: float | None = None  # model cost, when the model has a price table

    def add(self, status: str, score: float | None,
            corrected: float | str | None = "none") -> None:
        """One result; `corrected` is a reviewer's score (None: no score), "none": no review.
        A `skipped` result (the evaluator does not apply to the item) is only counted as
        such: it is no item of this evaluator's, and a review of it changes nothing."""
        if status == "skipped":
            self.skipped += 1
            return
        self.items += 1
        if status == "scored" and score is not None:
            self.scored += 1
            self.total += score
            self.sq += score * score
            self.binary = self.binary and score in (0.0, 1.0)
        elif status == "null":
            self.null += 1
        elif status == "unscored":
            self.unscored += 1
        elif status == "abstained":
            self.abstained += 1
        else:
            self.error += 1
        value = score if status == "scored" else None
        if corrected != "none":  # a review: its score replaces the raw one (None = no score)
            self.reviewed += 1
            value = corrected if not isinstance(corrected, str) else value
        if value is not None:
            self.c_scored += 1
            self.c_total += value
            self.c_sq += value * value
            self.binary = self.binary and value in (0.0, 1.0)

    @staticmethod
    def _interval(n: int, total: float, sq: float, binary: bool) -> tuple[float, float] | None:
        if n == 0:
            return None
        if binary:
            return wilson(total, n)
        mean = total / n
        var = max(0.0, sq / n - mean * mean) * n / max(1, n - 1)
        half = Z95 * math.sqrt(var / n)
        return mean - half, mean + half

    @property
    def mean(self) -> float | None:
        return self.total / self.scored if self.scored else None

    @property
    def ci(self) -> tuple[float, float] | None:
        return self._interval(self.scored, self.total, self.sq, self.binary)

    @property
    def corrected_mean(self) -> float | None:
        return self.c_total / self.c_scored if self.c_scored else None

    @property
    def corrected_ci(self) -> tuple[float, float] | None:
        return self._interval(self.c_scored, self.c_total, self.c_sq, self.binary)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "items": self.items, "scored": self.scored, "mean": self.mean,
            "ci95": list(self.ci) if self.ci else None,
            "ci_method": "wilson" if self.binary else "normal",
            "null": self.null, "unscored": self.unscored, "abstained": self.abstained,
            "error": self.error, "skipped": self.skipped,
            "reviewed": self.reviewed, "corrected_mean": self.corrected_mean,
            "corrected_ci95": list(self.corrected_ci) if self.corrected_ci else None}
        if self.cost is not None:
            out["cost"] = round(self.cost, 6)
        return out


@dataclass
class Summary:
    overall: dict[str, Tally] = field(default_factory=dict)
    by_label: dict[str, dict[str, Tally]] = field(default_factory=dict)

    def add(self, evaluator: str, label: Any, status: str, value: float | None,
            cost: float | None = None) -> None:
        tally = self.overall.setdefault(evaluator, Tally())
        tally.add(status, value)
        if cost is not None:
            tally.cost = (tally.cost or 0.0) + cost
        if label is not None and str(label).strip():
            per = self.by_label.setdefault(evaluator, {})
            per.setdefault(str(label), Tally()).add(status, value)

    def as_dict(self) -> dict[str, Any]:
        return {
            "evaluators": {k: v.as_dict() for k, v in self.overall.items()},
            "by_label": {ev: {lb: t.as_dict() for lb, t in per.items()}
                         for ev, per in self.by_label.items()},
        }
