"""How far a run's reviews go: a cache of a run's figures is stale once a newer review exists.
(Adding and reading reviews is in repo.py.)"""

from __future__ import annotations

from sqlalchemy import Engine, func, select

from .schema import reviews


def newest_review_id(engine: Engine, run_id: str) -> int:
    """The id of the run's newest review; 0 when it has none."""
    with engine.connect() as conn:
        return int(conn.execute(select(func.coalesce(func.max(reviews.c.id), 0))
                                .where(reviews.c.run_id == run_id)).scalar_one())
