"""The response cache's table: a reply by its key, and a reply kept once. The key itself is
computed in one place only (models.cache.cache_key)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, insert, select
from sqlalchemy.exc import IntegrityError

from .repo import now
from .schema import response_cache


def cached_response(engine: Engine, key: str) -> dict[str, Any] | None:
    with engine.connect() as conn:
        row = conn.execute(select(response_cache.c.response)
                           .where(response_cache.c.key == key)).first()
    return dict(row[0]) if row else None


def keep_response(engine: Engine, key: str, model: str, response: dict[str, Any]) -> bool:
    """Store a reply under its key; False when one was stored first (the same request answered
    twice concurrently: the first answer stays)."""
    try:
        with engine.begin() as conn:
            conn.execute(insert(response_cache), [{"key": key, "model": model,
                                                   "response": response, "created_at": now()}])
    except IntegrityError:
        return False
    return True
