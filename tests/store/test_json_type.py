"""`schema.Json`: JSON on SQLite and JSONB on PostgreSQL, as `JSON().with_variant(JSONB(),
"postgresql")` was, without loading PostgreSQL's dialect with the schema."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Column, Integer, MetaData, Table, create_engine, event, func, select, text
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


def test_expressions_compile_as_with_the_variant() -> None:
    # what the columns were: queries built on them (paths, casts, comparisons with Python
    # values, IS NULL) must compile to the same SQL with the same parameters on both dialects
    from sqlalchemy import JSON, Text, cast, literal, null

    variant = JSON().with_variant(postgresql.JSONB(), "postgresql")

    def statements(kind: object) -> list[object]:
        t = Table("t", MetaData(), Column("id", Integer, primary_key=True), Column("doc", kind))
        d = t.c.doc
        return [
            select(t.c.id).where(d["k"] == "x"), select(t.c.id).where(d["n"] == 5),
            select(t.c.id).where(d == True), select(t.c.id).where(d["k"].in_(["x", "y"])),  # noqa: E712
            select(d["a"]["b"].as_string(), d[0].as_float(), d[("a", "b")].as_integer()),
            select(t.c.id).where(d["ok"].as_boolean().is_(True)),
            select(t.c.id).where(cast(d, Text).contains("x", autoescape=True)),
            select(func.coalesce(d["reply"].as_string(), literal("-"))),
            select(t.c.id).where(d.is_(None)), select(t.c.id).where(d == null()),
            t.insert().values(id=1, doc=None), t.insert().values(id=2, doc={"a": [1, "x"]}),
            t.update().values(doc={"b": True}).where(d["k"].as_string() == "x")]

    for dialect in (sqlite.dialect(), postgresql.dialect()):
        for new, old in zip(statements(Json), statements(variant), strict=True):
            a, b = new.compile(dialect=dialect), old.compile(dialect=dialect)
            assert str(a) == str(b)
            assert a.construct_params() == b.construct_params()

    # and on SQLite, what reaches the driver (the values after each bind's own processing:
    # "x" compared with a path is the string x, not the JSON text "x")
    def sent(kind: object) -> list[tuple[str, object]]:
        engine = create_engine("sqlite://")
        got: list[tuple[str, object]] = []

        @event.listens_for(engine, "before_cursor_execute")
        def _keep(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
            got.append((statement, parameters))

        built = statements(kind)
        table = built[0].get_final_froms()[0]  # type: ignore[attr-defined]
        table.metadata.create_all(engine)
        got.clear()
        with engine.begin() as conn:
            for statement in built:
                conn.execute(statement)  # type: ignore[call-overload]
        return got

    assert sent(Json) == sent(variant)
