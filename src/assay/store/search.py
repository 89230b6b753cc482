"""Text search and item-field filters through indexes (migration 0011), for the UI's results at
100,000 items: what matches is exactly what the plain scans matched — an index only names the
candidates, and the scan's own condition is checked on them.

* SQLite keeps contentless trigram indexes (FTS5, detail=none) over each item's stored JSON,
  each answer's text and each result's reason. A search of three characters or more asks
  for rows holding every trigram of the text (folded as SQLite folds case); a shorter one
  reads the index's terms that begin with it (every character of an indexed text begins a
  trigram: two newlines end each). PostgreSQL, and a SQLite without the trigram tokenizer,
  scan as before.
* `item_fields` holds each item's top-level fields as text, for `where=NAME=VALUE`; a value
  over 100 characters (a name over 255) is not kept there and is filtered from the JSON.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Connection, TextualSelect, column, exists, select, text

from .schema import item_fields

MAX_NAME, MAX_VALUE = 255, 100  # the longest field name and value item_fields keeps

# SQLite only, beside the tables (schema.py creates them for a new store): the same statements
# as migration 0011's.
SQLITE_FIELDS = [
    f"""CREATE TRIGGER items_fields_ai AFTER INSERT ON items
WHEN json_type(new.fields) = 'object' BEGIN
  INSERT OR IGNORE INTO item_fields (dataset_id, name, value, item_id)
  SELECT new.dataset_id, key, CAST(value AS TEXT), new.item_id FROM json_each(new.fields)
  WHERE value IS NOT NULL AND length(key) <= {MAX_NAME}
  AND length(CAST(value AS TEXT)) <= {MAX_VALUE};
END""",
    """CREATE TRIGGER items_fields_ad AFTER DELETE ON items
WHEN json_type(old.fields) = 'object' BEGIN
  DELETE FROM item_fields WHERE dataset_id = old.dataset_id AND item_id = old.item_id
  AND (name, value) IN (SELECT key, CAST(value AS TEXT) FROM json_each(old.fields));
END""",
    f"""CREATE TRIGGER items_fields_au AFTER UPDATE OF fields ON items BEGIN
  DELETE FROM item_fields WHERE json_type(old.fields) = 'object'
  AND dataset_id = old.dataset_id AND item_id = old.item_id
  AND (name, value) IN (SELECT key, CAST(value AS TEXT) FROM json_each(old.fields));
  INSERT OR IGNORE INTO item_fields (dataset_id, name, value, item_id)
  SELECT new.dataset_id, key, CAST(value AS TEXT), new.item_id FROM json_each(new.fields)
  WHERE json_type(new.fields) = 'object' AND value IS NOT NULL AND length(key) <= {MAX_NAME}
  AND length(CAST(value AS TEXT)) <= {MAX_VALUE};
END""",
]

SQLITE_SEARCH = [
    """CREATE TABLE item_search (
  id INTEGER PRIMARY KEY, dataset_id VARCHAR(64) NOT NULL, item_id VARCHAR(255) NOT NULL,
  UNIQUE (dataset_id, item_id))""",
    """CREATE VIRTUAL TABLE item_search_fts USING fts5(
  body, content='', tokenize='trigram', detail='none', columnsize=0)""",
    "CREATE VIRTUAL TABLE item_search_terms USING fts5vocab(item_search_fts, 'instance')",
    """CREATE VIRTUAL TABLE result_search_fts USING fts5(
  body, content='', tokenize='trigram', detail='none', columnsize=0)""",
    "CREATE VIRTUAL TABLE result_search_terms USING fts5vocab(result_search_fts, 'instance')",
    """CREATE TRIGGER items_search_ai AFTER INSERT ON items BEGIN
  INSERT INTO item_search (dataset_id, item_id) VALUES (new.dataset_id, new.item_id);
  INSERT INTO item_search_fts (rowid, body) VALUES (
    (SELECT id FROM item_search WHERE dataset_id = new.dataset_id AND item_id = new.item_id),
    CAST(new.fields AS TEXT) || char(10, 10));
END""",
    """CREATE TRIGGER items_search_ad AFTER DELETE ON items BEGIN
  INSERT INTO item_search_fts (item_search_fts, rowid, body)
  SELECT 'delete', id, CAST(old.fields AS TEXT) || char(10, 10) FROM item_search
  WHERE dataset_id = old.dataset_id AND item_id = old.item_id;
  DELETE FROM item_search WHERE dataset_id = old.dataset_id AND item_id = old.item_id;
END""",
    """CREATE TRIGGER items_search_au AFTER UPDATE OF fields ON items BEGIN
  INSERT INTO item_search_fts (item_search_fts, rowid, body)
  SELECT 'delete', id, CAST(old.fields AS TEXT) || char(10, 10) FROM item_search
  WHERE dataset_id = old.dataset_id AND item_id = old.item_id;
  INSERT INTO item_search_fts (rowid, body)
  SELECT id, CAST(new.fields AS TEXT) || char(10, 10) FROM item_search
  WHERE dataset_id = old.dataset_id AND item_id = old.item_id;
END""",
    """CREATE TABLE answer_search (
  id INTEGER PRIMARY KEY, run_id VARCHAR(64) NOT NULL, item_id VARCHAR(255) NOT NULL,
  target VARCHAR(255) NOT NULL, epoch INTEGER NOT NULL, UNIQUE (run_id, item_id, target, epoch))""",
    """CREATE VIRTUAL TABLE answer_search_fts USING fts5(
  body, content='', tokenize='trigram', detail='none', columnsize=0)""",
    "CREATE VIRTUAL TABLE answer_search_terms USING fts5vocab(answer_search_fts, 'instance')",
    """CREATE TRIGGER answers_search_ai AFTER INSERT ON answers WHEN new.text IS NOT NULL BEGIN
  INSERT INTO answer_search (run_id, item_id, target, epoch)
  VALUES (new.run_id, new.item_id, new.target, new.epoch);
  INSERT INTO answer_search_fts (rowid, body) VALUES (
    (SELECT id FROM answer_search WHERE run_id = new.run_id AND item_id = new.item_id
     AND target = new.target AND epoch = new.epoch), new.text || char(10, 10));
END""",
    """CREATE TRIGGER answers_search_ad AFTER DELETE ON answers WHEN old.text IS NOT NULL BEGIN
  INSERT INTO answer_search_fts (answer_search_fts, rowid, body)
  SELECT 'delete', id, old.text || char(10, 10) FROM answer_search
  WHERE run_id = old.run_id AND item_id = old.item_id AND target = old.target
  AND epoch = old.epoch;
  DELETE FROM answer_search WHERE run_id = old.run_id AND item_id = old.item_id
  AND target = old.target AND epoch = old.epoch;
END""",
    """CREATE TRIGGER answers_search_au AFTER UPDATE OF text ON answers BEGIN
  INSERT INTO answer_search_fts (answer_search_fts, rowid, body)
  SELECT 'delete', id, old.text || char(10, 10) FROM answer_search
  WHERE old.text IS NOT NULL AND run_id = old.run_id AND item_id = old.item_id
  AND target = old.target AND epoch = old.epoch;
  DELETE FROM answer_search WHERE old.text IS NOT NULL AND run_id = old.run_id
  AND item_id = old.item_id AND target = old.target AND epoch = old.epoch;
  INSERT INTO answer_search (run_id, item_id, target, epoch)
  SELECT new.run_id, new.item_id, new.target, new.epoch WHERE new.text IS NOT NULL;
  INSERT INTO answer_search_fts (rowid, body)
  SELECT id, new.text || char(10, 10) FROM answer_search
  WHERE new.text IS NOT NULL AND run_id = new.run_id AND item_id = new.item_id
  AND target = new.target AND epoch = new.epoch;
END""",
    """CREATE TRIGGER results_search_ai AFTER INSERT ON results BEGIN
  INSERT INTO result_search_fts (rowid, body) VALUES (new.id, new.reason || char(10, 10));
END""",
    """CREATE TRIGGER results_search_ad AFTER DELETE ON results BEGIN
  INSERT INTO result_search_fts (result_search_fts, rowid, body)
  VALUES ('delete', old.id, old.reason || char(10, 10));
END""",
    """CREATE TRIGGER results_search_au AFTER UPDATE OF reason ON results BEGIN
  INSERT INTO result_search_fts (result_search_fts, rowid, body)
  VALUES ('delete', old.id, old.reason || char(10, 10));
  INSERT INTO result_search_fts (rowid, body) VALUES (new.id, new.reason || char(10, 10));
END""",
]

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
    from sqlalchemy.exc import DBAPIError

    try:
        conn.exec_driver_sql("CREATE VIRTUAL TABLE temp.assay_probe USING fts5(x, "
                             "tokenize='trigram', content='', detail='none')")
    except DBAPIError:
        return False
    conn.exec_driver_sql("DROP TABLE temp.assay_probe")
    return True


def create_sqlite(conn: Connection) -> None:
    """The triggers and text indexes of a new SQLite store (migration 0011 for an old one)."""
    for statement in SQLITE_FIELDS:
        conn.exec_driver_sql(statement)
    write_stats(conn)
    if has_trigram(conn):
        for statement in SQLITE_SEARCH:
            conn.exec_driver_sql(statement)


def has_text_index(conn: Connection) -> bool:
    return conn.dialect.name == "sqlite" and conn.exec_driver_sql(
        "SELECT 1 FROM sqlite_master WHERE name = 'answer_search_fts'").first() is not None


def _caseless(ch: str) -> bool:
    return ch.isascii() or ch.lower() == ch == ch.upper()


def _matching(fts: str, terms: str, query: str, name: str
              ) -> tuple[str, dict[str, str]] | None:
    """SQL for the rowids (`doc`) of `fts` whose text may hold `query`: every row that does,
    and maybe some that do not (the caller checks them), with its parameters. None when the
    index cannot say (a short text with letters whose case SQLite may fold otherwise than
    Python)."""
    if len(query) >= 3:
        trigrams = sorted({query[i:i + 3] for i in range(len(query) - 2)})
        match = " AND ".join('"' + t.replace('"', '""') + '"' for t in trigrams)
        return f"SELECT rowid AS doc FROM {fts} WHERE {fts} MATCH :{name}", {name: match}
    if not all(_caseless(ch) for ch in query):
        return None
    low = query.lower()
    return (f"SELECT DISTINCT doc FROM {terms} WHERE term >= :{name}_lo "
            f"AND term <= :{name}_hi", {f"{name}_lo": low, f"{name}_hi": low + "\U0010ffff"})


def text_candidates(conn: Connection, run_id: str, dataset_id: str, query: str
                    ) -> TextualSelect | None:
    """The ids of a run's results whose reason, item or answer may contain `query` (a superset
    of those that do), read from the text indexes; None where there are none (PostgreSQL, an
    old SQLite) or they cannot answer this query — the caller then scans. Each index's rows
    lead (CROSS JOIN: SQLite keeps the order written), each found by its key."""
    if not query or not has_text_index(conn):
        return None
    found = [_matching(f"{kind}_search_fts", f"{kind}_search_terms", query, f"{kind}_match")
             for kind in ("result", "item", "answer")]
    if any(f is None for f in found):
        return None
    (reasons, p1), (items, p2), (answers, p3) = found  # type: ignore[misc]
    sql = f"""SELECT d.doc AS id FROM ({reasons}) AS d
UNION SELECT r.id FROM ({items}) AS d CROSS JOIN item_search AS s ON s.id = d.doc
  CROSS JOIN results AS r ON r.run_id = :search_run AND r.item_id = s.item_id
  WHERE s.dataset_id = :search_dataset
UNION SELECT r.id FROM ({answers}) AS d CROSS JOIN answer_search AS s ON s.id = d.doc
  CROSS JOIN results AS r ON r.run_id = s.run_id AND r.item_id = s.item_id
  AND r.target = s.target AND r.epoch = s.epoch WHERE s.run_id = :search_run"""
    return text(sql).bindparams(search_run=run_id, search_dataset=dataset_id, **p1, **p2,
                                **p3).columns(column("id"))


def field_filter(dataset_id: str, name: str, value: str, item_id: ColumnElement[Any], *,
                 each: bool = False) -> ColumnElement[bool] | None:
    """`item_id` is an item whose field `name`, as text, is `value` — through item_fields: its
    items read at once (IN, for a count), or with `each` one lookup per row (EXISTS, for a
    page that stops at its end). None when that table cannot say (a name or value longer
    than it keeps)."""
    if len(name) > MAX_NAME or len(value) > MAX_VALUE:
        return None
    found = select(item_fields.c.item_id).where(
        item_fields.c.dataset_id == dataset_id, item_fields.c.name == name,
        item_fields.c.value == value)
    return exists(found.where(item_fields.c.item_id == item_id)) if each \
        else item_id.in_(found)
