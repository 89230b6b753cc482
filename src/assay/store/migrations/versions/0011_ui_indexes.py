"""What the UI's filters and search read at 100,000 items, kept where an index reaches it:

* `ix_results_run_rows`: a run's results in insertion order, with score, status, evaluator,
  sample and cost in the index — the results pages' filters, the summary's GROUP BY, the cost
  sheet, compare's scores and the matrix read it without touching a result row (each row
  carries its evidence inline), and a page of a filtered run stops where the page ends;
* `ix_items_dataset_label` gains item_id: the label filter's items without reading their JSON;
* SQLite only (store/search.py): `item_fields` (each item's top-level fields as text, for
  `where=FIELD=VALUE`), trigram full-text indexes (FTS5, contentless) over each item's stored
  JSON, each answer's text and each result's reason (skipped where the SQLite has no trigram
  tokenizer, before 3.34), and `search_marks`/`field_marks`, how far each holds its table's
  rows. They are
  created empty and filled on demand: the first search that needs one adds the rows written
  since its mark. Nothing is added when rows are written; triggers on DELETE and UPDATE (which
  the write paths do not fire) lower the marks and drop a deleted item's fields;
* SQLite: the planner's statistics (sqlite_stat1) of a store of 100,000-result runs, so that
  each query takes the index meant for it.

PostgreSQL gets the two indexes; its `where=` and text search scan, as before.

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

MAX_NAME, MAX_VALUE = 255, 100  # the longest field name and value item_fields keeps

# The statements below are also in store/search.py (a new SQLite store is created from there):
# tests/store/test_db.py checks that both give the same schema.
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


def write_stats(conn: sa.Connection) -> None:
    """SQLITE_STATS into sqlite_stat1 (made by an ANALYZE of the empty schema table)."""
    conn.exec_driver_sql("ANALYZE sqlite_schema")
    for table_name, index, stat in SQLITE_STATS:
        conn.exec_driver_sql("DELETE FROM sqlite_stat1 WHERE tbl = ? AND idx IS ?",
                             (table_name, index))
        conn.exec_driver_sql("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?, ?, ?)",
                             (table_name, index, stat))
    conn.exec_driver_sql("ANALYZE sqlite_schema")  # (re)loads them



def _has_trigram(bind: sa.Connection) -> bool:
    try:
        bind.exec_driver_sql("CREATE VIRTUAL TABLE temp.assay_probe USING fts5(x, "
                             "tokenize='trigram', content='', detail='none')")
    except sa.exc.DBAPIError:
        return False
    bind.exec_driver_sql("DROP TABLE temp.assay_probe")
    return True


def upgrade() -> None:
    bind = op.get_bind()
    op.drop_index("ix_items_dataset_label", table_name="items")
    op.create_index("ix_items_dataset_label", "items", ["dataset_id", "label", "item_id"])
    op.create_index("ix_results_run_rows", "results",
                    ["run_id", "id", "score", "status", "evaluator", "item_id", "target", "epoch",
                     "cost"])
    if bind.dialect.name != "sqlite":
        return
    for statement in SQLITE_INDEXES:
        op.execute(statement)
    write_stats(bind)
    if _has_trigram(bind):
        for statement in SQLITE_TEXT:
            op.execute(statement)


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        for name in SQLITE_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
        for name in SQLITE_TABLES:
            op.execute(f"DROP TABLE IF EXISTS {name}")
        op.execute("DELETE FROM sqlite_stat1 WHERE tbl IN ('results', 'items', 'item_fields', "
                   "'answers')")
    op.drop_index("ix_results_run_rows", table_name="results")
    op.drop_index("ix_items_dataset_label", table_name="items")
    op.create_index("ix_items_dataset_label", "items", ["dataset_id", "label"])
