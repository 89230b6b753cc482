"""Text search and item-field filters through indexes (migration 0011), for the UI's results at
100,000 items: what matches is exactly what the plain scans matched — an index only names the
candidates, and the scan's own condition is checked on them.

SQLite only; PostgreSQL scans, as before. The indexes are built **on demand, by catch-up**, not
when rows are written (scoring is the main path; the UI reads far less often): items, answers
and results only grow, each by an increasing rowid, so `search_marks` holds, per text index,
the rowid up to which it holds its table's rows (`field_marks` the same per dataset and field
name), and the first query that needs an index first adds the rows above that mark. The first
search pays once for what was written since the last one (the whole store after an upgrade);
a watched run's later searches pay for its new rows.
Nothing is done on insert; a row deleted or changed (`assay retry`, an online run's partial
traces) is handled by triggers on DELETE and UPDATE, which write paths do not fire:

* a deleted row lowers the mark to its table's highest rowid left, so a new row that takes a
  freed rowid is indexed; its text stays in the index, an extra candidate the check drops;
* a changed text lowers the mark below its row, which is indexed again (the old text's trigrams
  stay: candidates, as above);
* a deleted or changed item's rows of `item_fields` are removed (that table is not checked
  again: it must say exactly what the JSON says).

The indexes:

* contentless trigram FTS5 indexes (detail=none) over each item's stored JSON, each answer's
  text and each result's reason, keyed by the row's rowid. A search of three characters or
  more asks for rows holding every trigram of the text (folded as SQLite folds case); a shorter
  one reads the index's terms that begin with it (every character of an indexed text begins a
  trigram: two newlines end each). A SQLite without the trigram tokenizer (before 3.34) scans.
* `item_fields` holds items' top-level fields as text, for `where=NAME=VALUE`: a dataset's
  field is added the first time it is filtered on, read by the JSON filter's own expression; a
  value over 100 characters (a name over 255) is not kept there and is filtered from the JSON.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    Column,
    ColumnElement,
    Connection,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    TextualSelect,
    cast,
    column,
    exists,
    func,
    insert,
    literal,
    literal_column,
    select,
    text,
)
from sqlalchemy.exc import DBAPIError

from .schema import items
from .transaction import sqlite_transaction

MAX_NAME, MAX_VALUE = 255, 100  # the longest field name and value item_fields keeps

# Each item's top-level fields as text (CAST(json_extract(fields, '$.NAME') AS TEXT), as the
# JSON filter reads them): one B-tree, no rowid. SQLite only, so not in schema.py's metadata.
item_fields = Table(
    "item_fields", MetaData(),
    Column("dataset_id", String(64), primary_key=True),
    Column("name", String(255), primary_key=True),
    Column("value", String(100), primary_key=True),
    Column("item_id", String(255), primary_key=True),
)
field_marks = Table(  # a dataset's field is in item_fields for its items up to this rowid
    "field_marks", MetaData(),
    Column("dataset_id", String(64), primary_key=True),
    Column("name", String(255), primary_key=True),
    Column("upto", Integer, nullable=False),
)

# The indexes' marks: each index holds its table's rows up to this rowid.
MARKS = {"item_text": "items", "answer_text": "answers", "result_text": "results"}
TEXT_MARKS = ("result_text", "item_text", "answer_text")


def _lower_marks(names: tuple[str, ...], to: str) -> str:
    listed = ", ".join(f"'{n}'" for n in names)
    return f"UPDATE search_marks SET upto = {to} WHERE name IN ({listed}) AND upto > {to};"


_ITEM_TOP = "(SELECT coalesce(max(rowid), 0) FROM items)"
_DROP_FIELDS = """DELETE FROM item_fields WHERE json_type(old.fields) = 'object'
  AND dataset_id = old.dataset_id AND item_id = old.item_id
  AND (name, value) IN (SELECT key, CAST(value AS TEXT) FROM json_each(old.fields));"""

# SQLite, a new store (db.py) and migration 0011 alike — tests/store/test_db.py checks that both
# give the same schema. Triggers on DELETE and UPDATE only: no write path fires them.
SQLITE_INDEXES = [
    """CREATE TABLE search_marks (
  name VARCHAR(32) NOT NULL PRIMARY KEY, upto INTEGER NOT NULL)""",
    "INSERT INTO search_marks (name, upto) VALUES ('item_text', 0), ('answer_text', 0), "
    "('result_text', 0)",
    """CREATE TABLE field_marks (
  dataset_id VARCHAR(64) NOT NULL, name VARCHAR(255) NOT NULL, upto INTEGER NOT NULL,
  PRIMARY KEY (dataset_id, name))""",
    """CREATE TABLE item_fields (
  dataset_id VARCHAR(64) NOT NULL, name VARCHAR(255) NOT NULL, value VARCHAR(100) NOT NULL,
  item_id VARCHAR(255) NOT NULL, PRIMARY KEY (dataset_id, name, value, item_id)) WITHOUT ROWID""",
    f"""CREATE TRIGGER items_search_ad AFTER DELETE ON items BEGIN
  {_DROP_FIELDS}
  {_lower_marks(("item_text",), _ITEM_TOP)}
  UPDATE field_marks SET upto = {_ITEM_TOP} WHERE upto > {_ITEM_TOP};
END""",
    f"""CREATE TRIGGER items_search_au AFTER UPDATE ON items BEGIN
  {_DROP_FIELDS}
  {_lower_marks(("item_text",), "min(old.rowid, new.rowid) - 1")}
  UPDATE field_marks SET upto = min(old.rowid, new.rowid) - 1
  WHERE upto > min(old.rowid, new.rowid) - 1;
END""",
    f"""CREATE TRIGGER answers_search_ad AFTER DELETE ON answers BEGIN
  {_lower_marks(("answer_text",), "(SELECT coalesce(max(rowid), 0) FROM answers)")}
END""",
    f"""CREATE TRIGGER answers_search_au AFTER UPDATE ON answers BEGIN
  {_lower_marks(("answer_text",), "min(old.rowid, new.rowid) - 1")}
END""",
    f"""CREATE TRIGGER results_search_ad AFTER DELETE ON results BEGIN
  {_lower_marks(("result_text",), "(SELECT coalesce(max(id), 0) FROM results)")}
END""",
    f"""CREATE TRIGGER results_search_au AFTER UPDATE ON results BEGIN
  {_lower_marks(("result_text",), "min(old.id, new.id) - 1")}
END""",
]
# where this SQLite has the trigram tokenizer
SQLITE_TEXT = [
    f"""CREATE VIRTUAL TABLE {kind}_search_fts USING fts5(
  body, content='', tokenize='trigram', detail='none', columnsize=0)"""
    for kind in ("item", "answer", "result")] + [
    f"CREATE VIRTUAL TABLE {kind}_search_terms USING fts5vocab({kind}_search_fts, 'instance')"
    for kind in ("item", "answer", "result")]
SQLITE_TRIGGERS = ["items_search_ad", "items_search_au", "answers_search_ad",
                   "answers_search_au", "results_search_ad", "results_search_au"]
SQLITE_TABLES = ["item_search_terms", "item_search_fts", "answer_search_terms",
                 "answer_search_fts", "result_search_terms", "result_search_fts", "item_fields",
                 "field_marks", "search_marks"]

# what each mark's catch-up adds: the rows with lo < rowid <= hi
CATCH_UP = {
    "item_text": "INSERT INTO item_search_fts (rowid, body) SELECT rowid, "
                 "CAST(fields AS TEXT) || char(10, 10) FROM items WHERE rowid > ? AND rowid <= ?",
    "answer_text": "INSERT INTO answer_search_fts (rowid, body) SELECT rowid, "
                   "text || char(10, 10) FROM answers WHERE rowid > ? AND rowid <= ? "
                   "AND text IS NOT NULL",
    "result_text": "INSERT INTO result_search_fts (rowid, body) SELECT id, "
                   "reason || char(10, 10) FROM results WHERE id > ? AND id <= ?",
}
CHUNK = 20_000  # rows a catch-up adds per transaction (~1 s): a writer waits for one at most


# The query planner's picture of a store (sqlite_stat1, as ANALYZE writes it): runs of
# 100,000 results, a result found by its run and item, a label or field value shared by many
# items. Without it SQLite takes `run_id = ?` for a few rows and reads a whole run through the
# covering index to find one item's results; with it each query takes the index meant for it,
# in an empty store as in a full one. An ANALYZE of the real store replaces these.
SQLITE_STATS = [
    ("results", None, "1000000"),
    ("results", "sqlite_autoindex_results_1", "1000000 100000 2 2 2 1"),
    ("results", "ix_results_run_status", "1000000 100000 30000"),
    ("results", "ix_results_run_rows", "1000000 100000 1 1 1 1 1 1 1 1"),
    ("items", None, "1000000"),
    ("items", "sqlite_autoindex_items_1", "1000000 100000 1"),
    ("items", "ix_items_dataset_label", "1000000 100000 50000 1"),
    ("item_fields", "item_fields", "10000000 1000000 100000 50000 1"),
    ("answers", "sqlite_autoindex_answers_1", "1000000 100000 1 1 1"),
]


def write_stats(conn: Connection) -> None:
    """SQLITE_STATS into sqlite_stat1 (made by an ANALYZE of the empty schema table)."""
    conn.exec_driver_sql("ANALYZE sqlite_schema")
    for table_name, index, stat in SQLITE_STATS:
        conn.exec_driver_sql("DELETE FROM sqlite_stat1 WHERE tbl = ? AND idx IS ?",
                             (table_name, index))
        conn.exec_driver_sql("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?, ?, ?)",
                             (table_name, index, stat))
    conn.exec_driver_sql("ANALYZE sqlite_schema")  # (re)loads them


def has_trigram(conn: Connection) -> bool:
    """Whether this SQLite has FTS5's trigram tokenizer (3.34 and later, FTS5 compiled in)."""
    try:
        conn.exec_driver_sql("CREATE VIRTUAL TABLE temp.assay_probe USING fts5(x, "
                             "tokenize='trigram', content='', detail='none')")
    except DBAPIError:
        return False
    conn.exec_driver_sql("DROP TABLE temp.assay_probe")
    return True


def create_sqlite(conn: Connection) -> None:
    """The search tables of a new SQLite store (migration 0011 for an old one), empty: the
    first query that needs them fills them."""
    for statement in SQLITE_INDEXES:
        conn.exec_driver_sql(statement)
    write_stats(conn)
    if has_trigram(conn):
        for statement in SQLITE_TEXT:
            conn.exec_driver_sql(statement)


def _exists(conn: Connection, name: str) -> bool:
    return conn.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE name = ?",
                                (name,)).first() is not None


def _span(conn: Connection, name: str) -> tuple[int, int]:
    """(the mark, its table's highest rowid now)."""
    table = MARKS[name]
    upto = conn.exec_driver_sql("SELECT upto FROM search_marks WHERE name = ?",
                                (name,)).scalar_one()
    top = conn.exec_driver_sql(f"SELECT coalesce(max(rowid), 0) FROM {table}").scalar_one()
    return int(upto), int(top)


def catch_up(engine: Engine, names: tuple[str, ...]) -> bool:
    """Bring these indexes up to their tables' rows: each adds the rows written since its
    mark, in chunks of CHUNK rows, each its own short write transaction. False when they
    cannot answer — PostgreSQL, a SQLite without them (no trigram tokenizer), a store that
    cannot be written (read-only, or locked past the busy timeout) —: the caller scans."""
    # (the text indexes; item_fields: catch_up_fields)
    if engine.dialect.name != "sqlite":
        return False
    with engine.connect() as conn:
        if not (_exists(conn, "search_marks") and _exists(conn, "answer_search_fts")):
            return False
        behind = [n for n in names if len(set(_span(conn, n))) > 1]
        conn.rollback()
        try:
            for name in behind:
                while True:
                    # taken at once: the mark read in it is the one this catch-up moves, whoever else
                    # catches up at the same time
                    with sqlite_transaction(conn, "BEGIN IMMEDIATE"):
                        upto, top = _span(conn, name)
                        if top <= upto:  # caught up (or rows deleted above a lowered mark)
                            if top < upto:
                                conn.exec_driver_sql("UPDATE search_marks SET upto = ? "
                                                     "WHERE name = ?", (top, name))
                            break
                        hi = min(top, upto + CHUNK)
                        conn.exec_driver_sql(CATCH_UP[name], (upto, hi))
                        conn.exec_driver_sql("UPDATE search_marks SET upto = ? WHERE name = ?",
                                             (hi, name))
        except DBAPIError:
            return False
    return True


def _field_value(name: str) -> ColumnElement[Any]:
    """An item's field as the JSON filter reads it (store/browse.py)."""
    return cast(items.c.fields[name].as_string(), Text)


def catch_up_fields(engine: Engine, dataset_id: str, names: list[str]) -> bool:
    """Bring item_fields up to the dataset's items for these field names: the items written
    since each (dataset, name)'s mark, one statement each (a new name: every item of the
    dataset). False, as catch_up, when it cannot answer."""
    if engine.dialect.name != "sqlite":
        return False
    names = [n for n in names if len(n) <= MAX_NAME]
    with engine.connect() as conn:
        if not _exists(conn, "field_marks"):
            return False
        top = conn.exec_driver_sql("SELECT coalesce(max(rowid), 0) FROM items").scalar_one()
        known = dict(conn.execute(select(field_marks.c.name, field_marks.c.upto).where(
            field_marks.c.dataset_id == dataset_id, field_marks.c.name.in_(names))).all())
        behind = [n for n in names if known.get(n) != top]
        conn.rollback()
        rowid: ColumnElement[Any] = literal_column("items.rowid")
        try:
            for name in behind:
                with sqlite_transaction(conn, "BEGIN IMMEDIATE"):
                    upto = conn.execute(select(field_marks.c.upto).where(
                        field_marks.c.dataset_id == dataset_id, field_marks.c.name == name)
                    ).scalar()
                    top = conn.exec_driver_sql("SELECT coalesce(max(rowid), 0) FROM items"
                                               ).scalar_one()
                    if upto is None:
                        conn.execute(insert(field_marks).values(dataset_id=dataset_id,
                                                                 name=name, upto=0))
                        upto = 0
                    if top > upto:
                        value = _field_value(name)
                        conn.execute(insert(item_fields).prefix_with("OR IGNORE").from_select(
                            ["dataset_id", "name", "value", "item_id"],
                            select(items.c.dataset_id, literal(name, String), value,
                                   items.c.item_id).where(
                                items.c.dataset_id == dataset_id, rowid > upto, rowid <= top,
                                value.is_not(None), func.length(value) <= MAX_VALUE)))
                    conn.execute(field_marks.update().where(
                        field_marks.c.dataset_id == dataset_id, field_marks.c.name == name
                    ).values(upto=top))
        except DBAPIError:
            return False
    return True


def _caseless(ch: str) -> bool:
    return ch.isascii() or ch.lower() == ch == ch.upper()


def _matching(fts: str, terms: str, query: str, name: str
              ) -> tuple[str, dict[str, str]] | None:
    """SQL for the rowids (`doc`) of `fts` whose text may hold `query`: every row that does,
    and maybe some that do not (the caller checks them), with its parameters. None when the
    index cannot say (a short text with letters whose case SQLite may fold otherwise than
    Python)."""
    if "\x00" in query:  # FTS5 reads a query string only up to a NUL ("unterminated string")
        return None
    if len(query) >= 3:
        trigrams = sorted({query[i:i + 3] for i in range(len(query) - 2)})
        match = " AND ".join('"' + t.replace('"', '""') + '"' for t in trigrams)
        return f"SELECT rowid AS doc FROM {fts} WHERE {fts} MATCH :{name}", {name: match}
    if not all(_caseless(ch) for ch in query):
        return None
    low = query.lower()
    return (f"SELECT DISTINCT doc FROM {terms} WHERE term >= :{name}_lo "
            f"AND term <= :{name}_hi", {f"{name}_lo": low, f"{name}_hi": low + "\U0010ffff"})


def answerable(query: str) -> bool:
    """Whether the text indexes can name a search's candidates."""
    return bool(query) and _matching("f", "t", query, "q") is not None


def text_candidates(run_id: str, dataset_id: str, query: str) -> TextualSelect | None:
    """The ids of a run's results whose reason, item or answer may contain `query` (a superset
    of those that do), read from the text indexes, which the caller has brought up to date
    (catch_up); None when they cannot answer this query — the caller then scans. Each
    index's rows lead (CROSS JOIN: SQLite keeps the order written), each found by its key."""
    found = [_matching(f"{kind}_search_fts", f"{kind}_search_terms", query, f"{kind}_match")
             for kind in ("result", "item", "answer")]
    if not query or any(f is None for f in found):
        return None
    (reasons, p1), (items, p2), (answers, p3) = found  # type: ignore[misc]
    sql = f"""SELECT d.doc AS id FROM ({reasons}) AS d
UNION SELECT r.id FROM ({items}) AS d CROSS JOIN items AS i ON i.rowid = d.doc
  CROSS JOIN results AS r ON r.run_id = :search_run AND r.item_id = i.item_id
  WHERE i.dataset_id = :search_dataset
UNION SELECT r.id FROM ({answers}) AS d CROSS JOIN answers AS a ON a.rowid = d.doc
  CROSS JOIN results AS r ON r.run_id = a.run_id AND r.item_id = a.item_id
  AND r.target = a.target AND r.epoch = a.epoch WHERE a.run_id = :search_run"""
    return text(sql).bindparams(search_run=run_id, search_dataset=dataset_id, **p1, **p2,
                                **p3).columns(column("id"))


def field_filter(dataset_id: str, name: str, value: str, item_id: ColumnElement[Any], *,
                 each: bool = False) -> ColumnElement[bool] | None:
    """`item_id` is an item whose field `name`, as text, is `value` — through item_fields
    (brought up to date by catch_up_fields): its items read at once (IN, for a count), or with `each`
    one lookup per row (EXISTS, for a page that stops at its end). None when that table cannot
    say (a name or value longer than it keeps)."""
    if len(name) > MAX_NAME or len(value) > MAX_VALUE:
        return None
    found = select(item_fields.c.item_id).where(
        item_fields.c.dataset_id == dataset_id, item_fields.c.name == name,
        item_fields.c.value == value)
    return exists(found.where(item_fields.c.item_id == item_id)) if each \
        else item_id.in_(found)
