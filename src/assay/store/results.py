"""What reports and views read of a run's results. Each function is one bounded query (or, for a
page, one connection's few), so a run of 100,000 items stays fast; the callers count, pair and
format, the store only reads."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Engine, Select, and_, case, exists, func, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.visitors import InternalTraversal

from .schema import items, results, runs

# SQLAlchemy rows: tuples whose columns are also attributes (row.item_id), for callers that count
# or pair rows themselves. Typed loosely: Row's type parameters differ between SQLAlchemy 2.0 and
# 2.1, and callers outside the store do not import SQLAlchemy.
Rows = Sequence[Any]


def aggregate_rows(engine: Engine, run_id: str, by: str | None) -> Rows:
    """Per result, in insertion order: item_id, target, epoch, evaluator, score, status, the
    model call's cost (column 6), and with `by` the item's field of that name as `group`
    (None when the item or its field is missing)."""
    cols = [results.c.item_id, results.c.target, results.c.epoch, results.c.evaluator,
            results.c.score, results.c.status, results.c.cost]
    q = select(*cols)
    if by:
        q = select(*cols, items.c.fields[by].label("group")).join(
            runs, runs.c.id == results.c.run_id).outerjoin(
            items, and_(items.c.dataset_id == runs.c.dataset_id,
                        items.c.item_id == results.c.item_id))
    q = q.where(results.c.run_id == run_id).order_by(results.c.id)
    with engine.connect() as conn:
        return conn.execute(q).all()


def status_counts(engine: Engine, run_id: str) -> Rows:
    """One GROUP BY over the run's results: per (target, evaluator, status), the count, the sum
    of scores, the sum of squares and how many scores are neither 0 nor 1."""
    nonbinary = func.sum(case((results.c.score.not_in([0.0, 1.0]), 1), else_=0))
    q = (select(results.c.target, results.c.evaluator, results.c.status, func.count(),
                func.sum(results.c.score), func.sum(results.c.score * results.c.score),
                nonbinary)
         .where(results.c.run_id == run_id)
         .group_by(results.c.target, results.c.evaluator, results.c.status))
    with engine.connect() as conn:
        return conn.execute(q).all()


def sample_scores(engine: Engine, run_id: str, item_ids: Iterable[str] | None = None,
                  evaluators: Iterable[str] | None = None) -> Rows:
    """item_id, target, epoch, evaluator, score, status of the run's results (of some items,
    of some evaluators)."""
    q = select(results.c.item_id, results.c.target, results.c.epoch, results.c.evaluator,
               results.c.score, results.c.status).where(results.c.run_id == run_id)
    if item_ids is not None:
        q = q.where(results.c.item_id.in_(item_ids))
    if evaluators is not None:
        q = q.where(results.c.evaluator.in_(list(evaluators)))
    with engine.connect() as conn:
        return conn.execute(q).all()


def reasons(engine: Engine, run_id: str, item_ids: Iterable[str], evaluators: Iterable[str],
            chunk: int = 500) -> list[dict[str, Any]]:
    """item_id, target, epoch, evaluator, reason and the model's raw reply (a judge's call's
    reply, else None) of some items' results: the words behind a few scores, without reading
    every result's evidence."""
    ids, names = sorted(set(item_ids)), list(evaluators)
    # a row stored before calls had their column (migration 0010) kept the reply in evidence
    reply = func.coalesce(results.c.call["reply"].as_string(),
                          results.c.evidence["reply"].as_string())
    cols = (results.c.item_id, results.c.target, results.c.epoch, results.c.evaluator,
            results.c.reason, reply.label("reply"))
    out: list[dict[str, Any]] = []
    with engine.connect() as conn:
        for i in range(0, len(ids), chunk):  # bounded IN lists, whatever the backend's limit
            q = select(*cols).where(results.c.run_id == run_id,
                                    results.c.evaluator.in_(names),
                                    results.c.item_id.in_(ids[i:i + chunk]))
            out.extend(dict(r) for r in conn.execute(q).mappings())
    return out


def iter_results(engine: Engine, run_id: str, batch: int = 2000
                 ) -> Iterator[Mapping[Any, Any]]:
    """Every result of a run, in insertion order, fetched `batch` rows at a time: an export of
    a large run never holds all its evidence at once."""
    with engine.connect() as conn:
        result = conn.execution_options(yield_per=batch).execute(
            select(results).where(results.c.run_id == run_id).order_by(results.c.id))
        yield from result.mappings()


def item_results(engine: Engine, run_id: str, item_id: str) -> list[dict[str, Any]]:
    """One item's results in a run, with their evidence."""
    with engine.connect() as conn:
        return [dict(r) for r in conn.execute(
            select(results).where(results.c.run_id == run_id, results.c.item_id == item_id)
            .order_by(results.c.id)).mappings().all()]


def evaluator_names(engine: Engine, run_id: str) -> list[str]:
    """The evaluators that have results in the run (unordered)."""
    with engine.connect() as conn:
        return [r[0] for r in conn.execute(
            select(results.c.evaluator).where(results.c.run_id == run_id).distinct())]


def evidence_counts(engine: Engine, run_id: str, evaluator: str, key: str
                    ) -> list[tuple[str, str | None, int]]:
    """(target, the evidence's `key` as text — None where it has none —, how many) of one
    evaluator's results in the run: one GROUP BY on the JSON field (finance-cause's `cause`)."""
    value = results.c.evidence[key].as_string()
    with engine.connect() as conn:
        return [(r[0], r[1], int(r[2])) for r in conn.execute(
            select(results.c.target, value, func.count())
            .where(results.c.run_id == run_id, results.c.evaluator == evaluator)
            .group_by(results.c.target, value))]


def result_filters(run_id: str, dataset_id: str, *, evaluator: str | None = None,
                   status: str | None = None, label: str | None = None,
                   score: float | None = None, no_score: bool = False, each: bool = False
                   ) -> list[ColumnElement[bool]]:
    """The conditions on a run's results that the results pages share: the run, evaluator,
    status, score (or none: `no_score`) and the item's label. The label's items are read
    through items' (dataset, label, item) index and their results through the (run, item, …)
    one — what a count wants —, or with `each` checked result by result as the run's
    covering index gives them in order: what a page wants, which stops at its end. No
    condition reads a result's row."""
    conds = [results.c.run_id == run_id]
    if evaluator:
        conds.append(results.c.evaluator == evaluator)
    if status:
        conds.append(results.c.status == status)
    if no_score:
        conds.append(results.c.score.is_(None))
    elif score is not None:
        conds.append(results.c.score == score)
    if label:
        found = select(items.c.item_id).where(items.c.dataset_id == dataset_id,
                                              items.c.label == label)
        conds.append(exists(found.where(items.c.item_id == results.c.item_id)) if each
                     else item_key(len(conds) > 1).in_(found))
    return conds


class Unindexed(ColumnElement[Any]):
    """A column SQLite must not look rows up by (`+col`, SQLite's way to say so; the column
    itself elsewhere)."""

    inherit_cache = True
    _traverse_internals = [  # noqa: RUF012 (SQLAlchemy's own attribute, a list)
        ("column", InternalTraversal.dp_clauseelement)]

    def __init__(self, column: ColumnElement[Any]) -> None:
        self.column = column
        self.type = column.type


@compiles(Unindexed)
def _unindexed(element: Unindexed, compiler: Any, **kw: Any) -> str:
    return str(compiler.process(element.column, **kw))


@compiles(Unindexed, "sqlite")
def _unindexed_sqlite(element: Unindexed, compiler: Any, **kw: Any) -> str:
    return "+" + str(compiler.process(element.column, **kw))


def item_key(other_filters: bool) -> ColumnElement[Any]:
    """results.item_id for an `IN (items …)` count. With a filter on the result's own columns
    as well (score, status, evaluator), SQLite must not seek each item's results through the
    (run, item, …) index, which lacks them and would read each row (its evidence inline):
    the run's covering index in order, each row's item checked against the list, is cheaper."""
    return Unindexed(results.c.item_id) if other_filters else results.c.item_id


def filtered_ids(conds: Sequence[ColumnElement[bool]]) -> Select[Any]:
    """The ids of the results meeting `conds` (result_filters and more)."""
    return select(results.c.id).where(*conds)


def results_page(engine: Engine, run_id: str, dataset_id: str, *, evaluator: str | None = None,
                 status: str | None = None, label: str | None = None,
                 score: float | None = None, no_score: bool = False, limit: int = 50,
                 offset: int = 0) -> tuple[int, list[dict[str, Any]]]:
    """(how many results match, one page of them): item_id, target, epoch, evaluator, score,
    status, reason and the item's label. Three short queries on one connection: the count, the
    page's ids (through the indexes), then those rows."""
    def base(each: bool) -> Select[Any]:
        return filtered_ids(result_filters(run_id, dataset_id, evaluator=evaluator,
                                           status=status, label=label, score=score,
                                           no_score=no_score, each=each))

    on_item = and_(items.c.dataset_id == dataset_id, items.c.item_id == results.c.item_id)
    with engine.connect() as conn:
        total = conn.execute(select(func.count()).select_from(base(False).subquery())
                             ).scalar_one()
        ids = [r[0] for r in conn.execute(base(True).order_by(results.c.id).limit(limit)
                                          .offset(offset))]
        rows = conn.execute(
            select(results.c.item_id, results.c.target, results.c.epoch,
                   results.c.evaluator, results.c.score, results.c.status,
                   results.c.reason, items.c.label.label("label"))
            .join(items, on_item, isouter=True)
            .where(results.c.id.in_(ids)).order_by(results.c.id)).mappings().all() \
            if ids else []
    return int(total), [dict(r) for r in rows]


def cause_rows(engine: Engine, run_id: str, evaluator: str) -> Rows:
    """target, status and the evidence's `cause` (None when it holds none) of one evaluator's
    results in a run: what `--by cause` counts, without reading the rest of the evidence."""
    q = (select(results.c.target, results.c.status,
                results.c.evidence["cause"].as_string().label("cause"))
         .where(results.c.run_id == run_id, results.c.evaluator == evaluator)
         .order_by(results.c.id))
    with engine.connect() as conn:
        return conn.execute(q).all()
