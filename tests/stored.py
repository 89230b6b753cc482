"""Every byte a SQLite store holds, for tests that look for what must never be stored (a key, a
lost result): the file and its write-ahead log, and a logical dump of every row.

Not `iterdump()`: it selects from virtual tables too, and the UI's contentless full-text
indexes (store/search.py) refuse to be scanned; their text lives in their shadow tables, which
are ordinary tables and are dumped here."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def logical_dump(conn: sqlite3.Connection) -> str:
    lines: list[str] = []
    tables = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' "
                          "ORDER BY name").fetchall()
    for name, sql in tables:
        lines.append(sql or "")
        if (sql or "").upper().startswith("CREATE VIRTUAL TABLE"):
            continue
        quoted = name.replace('"', '""')
        lines.extend(repr(row) for row in conn.execute(f'SELECT * FROM "{quoted}"'))
    return "\n".join(lines)


def stored_bytes(db: Path) -> bytes:
    """The store's files (db, -wal, -shm) and the logical dump of its rows."""
    out = b"".join(p.read_bytes() for p in sorted(db.parent.glob(db.name + "*")))
    with sqlite3.connect(db) as conn:
        out += logical_dump(conn).encode("utf-8", "surrogatepass")
    return out
