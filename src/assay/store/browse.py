"""What the UI's results table and compare matrix read: one page of a run's results with text
search, sort and filters on any item field, and one evaluator's scores of several runs side by
side. Read functions only; each is a few bounded queries, so a run of 100,000 items stays fast."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Engine, Select, Text, and_, cast, exists, func, or_, select

from . import search
from .results import filtered_ids, item_key, result_filters
from .schema import answers, items, results, runs

# sort name → (column expression key, descending); the result's id breaks ties (insertion order)
SORTS = ("", "item", "score", "-score", "status", "evaluator", "latency", "-latency")


def browse_page(engine: Engine, run_id: str, dataset_id: str, *, evaluator: str | None = None,
                status: str | None = None, label: str | None = None,
                score: float | None = None, no_score: bool = False, text: str | None = None,
                where: Mapping[str, str] | None = None, outcome: str | None = None,
                sort: str = "", limit: int = 50,
                offset: int = 0) -> tuple[int, list[dict[str, Any]]]:
    """(how many results match, one page of them). Filters: evaluator, status, the item's
    label, score (or none), `text` (a substring of the item's fields — its question and the
    rest —, the answer or the reason),
    `where` (item field name → value, compared as text), `outcome` (conversations that ended
    so: their answer's outcome column). Each row: item_id, target, epoch, evaluator, score,
    status, reason, label, question, answer, latency_s, outcome (None: not a conversation),
    and the judge's raw reply and parse rule (`reply`, `how`: None for code evaluators).

    Each filter goes through an index (store/search.py, migration 0011): the label's and the
    fields' items, the score, the text indexes' candidates; no filter reads a result's row
    (its evidence is inline) except to check a text search's candidates."""
    def filters(each: bool) -> list[Any]:
        """The conditions: the label's and the fields' items read at once (a count), or
        with `each` checked row by row (a page, which stops at its end)."""
        conds = result_filters(run_id, dataset_id, evaluator=evaluator, status=status,
                               label=label, score=score, no_score=no_score, each=each)
        own = bool(evaluator or status or no_score or score is not None)
        for name, value in (where or {}).items():
            indexed = search.field_filter(dataset_id, name, value, item_key(own),
                                          each=each) if fields_indexed else None
            # a name or value too long for item_fields: from the JSON, as before
            conds.append(indexed if indexed is not None else
                         cast(items.c.fields[name].as_string(), Text) == value)
        if outcome:  # the sample's answer row, by its primary key (an alias: the page's
            # query may join answers itself)
            a = answers.alias("sample_answer")
            conds.append(exists(select(a.c.run_id).where(
                a.c.run_id == results.c.run_id, a.c.item_id == results.c.item_id,
                a.c.target == results.c.target, a.c.epoch == results.c.epoch,
                a.c.outcome == outcome)))
        if text:
            conds.append(or_(results.c.reason.contains(text, autoescape=True),
                             answers.c.text.contains(text, autoescape=True),
                             # the item's whole stored text (question and every other field):
                             # a plain LIKE, cheaper than extracting one JSON field per row
                             cast(items.c.fields, Text).contains(text, autoescape=True)))
        return conds

    on_item = and_(items.c.dataset_id == dataset_id, items.c.item_id == results.c.item_id)
    on_answer = and_(answers.c.run_id == results.c.run_id,
                     answers.c.item_id == results.c.item_id,
                     answers.c.target == results.c.target, answers.c.epoch == results.c.epoch)
    question = func.coalesce(items.c.fields["prompt"].as_string(),
                             items.c.fields["question"].as_string())
    # the indexes first brought up to the rows written since they were last read (SQLite;
    # False: none here, or they cannot be written now — the filters scan, as before)
    fields_indexed = bool(where) and search.catch_up_fields(engine, dataset_id, list(where or {}))
    text_indexed = search.answerable(text or "") and search.catch_up(engine, search.TEXT_MARKS)
    need_item = bool(text) or sort == "item" or any(
        not fields_indexed or search.field_filter(dataset_id, n, v, results.c.item_id) is None
        for n, v in (where or {}).items())
    need_answer = bool(text) or sort in ("latency", "-latency")
    orders: dict[str, list[Any]] = {
        "item": [results.c.item_id], "score": [results.c.score.asc().nulls_first()],
        "-score": [results.c.score.desc().nulls_last()], "status": [results.c.status],
        "evaluator": [results.c.evaluator],
        "latency": [answers.c.latency_s.asc().nulls_last()],
        "-latency": [answers.c.latency_s.desc().nulls_last()]}
    order = orders.get(sort, [])
    with engine.connect() as conn:
        found = search.text_candidates(run_id, dataset_id, text or "") if text_indexed \
            else None

        def base(each: bool) -> Select[Any]:
            if found is not None:
                # the text indexes' candidates (every result that matches and maybe a few
                # more) drive the query, each checked by the conditions
                cand = found.subquery()
                q = select(results.c.id).select_from(
                    cand.join(results, results.c.id == cand.c.id)).where(*filters(each))
            else:  # no search, or one the indexes cannot answer: the run's results
                q = filtered_ids(filters(each))
            if need_item:
                q = q.outerjoin(items, on_item)
            return q.outerjoin(answers, on_answer) if need_answer else q

        if text:  # one pass for the count and the page: the candidates are read once
            every = [r[0] for r in conn.execute(base(True).order_by(*order, results.c.id))]
            total, ids = len(every), every[offset:offset + limit]
        else:
            total = conn.execute(select(func.count()).select_from(base(False).subquery())
                                 ).scalar_one()
            ids = [r[0] for r in conn.execute(base(True).order_by(*order, results.c.id)
                                              .limit(limit).offset(offset))] if total else []
        if not ids:
            return int(total), []
        rows = conn.execute(
            select(results.c.id, results.c.item_id, results.c.target, results.c.epoch,
                   results.c.evaluator, results.c.score, results.c.status, results.c.reason,
                   items.c.label.label("label"), question.label("question"),
                   answers.c.text.label("answer"), answers.c.latency_s, answers.c.outcome,
                   results.c.evidence["reply"].as_string().label("reply"),
                   results.c.evidence[("parsed", "how")].as_string().label("how"))
            .select_from(results.join(items, on_item, isouter=True)
                         .join(answers, on_answer, isouter=True))
            .where(results.c.id.in_(ids))).mappings().all()
    place = {i: n for n, i in enumerate(ids)}
    return int(total), sorted((dict(r) for r in rows), key=lambda r: place[r["id"]])


def field_names(engine: Engine, dataset_id: str) -> list[str]:
    """The field names of a dataset's first item (what a filter on item fields can name)."""
    with engine.connect() as conn:
        row = conn.execute(select(items.c.fields).where(items.c.dataset_id == dataset_id)
                           .limit(1)).first()
    return sorted(row[0]) if row and isinstance(row[0], dict) else []


def matrix_keys(engine: Engine, run_ids: Sequence[str], evaluator: str, *,
                changed_only: bool = False) -> list[tuple[str, str, int]]:
    """The samples (item, target, epoch) one evaluator scored in any of several runs, sorted;
    `changed_only`: those whose score differs between the runs or that some run lacks. One
    GROUP BY over the runs' results (no evidence read)."""
    ids = list(run_ids)
    key = (results.c.item_id, results.c.target, results.c.epoch)
    q = select(*key).where(results.c.run_id.in_(ids), results.c.evaluator == evaluator) \
        .group_by(*key)
    if changed_only:
        q = q.having(or_(
            func.max(results.c.score) != func.min(results.c.score), func.count() < len(ids),
            and_(func.count(results.c.score) > 0,
                 func.count(results.c.score) < func.count())))
    with engine.connect() as conn:
        return [(r[0], r[1], r[2]) for r in conn.execute(q.order_by(*key))]


def matrix_cells(engine: Engine, run_ids: Sequence[str], evaluator: str,
                 samples: Sequence[tuple[str, str, int]]) -> list[Any]:
    """run_id, item_id, target, epoch, score, status of some samples' results in the runs."""
    wanted = set(samples)
    q = select(results.c.run_id, results.c.item_id, results.c.target, results.c.epoch,
               results.c.score, results.c.status).where(
        results.c.run_id.in_(list(run_ids)), results.c.evaluator == evaluator,
        results.c.item_id.in_({s[0] for s in wanted}))
    with engine.connect() as conn:
        return [c for c in conn.execute(q) if (c[1], c[2], c[3]) in wanted]


def evaluators_of(engine: Engine, run_ids: Sequence[str]) -> list[tuple[str, str]]:
    """(run_id, evaluator) pairs that have results."""
    with engine.connect() as conn:
        return [(r[0], r[1]) for r in conn.execute(
            select(results.c.run_id, results.c.evaluator)
            .where(results.c.run_id.in_(list(run_ids))).distinct())]


def run_list(engine: Engine, limit: int = 200, text: str | None = None) -> list[dict[str, Any]]:
    """The newest runs (whose id or name contains `text`): id, kind, status, created_at,
    dataset_id, summary, and from the manifest its name, tags, targets and item count."""
    m = runs.c.manifest
    q = select(runs.c.id, runs.c.kind, runs.c.status, runs.c.created_at, runs.c.finished_at,
               runs.c.dataset_id, runs.c.summary, m["name"].as_string().label("name"),
               m["tags"].label("tags"), m["targets"].label("targets"),
               m[("dataset", "selected")].as_integer().label("items"))
    if text:
        q = q.where(or_(runs.c.id.contains(text, autoescape=True),
                        m["name"].as_string().contains(text, autoescape=True),
                        cast(m["tags"], Text).contains(text, autoescape=True)))
    with engine.connect() as conn:
        return [dict(r) for r in conn.execute(q.order_by(runs.c.created_at.desc())
                                              .limit(limit)).mappings()]


def answer_latencies(engine: Engine, run_id: str) -> list[tuple[str, float]]:
    """(target, latency in seconds) of a run's answers that have one."""
    with engine.connect() as conn:
        return [(r[0], r[1]) for r in conn.execute(
            select(answers.c.target, answers.c.latency_s).where(
                answers.c.run_id == run_id, answers.c.latency_s.is_not(None)))]
