"""What reports read of a run's answers without their text."""

from __future__ import annotations

from sqlalchemy import Engine, select

from .results import Rows
from .schema import answers


def answer_stats(engine: Engine, run_id: str) -> Rows:
    """target, latency_s, total_tokens, error of every answer in the run: tokens, errors and
    latency percentiles per target."""
    with engine.connect() as conn:
        return conn.execute(select(answers.c.target, answers.c.latency_s,
                                   answers.c.total_tokens, answers.c.error)
                            .where(answers.c.run_id == run_id)).all()
