"""Reading and writing runs. Writes are batched executemany inserts through SQLAlchemy Core:
the ORM's per-object bookkeeping costs more than scoring an item."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import JSON, Connection, DateTime, Engine, Table, insert, select, update
from sqlalchemy import exc as sqlalchemy_exc
from sqlalchemy.types import TypeDecorator

from assay.core import secrets
from assay.core.errors import ConfigError
from assay.core.text import safe_value
from assay.core.types import Item

from . import lease
from .db import RawJSON
from .implied import implied_roots
from .reviews import check_review_score
from .schema import (
    answers,
    datasets,
    items,
    results,
    reviews,
    runs,
    spans,
    truth_snapshots,
    turn_results,
    turns,
)

_ITEM_BATCH = 5000


def now() -> datetime:
    return datetime.now(UTC)


def save_dataset(engine: Engine, *, version: str, name: str, path: str, fmt: str,
                 rows: Sequence[Item]) -> bool:
    """Store a dataset and its items once per content version; False when already stored.

    Idempotent under concurrency: the dataset row is inserted first, with ON CONFLICT DO
    NOTHING, so of several runs saving the same version at once exactly one writes the items
    (the others wait on the write lock, then find the row); no check-then-insert race."""
    with engine.begin() as conn:
        row = {"id": version, "name": name, "path": path, "format": fmt,
               "n_items": len(rows), "created_at": now()}
        if not _insert_new(conn, datasets, row):
            return False
        for start in range(0, len(rows), _ITEM_BATCH):
            _insert(conn, items, [
                {"dataset_id": version, "item_id": it.id, "line": it.line, "fields": it.fields,
                 "label": _label(it.fields.get("label"))}
                for it in rows[start:start + _ITEM_BATCH]])
    return True


def _insert_new(conn: Connection, table: Table, row: dict[str, Any]) -> bool:
    """INSERT … ON CONFLICT DO NOTHING (SQLite, PostgreSQL); whether the row was new."""
    # each dialect's own insert, imported where used: a SQLite process never loads PostgreSQL's
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects import postgresql

        stmt: Any = postgresql.insert(table).values(**row).on_conflict_do_nothing()
    else:
        from sqlalchemy.dialects import sqlite

        stmt = sqlite.insert(table).values(**row).on_conflict_do_nothing()
    key = next(iter(table.primary_key.columns))
    # RETURNING rather than rowcount: drivers disagree on the rowcount of a skipped insert
    return conn.execute(stmt.returning(key)).first() is not None


def _label(value: Any) -> str | None:
    return value[:255] if isinstance(value, str) else None


def create_run(engine: Engine, *, run_id: str, kind: str, dataset_id: str,
               manifest: dict[str, Any], dataset_ref: str | None = None) -> None:
    """A new run, owned by this process (its lease, see store/lease.py) until it finishes."""
    with engine.begin() as conn:
        conn.execute(insert(runs), [{"id": run_id, "kind": kind, "status": "running",
                                     "dataset_id": dataset_id, "created_at": now(),
                                     "manifest": manifest, "dataset_ref": dataset_ref,
                                     **lease.fields()}])


def finish_run(engine: Engine, run_id: str, status: str, summary: dict[str, Any]) -> None:
    with engine.begin() as conn:
        before = conn.execute(select(runs.c.summary).where(runs.c.id == run_id)).scalar()
        if isinstance(before, dict) and DISCARDED in before:  # paid before a retry: kept
            summary = {**summary, DISCARDED: before[DISCARDED]}
        conn.execute(update(runs).where(runs.c.id == run_id).values(
            status=status, finished_at=now(), summary=summary))
        conn.execute(update(runs).where(runs.c.id == run_id,
                                        runs.c.lease_owner == lease.owner())
                     .values(lease_owner=None, lease_until=None))


def write_batch(engine: Engine, answer_rows: Iterable[dict[str, Any]],
                result_rows: Iterable[dict[str, Any]], *, fast: bool = True) -> None:
    """One transaction per batch: a crash loses at most the batch being written."""
    a, r = _masked(list(answer_rows)), _masked(list(result_rows))
    with engine.begin() as conn:
        for table, rows in ((answers, a), (results, r)):
            _insert(conn, table, rows, fast=fast)


def _insert(conn: Connection, table: Table, rows: list[dict[str, Any]], *,
            fast: bool = True) -> None:
    if not rows:
        return
    first = rows[0].keys()
    if any(map(first.__ne__, map(dict.keys, rows))):  # one shape (the common case), in C
        # rows of several shapes (a narrow recorded answer beside a full one): one insert
        # per shape
        shapes: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for row in rows:
            shapes.setdefault(tuple(sorted(row)), []).append(row)
        for group in shapes.values():
            _insert(conn, table, group, fast=fast)
        return
    if fast and conn.dialect.name == "sqlite":
        _executemany_sqlite(conn, table, rows)
    else:
        conn.execute(insert(table), [_datetimes(table, row) for row in rows])


def _datetimes(table: Table, row: dict[str, Any]) -> dict[str, Any]:
    """Times may be given as wall-clock seconds (the trace keeps floats while it runs: a
    datetime per span costs more than the span); the Core path wants datetimes."""
    floats = [k for k, v in row.items() if isinstance(v, float)
              and isinstance(table.c[k].type, DateTime)]
    if not floats:
        return row
    return {**row, **{k: datetime.fromtimestamp(row[k], UTC) for k in floats}}


def _converted(values: list[Any], convert: Callable[[Any], Any]) -> list[Any]:
    """A column converted value by value; a datetime shared by many rows (a batch's stamp) is
    converted once."""
    memo: dict[int, Any] = {}
    out: list[Any] = []
    for v in values:
        if isinstance(v, datetime):
            key = id(v)
            if key not in memo:
                memo[key] = convert(v)
            out.append(memo[key])
        else:
            out.append(convert(v))
    return out


_SECONDS: dict[int, str] = {}


def sqlite_time(v: datetime | float | str | None) -> str | None:
    """A time as SQLite's DATETIME text; wall-clock seconds are formatted without building a
    datetime (the text of each second is remembered: a batch spans a few seconds)."""
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, datetime):
        return v.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")
    whole = int(v)
    micro = round((v - whole) * 1_000_000)
    if micro == 1_000_000:
        whole, micro = whole + 1, 0
    text = _SECONDS.get(whole)
    if text is None:
        if len(_SECONDS) > 4096:
            _SECONDS.clear()
        text = _SECONDS[whole] = datetime.fromtimestamp(whole, UTC).strftime(
            "%Y-%m-%d %H:%M:%S")
    return f"{text}.{micro:06d}"


def _executemany_sqlite(conn: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    """The same insert as `conn.execute(insert(table), rows)`, for SQLite, without SQLAlchemy's
    per-row parameter handling, which cost as much as SQLite's own insert (bench/score_bench.py).

    Values go through the very bind processors SQLAlchemy would use (JSON encoding, DateTime
    formatting), applied once per column; a value repeated across the batch (the batch's
    timestamp) is converted once. Other dialects use the Core path: on PostgreSQL it also renders
    casts (JSONB) this shortcut would not."""
    columns = tuple(rows[0])
    sql, plan = _insert_plan(conn, table, columns)
    converted: list[list[Any]] = []
    for col, (kind, proc) in zip(columns, plan, strict=True):
        values = [row[col] for row in rows]
        if kind == _TIME:
            # SQLite's DATETIME text, as its bind processor writes it, at a tenth of the cost
            # (a span row has two): "YYYY-MM-DD HH:MM:SS.ffffff", the zone dropped (UTC).
            values = _converted(values, sqlite_time)
        elif kind == _JSON and proc is not None:
            # text encoded once already (RawJSON) is stored as it is: the JSON processor
            # would hand it back unchanged, at two Python calls a value
            values = [v if type(v) is RawJSON else proc(v) for v in values]
        elif proc is not None:
            values = _converted(values, proc)
        converted.append(values)
    conn.exec_driver_sql(sql, list(zip(*converted, strict=True)))


_PLAIN, _TIME, _JSON = 0, 1, 2
Plan = tuple[str, list[tuple[int, Callable[[Any], Any] | None]]]
# The statement and the bind processors of a table's columns, looked up once for a dialect (a
# batch is often a few rows: `assay run` flushes every half second, and the lookups of the
# answers' and results' ~50 columns cost more than the rows), by the dialect object itself,
# since its processors follow its engine's settings (the JSON serializer)
_PLANS: weakref.WeakKeyDictionary[Any, dict[tuple[Table, tuple[str, ...]], Plan]] = \
    weakref.WeakKeyDictionary()


def _insert_plan(conn: Connection, table: Table, columns: tuple[str, ...]) -> Plan:
    dialect = conn.dialect
    plans = _PLANS.get(dialect)
    if plans is None:
        plans = _PLANS[dialect] = {}
    plan = plans.get((table, columns))
    if plan is None:
        steps: list[tuple[int, Callable[[Any], Any] | None]] = []
        for c in columns:
            impl = table.c[c].type.dialect_impl(dialect)
            proc = impl.bind_processor(dialect)
            # the type a decorator (schema.Json) stands for on this dialect
            kind = impl.impl_instance if isinstance(impl, TypeDecorator) else impl
            steps.append((_PLAIN if proc is None else _TIME if isinstance(kind, DateTime)
                          else _JSON if isinstance(kind, JSON) else _PLAIN, proc))
        sql = (f"INSERT INTO {table.name} ({', '.join(columns)}) "
               f"VALUES ({', '.join('?' for _ in columns)})")
        plan = plans[(table, columns)] = (sql, steps)
    return plan


def get_run(engine: Engine, run_id: str) -> dict[str, Any] | None:
    with engine.connect() as conn:
        row = conn.execute(select(runs).where(runs.c.id == run_id)).mappings().first()
        return dict(row) if row else None


def store_name(engine: Engine) -> str:
    """The store as a user would name it in `--db` (a SQLite file's path; a server's URL
    without its password), so "no run X" says where it looked."""
    url = engine.url
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        return str(url.database)
    return url.render_as_string(hide_password=True)


def require_run(engine: Engine, run_id: str) -> dict[str, Any]:
    """The run, or a ConfigError naming the store looked in: a run made with another `--db`
    (or ASSAY_DB) is the usual reason."""
    row = get_run(engine, run_id)
    if row is None:
        raise ConfigError(f"no run '{run_id}' in the store {store_name(engine)} (see assay "
                          "runs; another store is chosen with --db or ASSAY_DB)")
    return row


def list_results(engine: Engine, run_id: str) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        rows = conn.execute(select(results).where(results.c.run_id == run_id)
                            .order_by(results.c.id)).mappings().all()
        return [dict(r) for r in rows]


def write_rows(engine: Engine, rows: dict[str, list[dict[str, Any]]]) -> None:
    """Rows for several tables in one transaction (the runner's group commit). `items` (an
    online run's traces) go first, in the same transaction as their samples' rows: a kill
    leaves a trace stored whole or not at all."""
    tables = {"answers": answers, "results": results, "spans": spans,
              "truth_snapshots": truth_snapshots, "turns": turns, "turn_results": turn_results}

    def write(batch: dict[str, list[dict[str, Any]]]) -> None:
        with engine.begin() as conn:
            if batch.get("items"):  # the agent's data, as it came: not masked
                _insert(conn, items, batch["items"])
            for name in ("turns", "turn_results", "answers", "truth_snapshots", "results",
                         "spans"):
                if batch.get(name):
                    _insert(conn, tables[name], _masked(batch[name]))

    written_safely(write, rows)


# What the store says of rows, not of itself: a key it already holds, a value its column
# cannot take (after written_safely's text repair). The store failing — locked, gone, full —
# is an OperationalError, not among them.
ROWS_REFUSED = (sqlalchemy_exc.IntegrityError, sqlalchemy_exc.DataError)


def refusal_message(exc: Exception) -> str:
    """The driver's own words, first line (`UNIQUE constraint failed: items.dataset_id, …`)."""
    original = getattr(exc, "orig", None) or exc
    return (str(original).strip().splitlines() or [type(original).__name__])[0][:200]


# What a driver raises on text no boundary made safe: SQLite and orjson on an unpaired surrogate
# (UnicodeEncodeError, TypeError); PostgreSQL on a NUL, in text or as JSONB's \u0000 (DataError)
_UNSAFE_TEXT = (UnicodeEncodeError, TypeError, sqlalchemy_exc.DataError)


def written_safely(write: Callable[[Any], None], rows: Any) -> None:
    """`write(rows)`; when the database refuses their text, written again with it replaced, as
    at the boundaries (core/text.py): text that slipped past them must not stop a run or a
    watch. Anything else (or rows with nothing to replace) raises as it was."""
    try:
        write(rows)
    except _UNSAFE_TEXT:
        safe, changed = _safe_rows(rows)
        if not changed:
            raise
        write(safe)


def _safe_rows(value: Any) -> tuple[Any, bool]:
    """`safe_value`, and JSON text encoded already (RawJSON), where a NUL is the escape
    \\u0000 that PostgreSQL's JSONB refuses, decoded, made safe and encoded again."""
    if isinstance(value, RawJSON):
        if "\\u0000" not in value:  # orjson wrote it: no surrogate, a NUL only escaped
            return value, False
        decoded, changed = safe_value(orjson.loads(str(value)))  # (no str subclass)
        return (RawJSON(orjson.dumps(decoded).decode()), True) if changed else (value, False)
    if isinstance(value, dict):
        pairs = [(safe_value(k)[0] if isinstance(k, str) else k, _safe_rows(v))
                 for k, v in value.items()]
        changed = any(c for _, (_, c) in pairs) or any(
            isinstance(k, str) and safe_value(k)[1] for k in value)
        return ({k: v for k, (v, _) in pairs}, True) if changed else (value, False)
    if isinstance(value, list):
        seq = [_safe_rows(v) for v in value]
        return ([v for v, _ in seq], True) if any(c for _, c in seq) else (value, False)
    return safe_value(value)


def _masked(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The last guard before a run's rows are written: any secret Assay sent (see
    assay.core.secrets) that slipped past the boundaries is masked. Free when none was sent."""
    if not secrets.active():
        return rows
    return [{k: _mask(v) for k, v in row.items()} for row in rows]


def _mask(value: Any) -> Any:
    if isinstance(value, RawJSON):  # already JSON text: masked as text, kept as JSON
        masked = secrets.mask(value)
        return value if masked == value else RawJSON(masked)
    return secrets.mask_value(value)


def merge_summary(engine: Engine, run_id: str, extra: dict[str, Any]) -> None:
    with engine.begin() as conn:
        current = conn.execute(select(runs.c.summary).where(runs.c.id == run_id)).scalar()
        conn.execute(update(runs).where(runs.c.id == run_id).values(
            summary={**(current or {}), **extra}))


def merge_overrides(engine: Engine, run_id: str, extra: dict[str, Any]) -> None:
    """Flags a resume or retry applied (`--timeout`), kept with the start's in the manifest:
    the next resume and a replay use what the run's latest scores were made with."""
    with engine.begin() as conn:
        manifest = conn.execute(select(runs.c.manifest).where(runs.c.id == run_id)).scalar()
        manifest = dict(manifest or {})
        manifest["overrides"] = {**(manifest.get("overrides") or {}), **extra}
        conn.execute(update(runs).where(runs.c.id == run_id).values(manifest=manifest))


def set_run_status(engine: Engine, run_id: str, status: str) -> None:
    with engine.begin() as conn:
        conn.execute(update(runs).where(runs.c.id == run_id).values(status=status,
                                                                     finished_at=None))


def _run_rows(engine: Engine, table: Table, run_id: str, item_id: str | None,
              order_by: Any = None) -> list[dict[str, Any]]:
    """A run's rows of one table (answers, spans, truth snapshots), or one item's."""
    q = select(table).where(table.c.run_id == run_id)
    if item_id is not None:
        q = q.where(table.c.item_id == item_id)
    if order_by is not None:
        q = q.order_by(order_by)
    with engine.connect() as conn:
        return [dict(r) for r in conn.execute(q).mappings().all()]


def list_answers(engine: Engine, run_id: str, item_id: str | None = None
                 ) -> list[dict[str, Any]]:
    return _run_rows(engine, answers, run_id, item_id)


def list_spans(engine: Engine, run_id: str, item_id: str | None = None
               ) -> list[dict[str, Any]]:
    """The run's spans (or one item's), with the root spans its score samples imply
    (store/implied.py), in time order."""
    stored = _run_rows(engine, spans, run_id, item_id, spans.c.start_at)
    made = implied_roots(engine, run_id, item_id)
    if not made:
        return stored
    return sorted(stored + made, key=lambda s: _time_key(s["start_at"]))


def _time_key(t: datetime) -> datetime:
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def list_runs(engine: Engine, limit: int = 50) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        rows = conn.execute(select(runs.c.id, runs.c.kind, runs.c.status, runs.c.created_at,
                                   runs.c.finished_at, runs.c.dataset_id, runs.c.dataset_ref)
                            .order_by(runs.c.created_at.desc()).limit(limit)).mappings().all()
        return [dict(r) for r in rows]


def get_items(engine: Engine, dataset_id: str, item_ids: Iterable[str] | None = None
              ) -> dict[str, Item]:
    q = select(items).where(items.c.dataset_id == dataset_id)
    if item_ids is not None:
        q = q.where(items.c.item_id.in_(list(item_ids)))
    with engine.connect() as conn:
        return {r.item_id: Item(r.item_id, r.fields, dataset_id, r.line)
                for r in conn.execute(q)}


def delete_errors(engine: Engine, run_id: str) -> tuple[int, int]:
    """For `assay retry`: drop what asking again could fix, so a resume does that work again —
    failed answers and empty replies (with their results), aborted conversations (with their
    turns), failed results, and judgments left unscored by an empty judge reply. Returns
    (answers, results) deleted."""
    from sqlalchemy import and_, delete, func, or_, tuple_

    spent = 0.0  # what the dropped rows cost: still spent, kept in the run's summary

    def cost(table: Table, *where: Any) -> float:
        return float(conn.execute(select(func.coalesce(func.sum(table.c.cost), 0.0))
                                  .where(*where)).scalar() or 0.0)

    with engine.begin() as conn:
        failed = conn.execute(select(answers.c.item_id, answers.c.target, answers.c.epoch)
                              .where(answers.c.run_id == run_id,
                                     or_(answers.c.error.is_not(None), answers.c.text == "",
                                         answers.c.extras["empty_reply"].as_boolean()
                                         .is_(True),
                                         answers.c.outcome == "aborted"))).all()
        n_results = 0
        for chunk in range(0, len(failed), 500):
            keys = [tuple(k) for k in failed[chunk:chunk + 500]]
            # its answer's, its results' and its simulated users' costs (a conversation's
            # answer and results hold its turns' target and judge costs summed)
            spent += cost(answers, answers.c.run_id == run_id, tuple_(
                answers.c.item_id, answers.c.target, answers.c.epoch).in_(keys))
            spent += cost(results, results.c.run_id == run_id, tuple_(
                results.c.item_id, results.c.target, results.c.epoch).in_(keys))
            spent += cost(turns, turns.c.run_id == run_id, turns.c.source == "simulator",
                          tuple_(turns.c.item_id, turns.c.target, turns.c.epoch).in_(keys))
            # an aborted conversation is played again from its first turn
            for table in (turn_results, turns):
                conn.execute(delete(table).where(
                    table.c.run_id == run_id,
                    tuple_(table.c.item_id, table.c.target, table.c.epoch).in_(keys)))
            n_results += conn.execute(delete(results).where(
                results.c.run_id == run_id,
                tuple_(results.c.item_id, results.c.target, results.c.epoch).in_(keys))
            ).rowcount
            conn.execute(delete(answers).where(
                answers.c.run_id == run_id,
                tuple_(answers.c.item_id, answers.c.target, answers.c.epoch).in_(keys)))
        retried = and_(results.c.run_id == run_id, or_(
            results.c.status == "error",
            and_(results.c.status == "unscored", results.c.reason == EMPTY_JUDGE_REPLY)))
        spent += cost(results, retried)
        n_results += conn.execute(delete(results).where(retried)).rowcount
        # a conversation's turn whose judgment failed: judged again on resume (its
        # conversation's score, which took the turn's status, is among the results above)
        conn.execute(delete(turn_results).where(and_(
            turn_results.c.run_id == run_id,
            or_(turn_results.c.status == "error",
                and_(turn_results.c.status == "unscored",
                     turn_results.c.reason == EMPTY_JUDGE_REPLY)))))
        if spent:  # the cost sheet adds it (store/costs.py): a run's total never goes down
            row = conn.execute(select(runs.c.summary).where(runs.c.id == run_id)).scalar()
            summary = dict(row or {})
            summary[DISCARDED] = round(float(summary.get(DISCARDED) or 0.0) + spent, 8)
            conn.execute(update(runs).where(runs.c.id == run_id).values(summary=summary))
    return len(failed), n_results


# runs.summary key: what the rows `assay retry` dropped had cost (their requests were paid)
DISCARDED = "discarded_cost"


# The reason the judge parser gives an empty reply (evaluators/judge/parse.py): worth a retry.
EMPTY_JUDGE_REPLY = "empty reply"


def result_scores(engine: Engine, run_id: str) -> list[tuple[Any, ...]]:
    """(item_id, target, evaluator, status, score, cost) per result, without the evidence."""
    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(
            select(results.c.item_id, results.c.target, results.c.evaluator, results.c.status,
                   results.c.score, results.c.cost).where(results.c.run_id == run_id)
            .order_by(results.c.id))]


def list_truth(engine: Engine, run_id: str, item_id: str | None = None
               ) -> list[dict[str, Any]]:
    return _run_rows(engine, truth_snapshots, run_id, item_id)


def add_review(engine: Engine, *, run_id: str, item_id: str, evaluator: str,
               score: float | None, reason: str, reviewer: str, target: str | None = None,
               epoch: int = 0) -> dict[str, Any]:
    """Correct one result; the raw score is kept. The result must exist (and, when the run has
    several targets, the target must be named), and the score be null or a finite number in
    the evaluator's full score (store/reviews.py)."""
    from assay.core.errors import ConfigError

    with engine.begin() as conn:
        q = select(results.c.target, results.c.epoch, results.c.score,
                   results.c.evidence, results.c.status).where(
            results.c.run_id == run_id, results.c.item_id == item_id,
            results.c.evaluator == evaluator, results.c.epoch == epoch)
        if target is not None:
            q = q.where(results.c.target == target)
        found = conn.execute(q).all()
        if not found:
            raise ConfigError(f"run '{run_id}' has no result of {evaluator} for item "
                              f"'{item_id}'" + (f" and target '{target}'" if target else ""))
        if len(found) > 1:
            raise ConfigError(f"item '{item_id}' has results from several targets "
                              f"({', '.join(sorted(r.target for r in found))}): name one")
        if found[0].status == "skipped":  # nothing was judged: nothing to correct
            raise ConfigError(f"{evaluator} does not apply to item '{item_id}' in run "
                              f"'{run_id}' (skipped): there is no score to review")
        check_review_score(evaluator, score, found[0].evidence)
        row = {"run_id": run_id, "item_id": item_id, "target": found[0].target,
               "epoch": found[0].epoch, "evaluator": evaluator, "score": score,
               "reason": reason, "reviewer": reviewer, "created_at": now()}
        conn.execute(insert(reviews), [row])
    return {**row, "raw_score": found[0].score}


def latest_reviews(engine: Engine, run_id: str) -> dict[tuple[str, str, int, str],
                                                        dict[str, Any]]:
    """(item, target, epoch, evaluator) → its newest review."""
    with engine.connect() as conn:
        rows = conn.execute(select(reviews).where(reviews.c.run_id == run_id)
                            .order_by(reviews.c.id)).mappings().all()
    return {(r["item_id"], r["target"], r["epoch"], r["evaluator"]): dict(r) for r in rows}


def result_keys(engine: Engine, run_id: str) -> list[tuple[str, str, int, str]]:
    """(item, target, epoch, evaluator) of every stored result — what a resume skips."""
    with engine.connect() as conn:
        return [(r[0], r[1], r[2], r[3]) for r in conn.execute(
            select(results.c.item_id, results.c.target, results.c.epoch, results.c.evaluator)
            .where(results.c.run_id == run_id))]
