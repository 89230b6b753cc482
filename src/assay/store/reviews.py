"""Reviews: how far a run's reviews go (a cache of a run's figures is stale once a newer review
exists; adding and reading reviews is in repo.py), and what a reviewer's corrected score may be:
a finite number within the evaluator's full score (or null). The full score is kept with each
result (`evidence["full_score"]`, written by `stored_evidence`), so the check needs no evaluator
code: an `inf` or a 7 for a 0–1 evaluator is refused in the CLI, the form and the API alike,
instead of turning a run's corrected mean into `inf` and its pages into 500s."""

from __future__ import annotations

import math
from typing import Any

from sqlalchemy import Engine, func, select

from assay.core.errors import ConfigError
from assay.core.types import Score

from .schema import reviews

DEFAULT_RANGE = (0.0, 1.0)  # Score's own default: what code evaluators score on


def newest_review_id(engine: Engine, run_id: str) -> int:
    """The id of the run's newest review; 0 when it has none."""
    with engine.connect() as conn:
        return int(conn.execute(select(func.coalesce(func.max(reviews.c.id), 0))
                                .where(reviews.c.run_id == run_id)).scalar_one())


def stored_evidence(score: Score) -> dict[str, Any]:
    """A result's evidence as stored: the evaluator's, with its full score beside it."""
    if "full_score" in score.evidence:
        return score.evidence
    return {**score.evidence, "full_score": [score.full_score[0], score.full_score[1]]}


def score_range(evidence: dict[str, Any] | None) -> tuple[float, float] | None:
    """The full score a result was given on; None when it cannot be known (a judge's result
    stored before full scores were kept: its template may have changed since)."""
    ev = evidence or {}
    full = ev.get("full_score")
    if isinstance(full, list | tuple) and len(full) == 2 and all(
            isinstance(x, int | float) and not isinstance(x, bool) for x in full):
        return float(full[0]), float(full[1])
    if "template" in ev:
        return None
    return DEFAULT_RANGE


def check_review_score(evaluator: str, score: float | None,
                       evidence: dict[str, Any] | None) -> None:
    """Raise ConfigError (one line) unless `score` is null or a finite number in range."""
    if score is None:
        return
    full = score_range(evidence)
    span = f"{evaluator} scores from {full[0]:g} to {full[1]:g}" if full else \
        f"{evaluator} scores are finite numbers"
    if not math.isfinite(score) or (full is not None and not full[0] <= score <= full[1]):
        raise ConfigError(f"{span}: {score:g} is not a score it can give (or write null)")
