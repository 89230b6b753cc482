"""Opening the store: URL resolution, engine set-up, migrations on first use."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, OperationalError, SQLAlchemyError

from assay.core.errors import StoreError

# The handle every caller holds on the store, named here so that code outside `store` types it
# without importing SQLAlchemy: only `store` writes SQL (the import-linter contract in
# pyproject.toml). Callers pass it back to the store's functions.
__all__ = ["DEFAULT_URL", "HEAD", "MIGRATIONS", "Engine", "RawJSON", "current_revision", "migrate",
           "open_engine", "redact", "resolve_url"]

HEAD = "0006"  # newest migration; opening a store at HEAD skips loading Alembic entirely
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
        if not inspect(conn).has_table("alembic_version"):
            return None
        return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def migrate(engine: Engine) -> None:
    if current_revision(engine) == HEAD:
        return
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
