"""Stored datasets as the UI lists them. (Saving a dataset and reading its items is in repo.py.)"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, func, select

from .schema import datasets, items


def list_datasets(engine: Engine) -> list[dict[str, Any]]:
    """Every stored dataset version, newest first."""
    with engine.connect() as conn:
        return [dict(r) for r in conn.execute(select(datasets).order_by(
            datasets.c.created_at.desc())).mappings().all()]


def item_labels(engine: Engine, dataset_id: str) -> list[str]:
    """The distinct labels of a dataset's items, sorted."""
    # one index seek per label ("loose index scan" of the (dataset, label, item) index), not
    # every item's: each step is the smallest label above the one before
    first = select(func.min(items.c.label)).where(items.c.dataset_id == dataset_id,
                                                  items.c.label.is_not(None))
    found = first.cte("found", recursive=True)
    step = select(func.min(items.c.label)).where(
        items.c.dataset_id == dataset_id, items.c.label > found.c[0]).scalar_subquery()
    found = found.union_all(select(step).where(found.c[0].is_not(None)))
    with engine.connect() as conn:
        return sorted(r[0] for r in conn.execute(select(found.c[0]).where(
            found.c[0].is_not(None))))
