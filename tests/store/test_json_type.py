"""`schema.Json`: JSON on SQLite and JSONB on PostgreSQL, as `JSON().with_variant(JSONB(),
"postgresql")` was, without loading PostgreSQL's dialect with the schema."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Column, Integer, MetaData, Table, create_engine, func, select, text
from sqlalchemy.dialects import postgresql, sqlite

from assay.store.schema import Json


def test_each_dialect_gets_its_json_type() -> None:
    assert isinstance(Json.load_dialect_impl(postgresql.dialect()), postgresql.JSONB)
    assert not isinstance(Json.load_dialect_impl(sqlite.dialect()), postgresql.JSONB)
    assert Json.compile(postgresql.dialect()) == "JSONB"
    assert Json.compile(sqlite.dialect()) == "JSON"


def test_values_paths_and_none_are_stored_as_by_json(tmp_path: Path) -> None:
    t = Table("t", MetaData(), Column("id", Integer, primary_key=True), Column("doc", Json))
    engine = create_engine(f"sqlite:///{tmp_path / 'j.sqlite'}")
    t.metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(t.insert(), [{"id": 1, "doc": {"cost": 0.25, "reply": "AU9999 487.5", "ok": True}},
                                  {"id": 2, "doc": None}])
        conn.execute(t.insert().values(id=3))
        # None is JSON null as it was (the column's own JSON rule), not SQL NULL; a row that
        # names no value is SQL NULL
        raw = conn.execute(text("SELECT id, doc FROM t ORDER BY id")).all()
        assert raw == [(1, '{"cost": 0.25, "reply": "AU9999 487.5", "ok": true}'), (2, "null"), (3, None)]
        got = conn.execute(select(t.c.doc["reply"].as_string(), t.c.doc["cost"].as_float(),
                                  t.c.doc["ok"].as_boolean()).where(t.c.id == 1)).one()
        assert tuple(got) == ("AU9999 487.5", 0.25, True)
        assert conn.execute(select(func.sum(t.c.doc["cost"].as_float()))).scalar() == 0.25
        assert [r.doc for r in conn.execute(select(t.c.doc).order_by(t.c.id))] == [
            {"cost": 0.25, "reply": "AU9999 487.5", "ok": True}, None, None]


def test_the_sqlite_insert_plan_passes_encoded_json_through(tmp_path: Path) -> None:
    # the fast insert stores text encoded once already (RawJSON) as it is: it must know a
    # `Json` column for JSON behind its decorator, or every value goes through the serializer
    from assay.store import repo
    from assay.store.db import RawJSON, open_engine
    from assay.store.schema import results

    engine = open_engine(f"sqlite:///{tmp_path / 'p.sqlite'}")
    with engine.connect() as conn:
        _, steps = repo._insert_plan(conn, results, ("evidence", "call", "score"))
    assert [kind for kind, _ in steps] == [repo._JSON, repo._JSON, repo._PLAIN]
    encoded = RawJSON('{"a": 1}')
    assert steps[0][1] is not None and steps[0][1](encoded) == encoded
