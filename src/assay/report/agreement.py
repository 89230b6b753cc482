"""Agreement between two evaluators on the same items: percent agreement, Cohen's κ and the
items where they disagree — the rubric against an LLM judge in particular.

Only items both evaluators scored are compared (a null, unscored or error result is not a
category); how many were left out is reported, not hidden.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any


@dataclass
class PairAgreement:
    a: str
    b: str
    compared: int
    agree: int
    kappa: float | None  # None when chance agreement is total (κ undefined)
    only_one_scored: int
    disagreements: list[dict[str, Any]] = field(default_factory=list)

    @property
    def percent(self) -> float | None:
        return 100.0 * self.agree / self.compared if self.compared else None


def cohen_kappa(pairs: list[tuple[float, float]]) -> float | None:
    n = len(pairs)
    if n == 0:
        return None
    observed = sum(1 for x, y in pairs if x == y) / n
    ca = Counter(x for x, _ in pairs)
    cb = Counter(y for _, y in pairs)
    expected = sum(ca[k] * cb.get(k, 0) for k in ca) / (n * n)
    if expected == 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def agreement(results: list[dict[str, Any]], evaluators: list[str] | None = None
              ) -> list[PairAgreement]:
    """`results`: rows with item_id, evaluator, score, status, reason."""
    by_eval: dict[str, dict[str, dict[str, Any]]] = {}
    for r in results:
        by_eval.setdefault(r["evaluator"], {})[r["item_id"]] = r
    names = evaluators or sorted(by_eval)
    out = []
    for a, b in combinations(names, 2):
        ra, rb = by_eval.get(a, {}), by_eval.get(b, {})
        pairs: list[tuple[float, float]] = []
        one_side = 0
        disagreements = []
        for item_id in sorted(set(ra) | set(rb)):
            x, y = ra.get(item_id), rb.get(item_id)
            sx = x is not None and x["status"] == "scored"
            sy = y is not None and y["status"] == "scored"
            if sx and sy and x is not None and y is not None:
                pairs.append((x["score"], y["score"]))
                if x["score"] != y["score"]:
                    disagreements.append({"item_id": item_id, a: x["score"], b: y["score"],
                                          f"{a} reason": x["reason"],
                                          f"{b} reason": y["reason"]})
            elif sx or sy:
                one_side += 1
        agree = sum(1 for x, y in pairs if x == y)
        out.append(PairAgreement(a, b, len(pairs), agree, cohen_kappa(pairs), one_side,
                                 disagreements))
    return out
