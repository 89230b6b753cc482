"""The results page's filters through migration 0011's indexes (store/search.py): the rows each
filter gives on a small run — fresh and upgraded from 0010, SQLite and PostgreSQL —, the text
indexes' answers checked against the plain scan on every short substring of the run's texts,
the catch-up that fills the indexes on demand (rows written after a search, a new process, a
chunked catch-up), and the triggers that keep them as items and results are deleted or
changed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, text

from assay.core.types import Item
from assay.store import browse, repo, search
from assay.store import results as stored_results
from assay.store.datasets import item_labels
from assay.store.db import HEAD, MIGRATIONS, current_revision, open_engine
from tests.marks import starts
from tests.postgres import postgres_server

LONG = "x" * 150  # longer than item_fields keeps (100): filtered from the JSON instead

ITEMS = [
    Item("i1", {"prompt": "贵州茅台最新股价", "tags": "Stock", "label": "A", "n": 1}),
    Item("i2", {"prompt": "What is the PRICE of Gold?", "tags": "Commodity", "label": "B",
                "n": 2.5}),
    Item("i3", {"question": "茅台 vs 五粮液", "tags": "Stock", "label": "A", "flag": True,
                "meta": {"k": "v"}}),
    Item("i4", {"prompt": "long tag", "tags": LONG, "label": "B", "none": None}),
    Item("i5", {"prompt": "É grade", "tags": "Stock", "label": "C", "quote": 'say "hi"'}),
    Item("i6", {"prompt": "100%_done", "tags": "Other"}),
]
# (item, evaluator, score, status, reason); the answers below
RESULTS = [
    ("i1", "e1", 1.0, "scored", "price matches 1455"),
    ("i2", "e1", 0.0, "scored", "stale: Gold was 2,310"),
    ("i3", "e1", 1.0, "scored", "茅台 named"),
    ("i4", "e1", None, "error", "no answer"),
    ("i5", "e1", 0.0, "scored", "wrong grade"),
    ("i6", "e1", None, "null", "nothing to check"),
    ("i1", "e2", 0.0, "scored", "judge: the price is stale"),
    ("i3", "e2", 1.0, "scored", "judge: fine"),
    ("i6", "e2", 1.0, "scored", "judge: ok"),
]
ANSWERS = {"i1": "贵州茅台 1455.00 元", "i2": "Gold: 2,310 USD", "i3": "茅台",
           "i4": None, "i5": "B", "i6": "done: café"}


def populate(engine: Engine, run_id: str = "r1") -> None:
    """The run above, written as `assay score` writes (repo.write_batch)."""
    repo.save_dataset(engine, version="d1", name="d", path="d.json", fmt="json", rows=ITEMS)
    repo.create_run(engine, run_id=run_id, kind="score", dataset_id="d1", manifest={})
    stamp = repo.now()
    answers = [{"run_id": run_id, "item_id": i, "target": "recorded", "text": t,
                "error": None if t is not None else "no answer", "latency_s": n / 10}
               for n, (i, t) in enumerate(ANSWERS.items())]
    results = [{"run_id": run_id, "item_id": i, "evaluator": e, "evaluator_version": "v",
                "score": s, "status": st, "reason": r, "evidence": {"n": n},
                "created_at": stamp} for n, (i, e, s, st, r) in enumerate(RESULTS)]
    repo.write_batch(engine, answers, results)
    repo.finish_run(engine, run_id, "finished", {})


def page(engine: Engine, **kw: Any) -> list[tuple[str, str]]:
    total, rows = browse.browse_page(engine, "r1", "d1", limit=100, **kw)
    assert total == len(rows)
    return [(r["item_id"], r["evaluator"]) for r in rows]


E1 = [(r[0], "e1") for r in RESULTS if r[1] == "e1"]

# filter → the rows it gives, in the order it gives them (both backends)
EXPECTED: list[tuple[dict[str, Any], list[tuple[str, str]]]] = [
    ({}, [(r[0], r[1]) for r in RESULTS]),
    ({"evaluator": "e1"}, E1),
    ({"status": "error"}, [("i4", "e1")]),
    ({"score": 0.0}, [("i2", "e1"), ("i5", "e1"), ("i1", "e2")]),
    ({"no_score": True}, [("i4", "e1"), ("i6", "e1")]),
    ({"label": "A"}, [("i1", "e1"), ("i3", "e1"), ("i1", "e2"), ("i3", "e2")]),
    ({"label": "A", "score": 1.0}, [("i1", "e1"), ("i3", "e1"), ("i3", "e2")]),
    ({"where": {"tags": "Stock"}},
     [("i1", "e1"), ("i3", "e1"), ("i5", "e1"), ("i1", "e2"), ("i3", "e2")]),
    ({"where": {"tags": "Stock", "label": "A"}, "evaluator": "e2"}, [("i1", "e2"), ("i3", "e2")]),
    ({"where": {"n": "1"}}, [("i1", "e1"), ("i1", "e2")]),
    ({"where": {"n": "2.5"}}, [("i2", "e1")]),
    ({"where": {"tags": LONG}}, [("i4", "e1")]),  # too long for item_fields: from the JSON
    ({"where": {"none": ""}}, []),  # a JSON null is no value
    ({"where": {"nosuchfield": "Stock"}}, []),
    # text: the item's stored JSON (keys too), the answer or the reason; ASCII case folded
    ({"text": "茅台"}, [("i1", "e1"), ("i3", "e1"), ("i1", "e2"), ("i3", "e2")]),
    ({"text": "州茅台"}, [("i1", "e1"), ("i1", "e2")]),
    ({"text": "É"}, [("i5", "e1")]),  # not folded: SQLite's LIKE folds ASCII only
    ({"text": "é"}, [("i6", "e1"), ("i6", "e2")]),
    ({"text": "%_"}, [("i6", "e1"), ("i6", "e2")]),  # LIKE's wildcards taken literally
    ({"text": "question"}, [("i3", "e1"), ("i3", "e2")]),  # a key of the item's JSON
    ({"text": "judge"}, [("i1", "e2"), ("i3", "e2"), ("i6", "e2")]),
    ({"text": "2,310"}, [("i2", "e1")]),
    ({"text": "g"}, [("i1", "e1"), ("i2", "e1"), ("i3", "e1"), ("i4", "e1"), ("i5", "e1"),
                     ("i6", "e1"), ("i1", "e2"), ("i3", "e2"), ("i6", "e2")]),
    ({"text": "no such text"}, []),
    ({"text": "茅台", "sort": "-score", "evaluator": "e1"}, [("i1", "e1"), ("i3", "e1")]),
    ({"text": "stale", "where": {"tags": "Commodity"}}, [("i2", "e1")]),
    ({"label": "B", "sort": "-latency"}, [("i4", "e1"), ("i2", "e1")]),
    ({"sort": "-score", "evaluator": "e2"}, [("i3", "e2"), ("i6", "e2"), ("i1", "e2")]),
]


# the search as each backend's LIKE reads case: SQLite folds ASCII letters, PostgreSQL none
BY_BACKEND = {
    "sqlite": [({"text": "price"}, [("i1", "e1"), ("i2", "e1"), ("i1", "e2")]),
               ({"text": "PRICE"}, [("i1", "e1"), ("i2", "e1"), ("i1", "e2")])],
    "postgresql": [({"text": "price"}, [("i1", "e1"), ("i1", "e2")]),
                   ({"text": "PRICE"}, [("i2", "e1")])],
}


def check_filters(engine: Engine) -> None:
    for kw, rows in EXPECTED + BY_BACKEND[engine.dialect.name]:
        assert page(engine, **kw) == rows, kw
    # the label list (one index seek per label), and of a dataset without labels
    assert item_labels(engine, "d1") == ["A", "B", "C"]
    assert item_labels(engine, "nosuchdataset") == []
    # a page of a filter, and its count
    total, rows = browse.browse_page(engine, "r1", "d1", text="茅台", limit=1, offset=1)
    assert (total, [r["item_id"] for r in rows]) == (4, ["i3"])
    total, rows = browse.browse_page(engine, "r1", "d1", label="A", limit=2, offset=2)
    assert (total, [(r["item_id"], r["evaluator"]) for r in rows]) == (
        4, [("i1", "e2"), ("i3", "e2")])


@pytest.fixture()
def sqlite_store(tmp_path: Path) -> Engine:
    engine = open_engine(f"sqlite:///{tmp_path / 's.db'}")
    populate(engine)
    return engine


def test_each_filter_gives_these_rows_on_sqlite(sqlite_store: Engine) -> None:
    check_filters(sqlite_store)
    assert page(sqlite_store, where={"flag": "1"}) == [("i3", "e1"), ("i3", "e2")]
    assert page(sqlite_store, where={"meta": '{"k":"v"}'}) == [("i3", "e1"), ("i3", "e2")]


def test_the_shared_filters_of_results_page(sqlite_store: Engine) -> None:
    total, rows = stored_results.results_page(sqlite_store, "r1", "d1", label="A", score=1.0)
    assert total == 3 and [(r["item_id"], r["evaluator"], r["label"]) for r in rows] == [
        ("i1", "e1", "A"), ("i3", "e1", "A"), ("i3", "e2", "A")]
    conds = stored_results.result_filters("r1", "d1", status="scored", evaluator="e2")
    with sqlite_store.connect() as conn:
        ids = conn.execute(stored_results.filtered_ids(conds)).scalars().all()
    assert len(ids) == 3


def test_item_fields_hold_each_field_as_the_json_filter_read_it(sqlite_store: Engine) -> None:
    with sqlite_store.connect() as conn:  # nothing is indexed when rows are written
        assert conn.execute(text("SELECT count(*) FROM item_fields")).scalar() == 0
    assert search.catch_up_fields(sqlite_store, "d1", ["label", "flag", "meta", "question",
                                                       "tags", "prompt", "none", "n"])
    with sqlite_store.connect() as conn:
        got = conn.execute(text("SELECT item_id, name, value FROM item_fields "
                                "WHERE item_id IN ('i3', 'i4') ORDER BY item_id, name")).all()
    assert got == [("i3", "flag", "1"), ("i3", "label", "A"), ("i3", "meta", '{"k":"v"}'),
                   ("i3", "question", "茅台 vs 五粮液"), ("i3", "tags", "Stock"),
                   ("i4", "label", "B"), ("i4", "prompt", "long tag")]  # no null, no LONG


def _scan(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "text_candidates", lambda *a, **k: None)


def test_the_text_indexes_find_what_the_scan_finds(sqlite_store: Engine,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Every substring of one to four characters of every text in the run (item JSON, answers,
    reasons), in both cases, and a few that match nothing: the same rows, in the same order,
    with the indexes as with the plain scan."""
    with sqlite_store.connect() as conn:
        texts = [*conn.execute(text("SELECT fields FROM items")).scalars(),
                 *(t for t in ANSWERS.values() if t), *(r[4] for r in RESULTS)]
    queries = {t[i:i + n] for t in texts for n in (1, 2, 3, 4) for i in range(len(t) - n + 1)}
    queries |= {q.upper() for q in queries} | {"zz", "茅台x", '"', '""', "\\", "a b", "\n",
                                               "\x00", "a\x00b", "茅台\x00五"}
    indexed = {q: page(sqlite_store, text=q) for q in sorted(queries)}
    _scan(monkeypatch)
    scanned = {q: page(sqlite_store, text=q) for q in sorted(queries)}
    assert indexed == scanned
    assert sum(1 for rows in indexed.values() if rows) > 200  # most of them find something


def test_the_triggers_keep_the_indexes(sqlite_store: Engine) -> None:
    """Deleting results and items (assay retry, an online run's partial traces) and changing
    a reason or an item's fields, after the indexes were filled: what they give is what the
    rows say."""
    from sqlalchemy import delete, update

    from assay.store.schema import answers, items, results

    check_filters(sqlite_store)  # fills the indexes
    with sqlite_store.begin() as conn:
        conn.execute(delete(results).where(results.c.item_id == "i2"))
        conn.execute(delete(answers).where(answers.c.item_id == "i2"))  # (as assay retry)
        conn.execute(update(answers).where(answers.c.item_id == "i3").values(text="银行"))
        conn.execute(update(results).where(results.c.item_id == "i1", results.c.evaluator ==
                                           "e2").values(reason="judge: 茅台 price fresh"))
        conn.execute(update(items).where(items.c.item_id == "i5").values(
            fields={"prompt": "now Gold", "tags": "Metal"}))
        conn.execute(delete(results).where(results.c.item_id == "i6"))
        conn.execute(delete(items).where(items.c.item_id == "i6"))
    assert page(sqlite_store, text="stale") == []
    assert page(sqlite_store, text="gold") == [("i5", "e1")]
    assert page(sqlite_store, text="fresh") == [("i1", "e2")]
    assert page(sqlite_store, text="银行") == [("i3", "e1"), ("i3", "e2")]
    assert page(sqlite_store, text="2,310") == []
    assert page(sqlite_store, where={"tags": "Metal"}) == [("i5", "e1")]
    assert page(sqlite_store, where={"tags": "Stock"}) == [
        ("i1", "e1"), ("i3", "e1"), ("i1", "e2"), ("i3", "e2")]
    with sqlite_store.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM item_fields WHERE item_id = 'i6'")
                            ).scalar() == 0
        # only the names filtered on (check_filters': label, n, tags), as the item is now
        assert conn.execute(text("SELECT name, value FROM item_fields WHERE item_id = 'i5' "
                                 "ORDER BY name")).all() == [("tags", "Metal")]


def marks(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {name: upto for name, upto in conn.execute(
            text("SELECT name, upto FROM search_marks"))}


def field_marks(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {name: upto for name, upto in conn.execute(
            text("SELECT name, upto FROM field_marks WHERE dataset_id = 'd1'"))}


def test_rows_written_after_a_search_are_found_by_the_next(sqlite_store: Engine) -> None:
    """An online run: a search, then a trace (item, answer, result) and a result of an old
    item; the next search and field filter find them — the indexes add only the new rows."""
    assert page(sqlite_store, text="新的") == []
    assert page(sqlite_store, where={"tags": "New"}) == []
    assert marks(sqlite_store) == {"item_text": 6, "answer_text": 6, "result_text": 9}
    populate_more(sqlite_store)
    repo.write_batch(sqlite_store, [{"run_id": "r1", "item_id": "i7", "target": "recorded",
                                     "text": "答案是新的", "error": None, "latency_s": 1.0}],
                     [{"run_id": "r1", "item_id": "i5", "evaluator": "e3",
                       "evaluator_version": "v", "score": 1.0, "status": "scored",
                       "reason": "third look", "evidence": None, "created_at": repo.now()}])
    assert page(sqlite_store, text="新的") == [("i7", "e1")]  # the item's text and the answer
    assert page(sqlite_store, text="答案") == [("i7", "e1")]  # the answer's alone
    assert page(sqlite_store, text="third") == [("i5", "e3")]
    assert page(sqlite_store, where={"tags": "New"}) == [("i7", "e1")]
    assert marks(sqlite_store) == {"item_text": 7, "answer_text": 7, "result_text": 11}
    assert field_marks(sqlite_store) == {"tags": 7}  # the one field filtered on


def test_the_marks_survive_a_new_process(tmp_path: Path) -> None:
    """The indexes and their marks are in the store: a second process (a new engine on the
    file) finds them filled, adds nothing for the rows indexed, and only the rows since."""
    url = f"sqlite:///{tmp_path / 's.db'}"
    first = open_engine(url)
    populate(first)
    assert page(first, text="茅台") == [("i1", "e1"), ("i3", "e1"), ("i1", "e2"), ("i3", "e2")]
    assert page(first, where={"tags": "Other"}) == [("i6", "e1"), ("i6", "e2")]
    first.dispose()
    second = open_engine(url)
    before = marks(second)
    assert before == {"item_text": 6, "answer_text": 6, "result_text": 9}
    with second.connect() as conn:
        indexed = conn.execute(text("SELECT count(*) FROM item_search_terms")).scalar()
    check_filters(second)
    with second.connect() as conn:  # nothing indexed twice
        assert conn.execute(text("SELECT count(*) FROM item_search_terms")).scalar() == indexed
    populate_more(second)
    assert page(second, text="新的") == [("i7", "e1")]
    assert marks(second)["item_text"] == 7


def test_a_row_that_takes_a_deleted_rows_rowid_is_indexed(sqlite_store: Engine) -> None:
    """`assay retry` deletes a run's last results and writes them again: SQLite gives the new
    rows the freed rowids, below the mark; the DELETE trigger lowers the mark, so they are
    indexed (the old texts left in the index are only candidates, checked)."""
    from sqlalchemy import delete

    from assay.store.schema import answers, results

    check_filters(sqlite_store)
    with sqlite_store.begin() as conn:
        conn.execute(delete(results).where(results.c.evaluator == "e2"))
        conn.execute(delete(answers).where(answers.c.item_id == "i6"))
    assert marks(sqlite_store)["result_text"] == 6
    assert marks(sqlite_store)["answer_text"] == 5
    row = {"run_id": "r1", "evaluator": "e2", "evaluator_version": "v", "score": 1.0,
           "status": "scored", "created_at": repo.now(), "evidence": None}
    repo.write_batch(sqlite_store, [{"run_id": "r1", "item_id": "i6", "target": "recorded",
                                     "text": "retried reply", "error": None}],
                     [{**row, "item_id": "i1", "reason": "second judge"},
                      {**row, "item_id": "i3", "reason": "again"},
                      {**row, "item_id": "i6", "reason": "third"}])
    with sqlite_store.connect() as conn:  # the same rowids as the deleted rows
        assert conn.execute(text("SELECT max(id) FROM results")).scalar() == 9
    assert page(sqlite_store, text="second judge") == [("i1", "e2")]
    assert page(sqlite_store, text="judge") == [("i1", "e2")]  # the old reasons: gone
    assert page(sqlite_store, text="retried") == [("i6", "e1"), ("i6", "e2")]
    assert page(sqlite_store, text="café") == []


def test_a_catch_up_in_chunks_gives_the_same_rows(sqlite_store: Engine,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "CHUNK", 2)
    check_filters(sqlite_store)
    assert marks(sqlite_store) == {"item_text": 6, "answer_text": 6, "result_text": 9}


def test_a_store_that_cannot_be_written_scans(sqlite_store: Engine) -> None:
    """The indexes behind and the store locked by a writer past the busy timeout (or
    read-only): the search scans, the same rows."""
    import sqlite3

    path = sqlite_store.url.database
    assert path
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        locked = create_engine(f"sqlite:///{path}", connect_args={"timeout": 0.1})
        assert not search.catch_up(locked, search.TEXT_MARKS)
        assert not search.catch_up_fields(locked, "d1", ["tags"])
        assert page(locked, text="茅台") == [("i1", "e1"), ("i3", "e1"), ("i1", "e2"),
                                             ("i3", "e2")]
        assert page(locked, where={"tags": "Other"}) == [("i6", "e1"), ("i6", "e2")]
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert marks(sqlite_store)["item_text"] == 0


def _at_0010(url: str) -> Engine:
    """A store migrated to 0010 (before the indexes), written by this code's repo."""
    from alembic import command
    from alembic.config import Config

    from assay.store.db import _json_dumps  # JSON as the store writes it (CJK unescaped)

    old = create_engine(url, json_serializer=_json_dumps)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with old.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0010")
    populate(old)
    return old


def test_an_old_sqlite_store_is_upgraded_and_its_rows_found(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    old = _at_0010(url)
    with old.connect() as conn:
        assert not conn.execute(text("SELECT 1 FROM sqlite_master WHERE name = 'item_fields'")
                                ).first()
    engine = open_engine(url)
    assert current_revision(engine) == HEAD
    check_filters(engine)
    with engine.connect() as conn:  # filled by the filters above, not by the upgrade
        assert conn.execute(text("SELECT name, count(*) FROM item_fields GROUP BY name "
                                 "ORDER BY name")).all() == [("label", 5), ("n", 2), ("tags", 5)]
    assert marks(engine) == {"item_text": 6, "answer_text": 6, "result_text": 9}
    populate_more(engine)  # rows written since: the next search adds them
    assert page(engine, where={"tags": "New"}) == [("i7", "e1")]
    assert page(engine, text="新的") == [("i7", "e1")]


def populate_more(engine: Engine) -> None:
    with engine.begin() as conn:  # an online run's trace, added to the run's own dataset
        conn.execute(text("INSERT INTO items (dataset_id, item_id, line, fields) VALUES "
                          "('d1', 'i7', 7, '{\"prompt\": \"新的\", \"tags\": \"New\"}')"))
    repo.write_batch(engine, [], [{"run_id": "r1", "item_id": "i7", "evaluator": "e1",
                                   "evaluator_version": "v", "score": 1.0, "status": "scored",
                                   "reason": "ok", "evidence": None,
                                   "created_at": repo.now()}])


def test_downgrade_removes_what_0011_added(tmp_path: Path) -> None:
    from alembic import command
    from alembic.config import Config

    url = f"sqlite:///{tmp_path / 'd.db'}"
    engine = create_engine(url)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0011")
        command.downgrade(cfg, "0010")
        names = set(conn.execute(text("SELECT name FROM sqlite_master")).scalars())
    assert not {n for n in names if "search" in n or "item_fields" in n or "marks" in n}
    assert "ix_results_run_rows" not in names and "ix_items_dataset_label" in names


# ---- PostgreSQL ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
@starts("server", "process")
def pg() -> Iterator[str]:
    with postgres_server() as url:
        yield url


def _database(pg: str, name: str) -> str:
    with create_engine(pg, isolation_level="AUTOCOMMIT").connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    return pg.rsplit("/", 1)[0] + "/" + name


def test_each_filter_gives_these_rows_on_postgresql(pg: str) -> None:
    """The same rows (PostgreSQL has no trigram index here: its search scans, as before).
    The PostgreSQL tests come last: the server stops when the module's last test ends."""
    engine = open_engine(_database(pg, "search_fresh"))
    populate(engine)
    check_filters(engine)
    # JSON as PostgreSQL writes it as text (fields->>name), as the JSON filter read it
    assert page(engine, where={"flag": "true"}) == [("i3", "e1"), ("i3", "e2")]
    assert page(engine, where={"meta": '{"k": "v"}'}) == [("i3", "e1"), ("i3", "e2")]
    assert not search.catch_up_fields(engine, "d1", ["tags"])  # no search tables: a scan
    with engine.begin() as conn:
        conn.execute(text("UPDATE items SET fields = '{\"tags\": \"Metal\"}' "
                          "WHERE item_id = 'i5'"))
        conn.execute(text("DELETE FROM results WHERE item_id = 'i6'"))
        conn.execute(text("DELETE FROM items WHERE item_id = 'i6'"))
    assert page(engine, where={"tags": "Metal"}) == [("i5", "e1")]
    assert page(engine, text="Other") == []


def test_an_old_postgresql_store_is_upgraded(pg: str) -> None:
    url = _database(pg, "search_0010")
    _at_0010(url)
    engine = open_engine(url)
    assert current_revision(engine) == HEAD
    check_filters(engine)
    populate_more(engine)
    assert page(engine, where={"tags": "New"}) == [("i7", "e1")]
    assert page(engine, text="新的") == [("i7", "e1")]
