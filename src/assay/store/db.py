"""Opening the store: URL resolution, engine set-up, migrations on first use."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson
from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, OperationalError, SQLAlchemyError

from assay.core.errors import StoreError

from .transaction import sqlite_transaction

# The handle every caller holds on the store, named here so that code outside `store` types it
# without importing SQLAlchemy: only `store` writes SQL (the import-linter contract in
# pyproject.toml). Callers pass it back to the store's functions.
__all__ = ["DEFAULT_URL", "HEAD", "MIGRATIONS", "Engine", "RawJSON", "current_revision", "migrate",
           "open_engine", "redact", "resolve_url"]

HEAD = "0012"  # newest migration; opening a store at HEAD skips loading Alembic entirely
DEFAULT_URL = "sqlite:///.assay/assay.db"
MIGRATIONS = Path(__file__).parent / "migrations"


def resolve_url(url: str | None = None) -> str:
    return url or os.environ.get("ASSAY_DB") or DEFAULT_URL


class RawJSON(str):
    """Text that is already JSON: stored as is, so a value encoded once for the JSONL output is
    not encoded again for the database."""


def _json_dumps(value: object) -> str:
    if isinstance(value, RawJSON):
        return value
    return orjson.dumps(value, default=str).decode()


def redact(url: str) -> str:
    """A URL safe to print or store: the password is never shown."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "<invalid database URL>"


def store_file(url: str | None = None) -> Path | None:
    """The SQLite file a store URL names (outputs must never overwrite it), or None."""
    try:
        parsed = make_url(resolve_url(url))
    except ArgumentError:
        return None
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        return Path(parsed.database)
    return None


def open_engine(url: str | None = None) -> Engine:
    resolved = resolve_url(url)
    try:
        parsed = make_url(resolved)
    except ArgumentError:
        raise StoreError(f"invalid database URL '{redact(resolved)}'") from None
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    try:
        engine = create_engine(resolved, json_serializer=_json_dumps,
                               json_deserializer=orjson.loads)
    except (ArgumentError, ImportError, SQLAlchemyError) as exc:
        raise StoreError(f"cannot open store {redact(resolved)}: {exc}") from None
    if parsed.get_backend_name() == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    try:
        migrate(engine)
    except OperationalError as exc:
        raise StoreError(f"cannot open store {redact(resolved)}: {exc.orig}") from None
    return engine


def _sqlite_pragmas(dbapi_conn: object, _record: object) -> None:
    cur = dbapi_conn.cursor()  # type: ignore[attr-defined]
    # WAL lets a reader (the UI, `assay show`) look at a run while it is being written.
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return _revision(conn)


def migrate(engine: Engine) -> None:
    """Bring the store to HEAD: all of it or none of it, one process at a time.

    Every migration runs in one transaction that also holds the store's migration lock, and the
    revision is read again under the lock: a process killed while tables are created leaves the
    store as it was (the next command migrates it), and processes opening a fresh store at the
    same moment take turns (the later ones find it at HEAD). SQLite: BEGIN EXCLUSIVE, with the
    driver's own transaction handling set aside (it would run CREATE TABLE outside any
    transaction). PostgreSQL: DDL is transactional; an advisory lock serialises migrators."""
    if current_revision(engine) == HEAD:
        return
    with engine.connect() as conn, _migration_lock(conn):
        revision = _revision(conn)
        if revision == HEAD:  # another process migrated it while we waited
            return
        if revision is None and conn.dialect.name == "sqlite" and \
                not inspect(conn).get_table_names():
            _create_at_head(conn)
            return
        if revision is not None:  # a store in use: say why the first command waits
            print(f"assay: upgrading the store {redact(str(engine.url))} from revision "
                  f"{revision} to {HEAD}, once (a store with many spans takes a while; "
                  "other assay processes wait for it)", file=sys.stderr, flush=True)
        from alembic import command
        from alembic.config import Config

        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def _create_at_head(conn: Connection) -> None:
    """A new SQLite store: the tables as schema.py declares them, stamped at HEAD, in one
    step (a tenth of the time of loading Alembic and running every migration in turn, which a
    first command on a laptop would pay). The migrations build exactly this schema:
    tests/store/test_db.py compares them. Stores that exist, and PostgreSQL, migrate."""
    from .schema import metadata
    from .search import create_sqlite

    metadata.create_all(conn)
    create_sqlite(conn)  # the triggers and text indexes that schema.py cannot declare
    conn.exec_driver_sql("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL, "
                         "CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num))")
    conn.execute(text("INSERT INTO alembic_version (version_num) VALUES (:v)"), {"v": HEAD})


# The key of PostgreSQL's transaction-level advisory lock taken while migrating ("assay").
_PG_LOCK_KEY = 0x6173736179


@contextmanager
def _migration_lock(conn: Connection) -> Iterator[None]:
    if conn.dialect.name == "sqlite":
        try:
            # waits (busy timeout) for another migrator
            with sqlite_transaction(conn, "BEGIN EXCLUSIVE"):
                yield
        finally:
            conn.rollback()  # SQLAlchemy's own bookkeeping; nothing is left to roll back
        return
    with conn.begin():
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK_KEY})
        yield


def _revision(conn: Connection) -> str | None:
    if not inspect(conn).has_table("alembic_version"):
        return None
    return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
