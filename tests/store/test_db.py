from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from assay.core.errors import StoreError
from assay.core.types import Item
from assay.store import repo
from assay.store.db import HEAD, current_revision, open_engine, redact, resolve_url


def test_migrates_a_new_database(tmp_path: Path) -> None:
    engine = open_engine(f"sqlite:///{tmp_path / 'sub' / 'a.db'}")
    assert current_revision(engine) == HEAD
    tables = set(inspect(engine).get_table_names())
    assert tables >= {"datasets", "items", "runs", "answers", "results", "spans",
                      "alembic_version"}
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
    # opening again is a no-op at HEAD
    assert current_revision(open_engine(f"sqlite:///{tmp_path / 'sub' / 'a.db'}")) == HEAD


def test_url_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASSAY_DB", raising=False)
    assert resolve_url() == "sqlite:///.assay/assay.db"
    monkeypatch.setenv("ASSAY_DB", "sqlite:///x.db")
    assert resolve_url() == "sqlite:///x.db"
    assert resolve_url("sqlite:///y.db") == "sqlite:///y.db"
    assert redact("postgresql://u:secret@h/db") == "postgresql://u:***@h/db"


def test_bad_urls_are_store_errors() -> None:
    with pytest.raises(StoreError, match="invalid database URL"):
        open_engine("not a url")
    with pytest.raises(StoreError, match="cannot open store"):
        open_engine("nosuchdialect://x/y")


def test_dataset_is_stored_once_per_version(db_url: str) -> None:
    engine = open_engine(db_url)
    rows = [Item("a", {"q": 1}, "v1", 1), Item("b", {"q": 2}, "v1", 2)]
    assert repo.save_dataset(engine, version="v1", name="d", path="d.json", fmt="json",
                             rows=rows) is True
    assert repo.save_dataset(engine, version="v1", name="d", path="d.json", fmt="json",
                             rows=rows) is False
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM items")).scalar() == 2
        assert conn.execute(text("SELECT fields FROM items WHERE item_id='b'")).scalar() \
            == '{"q":2}'


def test_sqlite_fast_path_stores_what_the_core_path_stores(tmp_path: Path) -> None:
    from assay.store.db import RawJSON

    stored = []
    stamp = repo.now()
    for fast in (True, False):
        engine = open_engine(f"sqlite:///{tmp_path / f'{fast}.db'}")
        repo.save_dataset(engine, version="v", name="d", path="d", fmt="json", rows=[])
        repo.create_run(engine, run_id="r", kind="score", dataset_id="v", manifest={"a": 1})
        answers = [{"run_id": "r", "item_id": f"i{n}", "target": "recorded",
                    "text": "价格 1.5" if n else None, "error": None if n else "no answer"}
                   for n in range(3)]
        results = [{"run_id": "r", "item_id": f"i{n}", "evaluator": "e",
                    "evaluator_version": "v1", "score": [1.0, None, 0.0][n],
                    "status": ["scored", "null", "scored"][n], "reason": "因为",
                    "evidence": [RawJSON('{"k":[1,"二"]}'), {"k": [1, "二"]}, None][n],
                    "created_at": stamp} for n in range(3)]
        repo.write_batch(engine, answers, results, fast=fast)
        rows = repo.list_results(engine, "r")
        with engine.connect() as conn:
            raw = conn.execute(text("SELECT item_id, evidence, created_at FROM results "
                                    "ORDER BY id")).all()
            ans = conn.execute(text("SELECT * FROM answers ORDER BY item_id")).all()
        stored.append(([{k: v for k, v in r.items() if k != "id"} for r in rows], raw, ans))
    assert stored[0] == stored[1]
    rows = stored[0][0]
    assert rows[0]["evidence"] == {"k": [1, "二"]} and rows[2]["evidence"] is None
    # SQLite keeps no time zone; both paths store the UTC wall time
    assert rows[0]["created_at"] == stamp.replace(tzinfo=None)


def test_the_sqlite_insert_plan_is_kept_per_engine_and_column_set(tmp_path: Path) -> None:
    """The fast path looks a table's bind processors up once per dialect and set of columns:
    later batches of another shape, or on another engine, get their own statement."""
    from assay.store.schema import answers

    engines = [open_engine(f"sqlite:///{tmp_path / f'{n}.db'}") for n in range(2)]
    for engine in engines:
        repo.save_dataset(engine, version="v", name="d", path="d", fmt="json", rows=[])
        repo.create_run(engine, run_id="r", kind="score", dataset_id="v", manifest={})
        repo.write_batch(engine, [{"run_id": "r", "item_id": "a", "target": "t", "text": "一"}], [])
        repo.write_batch(engine, [{"item_id": "b", "run_id": "r", "target": "t", "error": "x",
                                   "extras": {"k": "二"}}], [])
    for engine in engines:
        with engine.connect() as conn:
            got = conn.execute(text("SELECT item_id, text, error, extras FROM answers "
                                    "ORDER BY item_id")).all()
        assert [tuple(r) for r in got] == [("a", "一", None, None), ("b", None, "x", '{"k":"二"}')]
        plans = repo._PLANS[engine.dialect]
        assert sorted(cols for table, cols in plans if table is answers) == [
            ("item_id", "run_id", "target", "error", "extras"), ("run_id", "item_id", "target", "text")]


def test_migrations_match_the_schema_and_keep_old_runs(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """A store made by an older Assay (0002) is upgraded in place: its results stay, as target
    'recorded', epoch 0; and the migrated tables are exactly what schema.py declares."""
    from alembic import command
    from alembic.autogenerate import compare_metadata
    from alembic.config import Config
    from alembic.migration import MigrationContext
    from sqlalchemy import create_engine, text

    from assay.store.db import MIGRATIONS
    from assay.store.schema import metadata

    url = f"sqlite:///{tmp_path / 'old.db'}"
    old = create_engine(url)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with old.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0002")
        conn.execute(text("INSERT INTO datasets (id, name, path, format, n_items, created_at) "
                          "VALUES ('d1', 'd', 'd.json', 'json', 1, '2026-01-01 00:00:00')"))
        conn.execute(text("INSERT INTO items (dataset_id, item_id, line, fields) VALUES "
                          "('d1', 'q1', 1, '{\"label\": \"Stock\", \"prompt\": \"x\"}')"))
        conn.execute(text("INSERT INTO runs (id, kind, status, created_at, manifest) VALUES "
                          "('r1', 'score', 'finished', '2026-01-01 00:00:00', '{}')"))
        conn.execute(text("INSERT INTO answers (run_id, item_id, target, text) VALUES "
                          "('r1', 'q1', 'recorded', '1455')"))
        conn.execute(text("INSERT INTO results (run_id, item_id, evaluator, evaluator_version, "
                          "score, status, reason, created_at) VALUES ('r1', 'q1', "
                          "'finance-rubric', 'v', 1, 'scored', 'ok', '2026-01-01 00:00:00')"))
        conn.execute(text("INSERT INTO spans (span_id, trace_id, run_id, item_id, kind, name, "
                          "start_at, status) VALUES ('s1', 't1', 'r1', 'q1', 'sample', 'q1', "
                          "'2026-01-01 00:00:00', 'ok')"))
    engine = open_engine(url)
    assert current_revision(engine) == HEAD == "0012"
    assert capsys.readouterr().err == (  # why the first command on an old store waits
        f"assay: upgrading the store {url} from revision 0002 to 0012, once (a store with "
        "many spans takes a while; other assay processes wait for it)\n")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT item_id, label FROM items")).all() == [("q1", "Stock")]
        assert conn.execute(text("SELECT item_id, target, epoch, text FROM answers")).all() \
            == [("q1", "recorded", 0, "1455")]
        assert conn.execute(text("SELECT item_id, target, epoch, evaluator, score FROM "
                                 "results")).all() == [("q1", "recorded", 0, "finance-rubric",
                                                        1.0)]
        assert conn.execute(text("SELECT span_id, run_id, item_id FROM spans")).all() == [
            ("s1", "r1", "q1")]  # 0009 rebuilt the table with its rows
        # 0011 made the search tables empty: the first search fills them (store/search.py)
        assert conn.execute(text("SELECT count(*) FROM item_fields")).scalar() == 0
        assert conn.execute(text("SELECT name, upto FROM search_marks ORDER BY name")).all() \
            == [("answer_text", 0), ("item_text", 0), ("result_text", 0)]
    from assay.store import search

    assert search.catch_up(engine, search.TEXT_MARKS)
    assert search.catch_up_fields(engine, "d1", ["label", "prompt"])
    with engine.connect() as conn:  # then they hold the rows written before the upgrade
        assert conn.execute(text("SELECT dataset_id, name, value, item_id FROM item_fields "
                                 "ORDER BY name")).all() == [("d1", "label", "Stock", "q1"),
                                                             ("d1", "prompt", "x", "q1")]
        assert conn.execute(text("SELECT count(*) FROM result_search_fts WHERE "
                                 "result_search_fts MATCH 'ok'")).scalar() == 0  # < 3 chars
        assert conn.execute(text("SELECT DISTINCT doc FROM result_search_terms WHERE "
                                 "term >= 'ok' AND term < 'ol'")).scalars().all() == [1]
        assert conn.execute(text("SELECT i.item_id FROM items AS i JOIN item_search_fts "
                                 "AS f ON f.rowid = i.rowid WHERE item_search_fts MATCH 'toc'")
                            ).scalars().all() == ["q1"]
        # the SQLite-only search tables (store/search.py) are not in schema.py's metadata
        diff = compare_metadata(MigrationContext.configure(conn, opts={
            "include_name": lambda name, kind, _: not (kind == "table" and name and (
                name.startswith(("item_search", "answer_search", "result_search", "item_fields",
                                 "field_marks", "search_marks"))))}), metadata)
    assert diff == []


def _shape(url: str) -> dict[str, object]:
    """Every table's columns (type, not-null, default, key), indexes and foreign keys."""
    import sqlite3

    with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
        tables = [r[0] for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        out: dict[str, object] = {}
        for t in tables:
            indexes = sorted(
                (bool(unique), tuple(c[2] for c in db.execute(f"PRAGMA index_info('{name}')")))
                for _, name, unique, *_ in db.execute(f"PRAGMA index_list('{t}')"))
            out[t] = (list(db.execute(f"PRAGMA table_info('{t}')")), indexes,
                      sorted(db.execute(f"PRAGMA foreign_key_list('{t}')")))
        # triggers and virtual tables (store/search.py) as written
        out["sql"] = sorted(db.execute("SELECT type, name, sql FROM sqlite_master WHERE type = "
                                       "'trigger' OR sql LIKE 'CREATE VIRTUAL TABLE%'"))
        out["revision"] = list(db.execute("SELECT version_num FROM alembic_version"))
    return out


def test_a_new_store_is_the_migrated_schema(tmp_path: Path) -> None:
    """A new SQLite store is created from schema.py and stamped at HEAD in one step: it must
    be exactly what running every migration gives (columns, types, defaults, keys, indexes,
    foreign keys and the revision)."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine

    from assay.store.db import HEAD, MIGRATIONS, open_engine

    migrated = f"sqlite:///{tmp_path / 'migrated.db'}"
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with create_engine(migrated).begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
    created = f"sqlite:///{tmp_path / 'created.db'}"
    open_engine(created)
    assert _shape(created) == _shape(migrated)
    assert _shape(created)["revision"] == [(HEAD,)]
