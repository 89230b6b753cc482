"""A SQLite transaction opened the way a caller needs it, for the store's modules that must lock
before they read (the migration lock in db.py, the search indexes' catch-up in search.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection


@contextmanager
def sqlite_transaction(conn: Connection, begin: str) -> Iterator[None]:
    """SQLite: one transaction opened by `begin` ("BEGIN IMMEDIATE", "BEGIN EXCLUSIVE"), with
    the driver's own transaction handling set aside (it would run DDL outside any transaction
    and cannot take a lock up front); committed, or rolled back on any exception."""
    driver = conn.connection.driver_connection
    saved = driver.isolation_level  # type: ignore[union-attr]
    driver.isolation_level = None  # type: ignore[union-attr]  # we issue BEGIN/COMMIT
    try:
        conn.exec_driver_sql(begin)
        try:
            yield
        except BaseException:
            conn.exec_driver_sql("ROLLBACK")
            raise
        conn.exec_driver_sql("COMMIT")
    finally:
        driver.isolation_level = saved  # type: ignore[union-attr]
