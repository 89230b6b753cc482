"""Per-evaluator (and per-label) counts and mean score, accumulated one result at a time."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Tally:
    items: int = 0
    scored: int = 0
    total: float = 0.0
    null: int = 0
    unscored: int = 0
    error: int = 0
    cost: float | None = None  # model cost, when the model has a price table

    def add(self, status: str, value: float | None) -> None:
        self.items += 1
        if status == "scored" and value is not None:
            self.scored += 1
            self.total += value
        elif status == "null":
            self.null += 1
        elif status == "unscored":
            self.unscored += 1
        else:
            self.error += 1

    @property
    def mean(self) -> float | None:
        """Mean over scored results only: a null or an error is not a 0."""
        return self.total / self.scored if self.scored else None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"items": self.items, "scored": self.scored, "mean": self.mean,
                               "null": self.null, "unscored": self.unscored,
                               "error": self.error}
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
