"""What the UI's filters and search read at 100,000 items, kept where an index reaches it:

* `ix_results_run_rows`: a run's results in insertion order, with score, status, evaluator,
  sample and cost in the index — the results pages' filters, the summary's GROUP BY, the cost
  sheet, compare's scores and the matrix read it without touching a result row (each row
  carries its evidence inline), and a page of a filtered run stops where the page ends;
* `ix_items_dataset_label` gains item_id: the label filter's items without reading their JSON;
* `item_fields`: each item's top-level fields as text (a value over 100 characters, a name
  over 255, is left out), kept by triggers on `items`, so `where=FIELD=VALUE` is a lookup;
* SQLite: the planner's statistics (sqlite_stat1) of a store of 100,000-result runs, so that
  each query takes the index meant for it;
* SQLite only: trigram full-text indexes (FTS5, contentless) over each item's stored JSON,
  each answer's text and each result's reason, kept by triggers: text search finds its
  candidates there instead of scanning every result. Skipped where the SQLite has no FTS5
  trigram tokenizer (before 3.34); the search then scans, as before.

Revision ID: 0011
Revises: 0010

Rows stored before are backfilled: the field table and the text indexes from every item and
result (about a minute per 100,000 items of the finance sample on a small machine).
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

# PostgreSQL keeps item_fields by one trigger function; its text search scans, as before.
PG_FIELDS = [
    f"""CREATE FUNCTION assay_item_fields() RETURNS trigger AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND jsonb_typeof(OLD.fields) = 'object' THEN
    DELETE FROM item_fields AS f USING jsonb_each_text(OLD.fields) AS j
    WHERE f.dataset_id = OLD.dataset_id AND f.name = j.key AND f.value = j.value
    AND f.item_id = OLD.item_id;
  END IF;
  IF TG_OP <> 'DELETE' AND jsonb_typeof(NEW.fields) = 'object' THEN
    INSERT INTO item_fields (dataset_id, name, value, item_id)
    SELECT NEW.dataset_id, j.key, j.value, NEW.item_id FROM jsonb_each_text(NEW.fields) AS j
    WHERE j.value IS NOT NULL AND length(j.key) <= {MAX_NAME} AND length(j.value) <= {MAX_VALUE}
    ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$ LANGUAGE plpgsql""",
    """CREATE TRIGGER items_fields AFTER INSERT OR UPDATE OR DELETE ON items
FOR EACH ROW EXECUTE FUNCTION assay_item_fields()""",
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
    # one B-tree (no rowid on SQLite): the key is the lookup; a deleted item's rows are found
    # by its own fields' names and values
    op.create_table(
        "item_fields",
        sa.Column("dataset_id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(255), primary_key=True),
        sa.Column("value", sa.String(100), primary_key=True),
        sa.Column("item_id", sa.String(255), primary_key=True),
        sqlite_with_rowid=False,
    )
    if bind.dialect.name == "postgresql":
        op.execute(f"""INSERT INTO item_fields (dataset_id, name, value, item_id)
SELECT i.dataset_id, f.key, f.value, i.item_id FROM items AS i,
  jsonb_each_text(CASE WHEN jsonb_typeof(i.fields) = 'object' THEN i.fields
                  ELSE '{{}}'::jsonb END) AS f
WHERE f.value IS NOT NULL AND length(f.key) <= {MAX_NAME} AND length(f.value) <= {MAX_VALUE}
ON CONFLICT DO NOTHING""")
        for statement in PG_FIELDS:
            op.execute(statement)
        return
    op.execute(f"""INSERT OR IGNORE INTO item_fields (dataset_id, name, value, item_id)
SELECT i.dataset_id, f.key, CAST(f.value AS TEXT), i.item_id FROM items AS i,
  json_each(CASE WHEN json_type(i.fields) = 'object' THEN i.fields ELSE '{{}}' END) AS f
WHERE f.value IS NOT NULL AND length(f.key) <= {MAX_NAME}
  AND length(CAST(f.value AS TEXT)) <= {MAX_VALUE}""")
    for statement in SQLITE_FIELDS:
        op.execute(statement)
    write_stats(bind)
    if not _has_trigram(bind):
        return
    for statement in SQLITE_SEARCH:
        op.execute(statement)
    op.execute("INSERT INTO item_search (dataset_id, item_id) "
               "SELECT dataset_id, item_id FROM items ORDER BY rowid")
    op.execute("INSERT INTO item_search_fts (rowid, body) SELECT s.id, "
               "CAST(i.fields AS TEXT) || char(10, 10) FROM item_search AS s JOIN items AS i "
               "ON i.dataset_id = s.dataset_id AND i.item_id = s.item_id")
    op.execute("INSERT INTO result_search_fts (rowid, body) "
               "SELECT id, reason || char(10, 10) FROM results")
    op.execute("INSERT INTO answer_search (run_id, item_id, target, epoch) "
               "SELECT run_id, item_id, target, epoch FROM answers WHERE text IS NOT NULL "
               "ORDER BY rowid")
    op.execute("INSERT INTO answer_search_fts (rowid, body) SELECT s.id, "
               "a.text || char(10, 10) FROM answer_search AS s JOIN answers AS a "
               "ON a.run_id = s.run_id AND a.item_id = s.item_id AND a.target = s.target "
               "AND a.epoch = s.epoch")


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        op.execute("DROP TRIGGER items_fields ON items")
        op.execute("DROP FUNCTION assay_item_fields()")
    else:
        for name in ("items_fields_ai", "items_fields_ad", "items_fields_au",
                     "items_search_ai", "items_search_ad", "items_search_au",
                     "answers_search_ai", "answers_search_ad", "answers_search_au",
                     "results_search_ai", "results_search_ad", "results_search_au"):
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
        for name in ("item_search_terms", "item_search_fts", "result_search_terms",
                     "result_search_fts", "item_search", "answer_search_terms",
                     "answer_search_fts", "answer_search"):
            op.execute(f"DROP TABLE IF EXISTS {name}")
        op.execute("DELETE FROM sqlite_stat1 WHERE tbl IN ('results', 'items', 'item_fields', "
                   "'answers')")
    op.drop_table("item_fields")
    op.drop_index("ix_results_run_rows", table_name="results")
    op.drop_index("ix_items_dataset_label", table_name="items")
    op.create_index("ix_items_dataset_label", "items", ["dataset_id", "label"])
