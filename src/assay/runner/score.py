"""`assay score`: evaluate answers that already exist (no target calls).

Results are written in batches, each its own transaction, and the JSONL output is flushed with
them, so an interrupted run keeps everything up to the last batch and says so. Code evaluators
run inline; model judges (evaluators with `aevaluate`) run concurrently, a chunk of items at a
time, bounded by each endpoint's adaptive limiter, and each chunk is committed as it completes.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson
from sqlalchemy import Engine

from assay.core.errors import AssayError, ConfigError, DataError
from assay.core.types import Answer, Item, Score, ScoreStatus
from assay.datasets.loader import Dataset
from assay.evaluators.base import Evaluator
from assay.evaluators.jury import combine
from assay.report.summary import Summary
from assay.store import repo
from assay.store.db import RawJSON
from assay.store.reviews import stored_evidence

from .gc_tuning import long_lived_data_frozen
from .manifest import build_manifest
from .stop import deferred_interrupt

BATCH = 2000  # items per transaction for code evaluators
JUDGE_FLUSH = 256  # judged items per transaction (or every JUDGE_FLUSH_S seconds)
JUDGE_FLUSH_S = 1.0
JUDGE_MIN_WORKERS = 16
Progress = Callable[[int], None]


@dataclass
class ScoreRun:
    run_id: str
    dataset: Dataset
    evaluators: list[str]
    status: str = "running"
    done: int = 0
    records: list[dict[str, Any]] = field(default_factory=list)  # kept only when asked
    summary: Summary = field(default_factory=Summary)


def _missing(evaluator: Evaluator, what: str) -> Score:
    return Score(None, ScoreStatus.ERROR, what, evaluator.name, evaluator.version)


def _precheck(ev: Evaluator, item: Item, answer: Answer | None) -> Score | None:
    if answer is None:
        return _missing(ev, "no answer for this item")
    lacking = [name for name in ev.requires if name not in item.fields]
    if lacking:
        return _missing(ev, f"item has no field {', '.join(repr(n) for n in lacking)} "
                        f"(line {item.line})")
    return None


def _evaluate(ev: Evaluator, item: Item, answer: Answer | None) -> Score:
    early = _precheck(ev, item, answer)
    if early is not None:
        return early
    assert answer is not None  # _precheck answered for a missing answer
    try:
        return ev.evaluate(item, answer)
    except Exception as exc:  # an evaluator bug must cost one item, not the run
        return _missing(ev, f"evaluator failed: {type(exc).__name__}: {exc}")


async def _sync(ev: Evaluator, item: Item, answer: Answer | None) -> Score:
    return _evaluate(ev, item, answer)


async def _aevaluate(ev: Any, item: Item, answer: Answer | None) -> Score:
    early = _precheck(ev, item, answer)
    if early is not None:
        return early
    assert answer is not None  # _precheck answered for a missing answer
    try:
        score: Score = await ev.aevaluate(item, answer)
        return score
    except AssayError:
        raise
    except Exception as exc:
        return _missing(ev, f"evaluator failed: {type(exc).__name__}: {exc}")


def _workers(evaluators: Sequence[Evaluator]) -> int:
    """Items in flight when models judge: twice the largest endpoint concurrency, so a free
    request slot always has an item ready; the endpoints' limiters bound the actual calls."""
    limits = [getattr(getattr(ev, "client", None), "cfg", None) for ev in evaluators]
    top = max((c.max_concurrency for c in limits if c is not None), default=8)
    return max(JUDGE_MIN_WORKERS, 2 * top)


def _validate(dataset: Dataset, evaluators: Sequence[Evaluator],
              answers: Callable[[Item], Answer | None]) -> None:
    if not evaluators:
        raise ConfigError("no evaluator given")
    names = [ev.name for ev in evaluators]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ConfigError(f"evaluator given more than once: {', '.join(twice)}")
    for ev in evaluators:
        for name in ev.requires:
            # Absent from every item is a mapping mistake: stop with one line. Absent from some
            # (a mixed T1/T2 file) is per item: those items get status `error` saying why.
            if dataset.items and all(name not in it.fields for it in dataset.items):
                first = dataset.items[0]
                raise DataError(f"missing required field (needed by {ev.name}; map a column "
                                f"with --field {name}=COLUMN)", path=dataset.path,
                                line=first.line, field=name)
        messages = getattr(ev, "messages", None)
        if messages is None:
            continue
        # A judge's template must be fillable for every item before any model call is made.
        for item in dataset.items:
            answer = answers(item)
            if answer is not None and _precheck(ev, item, answer) is None:
                try:
                    messages(item, answer)
                except ConfigError as exc:
                    raise ConfigError(f"{dataset.path}: {exc}") from None


def score_dataset(engine: Engine, dataset: Dataset, evaluators: Sequence[Evaluator],
                  answers: Callable[[Item], Answer | None], **kwargs: Any) -> ScoreRun:
    """Synchronous entry for code evaluators (and tests); see `ascore_dataset`."""
    return asyncio.run(ascore_dataset(engine, dataset, evaluators, answers, **kwargs))


async def ascore_dataset(engine: Engine, dataset: Dataset, evaluators: Sequence[Evaluator],
                         answers: Callable[[Item], Answer | None], *, out: Path | None = None,
                         keep_records: bool = False, progress: Progress | None = None,
                         answer_source: str = "field:response", group_by: str = "label",
                         manifest_extra: dict[str, Any] | None = None,
                         jury: str | None = None) -> ScoreRun:
    _validate(dataset, evaluators, answers)
    judged = any(hasattr(ev, "aevaluate") for ev in evaluators)
    judges = [ev.name for ev in evaluators if hasattr(ev, "aevaluate")]
    if jury is not None and len(judges) < 2:
        raise ConfigError(f"--jury {jury} needs two or more model judges "
                          f"(have {', '.join(judges) or 'none'})")
    sink: IO[bytes] | None = None
    if out is not None:
        # Opened before the run is recorded, so a bad path stops here with nothing half-done.
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            sink = out.open("wb")
        except OSError as exc:
            raise ConfigError(f"cannot write --out {out}: {exc.strerror or exc}") from None
    run_id = "s-" + uuid.uuid4().hex[:12]
    manifest = build_manifest(
        kind="score", dataset={"path": dataset.path, "version": dataset.version,
                               "items": len(dataset.items)},
        evaluators=[{"name": ev.name, "version": ev.version} for ev in evaluators],
        answers=answer_source, jury={"method": jury, "members": judges} if jury else None,
        **(manifest_extra or {}),
    )
    try:
        repo.save_dataset(engine, version=dataset.version, name=dataset.name,
                          path=dataset.path, fmt=dataset.format, rows=dataset.items)
        repo.create_run(engine, run_id=run_id, kind="score", dataset_id=dataset.version,
                        manifest=manifest)
    except BaseException:
        if sink is not None:
            sink.close()
        raise
    run = ScoreRun(run_id, dataset, [ev.name for ev in evaluators])
    answer_rows: list[dict[str, Any]] = []
    result_rows: list[dict[str, Any]] = []
    lines: list[bytes] = []
    counts: dict[str, int] = {}
    stamp = repo.now()

    def flush() -> None:
        repo.write_batch(engine, answer_rows, result_rows)
        if sink is not None:
            sink.write(b"".join(lines))
            sink.flush()
        run.done += len(answer_rows)
        if progress is not None:
            progress(len(answer_rows))
        answer_rows.clear()
        result_rows.clear()
        lines.clear()

    def record(item: Item, answer: Answer | None, scores: list[Score]) -> None:
        answer_rows.append({"run_id": run_id, "item_id": item.id, "target": "recorded",
                            "text": answer.text if answer else None,
                            "error": None if answer else "no answer"})
        for score in scores:
            rec = score.as_record(item.id)
            status = rec["status"]
            counts[status] = counts.get(status, 0) + 1
            cost = score.evidence.get("cost") if score.evidence else None
            run.summary.add(score.evaluator, item.get(group_by), status, score.value, cost)
            # Evidence is encoded once and the bytes serve both the store and the JSONL.
            evidence = orjson.dumps(stored_evidence(score))
            result_rows.append({
                "run_id": run_id, "item_id": item.id, "evaluator": score.evaluator,
                "evaluator_version": score.evaluator_version, "score": score.value,
                "status": status, "reason": score.reason,
                "evidence": RawJSON(evidence.decode()), "created_at": stamp})
            if keep_records:
                run.records.append(rec)
            lines.append(orjson.dumps({**rec, "evidence": orjson.Fragment(evidence)}) + b"\n")

    async def judge_item(item: Item) -> tuple[Item, Answer | None, list[Score]]:
        answer = answers(item)
        if len(evaluators) == 1:  # the common case: no task per evaluator
            ev = evaluators[0]
            scores = [await _aevaluate(ev, item, answer) if hasattr(ev, "aevaluate")
                      else _evaluate(ev, item, answer)]
        else:
            scores = list(await asyncio.gather(*(
                _aevaluate(ev, item, answer) if hasattr(ev, "aevaluate")
                else _sync(ev, item, answer) for ev in evaluators)))
        if jury is not None:
            scores.append(combine(jury, [s for s in scores if s.evaluator in judges]))
        return item, answer, scores

    try:
        with deferred_interrupt() as stop, long_lived_data_frozen():
            if judged:
                # A pool of workers, not fixed chunks: a new item starts as soon as one ends,
                # so the endpoint never idles at a chunk's tail, at O(1) cost per item. On
                # Ctrl-C no new item starts; those in flight finish and are written.
                upcoming = iter(dataset.items)
                loop_time = asyncio.get_running_loop().time
                flushed_at = loop_time()

                async def worker() -> None:
                    nonlocal stamp, flushed_at
                    while not stop.requested:
                        nxt = next(upcoming, None)
                        if nxt is None:
                            return
                        record(*await judge_item(nxt))
                        if len(answer_rows) >= JUDGE_FLUSH or \
                                loop_time() - flushed_at >= JUDGE_FLUSH_S:
                            flush()
                            stamp = repo.now()
                            flushed_at = loop_time()

                await asyncio.gather(*(worker() for _ in range(_workers(evaluators))))
            else:
                for item in dataset.items:
                    if stop.requested:
                        break
                    answer = answers(item)
                    record(item, answer, [_evaluate(ev, item, answer) for ev in evaluators])
                    if len(answer_rows) >= BATCH:
                        flush()
                        stamp = repo.now()
            # Everything evaluated is written, also when stopping early on Ctrl-C.
            flush()
            run.status = "interrupted" if stop.requested else "finished"
    finally:
        if sink is not None:
            sink.close()
        if run.status == "running":
            run.status = "failed"
        repo.finish_run(engine, run_id, run.status,
                        {"items_done": run.done, "statuses": counts, **run.summary.as_dict()})
    return run
