"""The sample pipeline: what one sample — (item, target, epoch) — goes through, for every kind
of run (`assay run`, `assay score`, the Python API).

The target is called (unless a resumed run already has its answer; recorded answers are read,
not called), the ground truth is captured beside it (live or snapshot modes) or is the item's
own, the evaluators that have no result yet run, and the rows and spans go to the run's commit
policy. Everything a score depends on is stored, so replay can recompute it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from assay.core.calls import FAILURES, BoundedElsewhere, failure_text, within
from assay.core.errors import AssayError
from assay.core.types import Answer, Item, Score, ScoreStatus, TruthSnapshot, is_conversation
from assay.evaluators.base import Evaluator
from assay.evaluators.jury import combine
from assay.store import repo
from assay.store.rows import answer_row, recorded_answer_row, result_row, truth_row
from assay.targets.base import Target, answers_recorded, recorded_lookup
from assay.traces import semconv, semconv_llm
from assay.traces.spans import Trace, tool_spans, worker_place
from assay.truth.capture import Capture

from .evaluate import evaluate, evaluate_now, evaluate_traced, item_timeout, synchronous
from .scope import Scope
from .work import Work

__all__ = ["Committer", "Progress", "SamplePipeline", "Work"]


@dataclass
class Progress:
    """Counters the CLI shows while a run goes on."""

    total: int = 0
    done: int = 0
    skipped: int = 0  # finished in an earlier attempt of this run (resume)
    errors: int = 0
    tokens: int = 0
    on_change: Callable[[Progress], None] | None = None

    def tick(self) -> None:
        if self.on_change is not None:
            self.on_change(self)


class Committer(Protocol):
    async def commit(self, *, samples: int = 1, **rows: list[dict[str, Any]]) -> None:
        ...

    async def close(self) -> None: ...


class SamplePipeline:
    def __init__(self, run_id: str, *, evaluators: list[Evaluator], writer: Committer,
                 progress: Progress, capture: Capture | None = None,
                 prior_truth: dict[tuple[str, str, int], TruthSnapshot] | None = None,
                 timeout_s: float | None = None, truth_mode: str = "stored",
                 jury: str | None = None, scope: Scope | None = None) -> None:
        self.run_id = run_id
        self.evaluators = evaluators
        self.writer = writer
        self.progress = progress
        self.capture = capture
        self.prior_truth = prior_truth or {}
        self.timeout_s = timeout_s
        self.truth_mode = truth_mode
        self.jury = jury
        # which evaluator scores which item (runner/scope.py); None: each scores every item
        self.scope = scope
        self.judges = [ev.name for ev in evaluators if not ev.deterministic]
        # (item, target, evaluator, status, score, cost) of every result this process made:
        # a fresh run's summary needs no read back from the store
        self.tallies: list[tuple[str, str, str, str, float | None, Any]] = []
        self._stamp: tuple[int, datetime] = (0, repo.now())
        # the evaluator of a score run's case (see `samples`), when there is one
        self._quick = (synchronous(evaluators[0]) if capture is None and len(evaluators) == 1
                       else None)
        # plays the conversation items (runner/conversation.py); set by the run when its
        # dataset has one, so a run without any asks nothing per sample
        self.player: Any = None

    def chunk(self, targets: list[Target]) -> int:
        """Samples a worker takes at a time: many for a score run's case — recorded answers,
        one code evaluator, the items' own truth: microseconds each, a Ctrl-C still stops
        within a chunk's few milliseconds —, else one. A worker does a chunk's samples one
        after another: a target that is called (or a conversation) in chunks of 64 kept 4 of
        50 workers busy (BENCHMARKS.md, conversations)."""
        quick = self._quick is not None and self.player is None \
            and all(recorded_lookup(t) is not None for t in targets)
        return 64 if quick else 1

    async def sample(self, work: Work) -> None:
        await self.samples([work])

    async def samples(self, works: list[Work]) -> None:
        """Several samples. A score run's case — a recorded answer, the item's own truth, one
        code evaluator — is done right here for all of them, without a coroutine per sample,
        and their rows go to the commit policy together; nothing was called or fetched, so
        their traces are the root spans their rows imply. Every other sample takes the full
        path."""
        quick = self._quick
        answers: list[dict[str, Any]] = []
        results: list[dict[str, Any]] = []
        stamp = self._now()  # the chunk's samples are done within milliseconds of each other
        for work in works:
            target = work.target
            lookup = recorded_lookup(target)
            if quick is None or lookup is None or work.prior is not None or work.done \
                    or self.player is not None:
                await self._sample(work)
                continue
            item = work.item
            answer = lookup(item)
            if answer.error is not None:  # traced like a failed target call
                await self._sample(work, answer)
                continue
            key = (item.id, target.name, work.epoch)
            skip = self.scope.skip(quick.name, quick.version, item) \
                if self.scope is not None else None
            score = skip if skip is not None else evaluate_now(quick, item, answer)
            if score.status == ScoreStatus.ERROR:
                self.progress.errors += 1
            self.tallies.append((item.id, target.name, score.evaluator, str(score.status),
                                 score.value, score.call.cost if score.call else None))
            answers.append(recorded_answer_row(self.run_id, key, answer))
            results.append(result_row(self.run_id, key, score, stamp))
        if answers:  # their root spans are implied by these rows (store/implied.py)
            await self.writer.commit(answers=answers, results=results, samples=len(answers))
            self.progress.done += len(answers)
            self.progress.tick()

    async def _sample(self, work: Work, called: Answer | None = None) -> None:
        if self.player is not None and is_conversation(work.item):
            await self.player.play(work)
            return
        item, target, epoch, prior = work.item, work.target, work.epoch, work.prior
        trace = Trace(self.run_id, item.id)
        t_start = time.time()
        attrs = {"target": target.name, "epoch": epoch}
        key = (item.id, target.name, epoch)
        snap = self.prior_truth.get(key)
        fetching = None
        if self.capture is not None and snap is None:
            # started with the target call: the quote is the one of the moment of the answer
            fetching = asyncio.create_task(self._fetch(item))
        # Recorded answers judged against the items' own truth: nothing was called or
        # fetched, so there is no duration to trace; the root span says where both came from.
        lean = answers_recorded(target) and self.capture is None
        if prior is None:
            try:
                answer = called if called is not None else await self._call(target, item)
            except BaseException:  # refused by the budget (or worse): no quote left fetching
                if fetching is not None:
                    fetching.cancel()
                raise
            t_end = time.time()
            if not lean or answer.error is not None:
                tid = trace.span("target", target.name, t_start, t_end,
                                 status="error" if answer.error else "ok",
                                 attributes={**attrs, "type": target.kind,
                                             "latency_s": answer.latency_s,
                                             "usage": answer.usage.to_json(),
                                             "error": answer.error,
                                             **worker_place(answer),
                                             **semconv.target(target.kind, target.name, item,
                                                              answer)})
                if answer.call is not None and answer.call.attempts:
                    trace.requests(answer.call, tid, *semconv_llm.call_request(answer.call))
                calls = answer.extras.get("tool_calls")
                if calls:
                    tool_spans(trace, calls, tid, t_start, t_end, attrs)
            truth_rows = []
            if fetching is not None:
                # an online sample's answer was given earlier, at its trace's end: the gap is
                # measured from then (assay watch)
                given = answer.extras.get("answered_at")
                answered = given if isinstance(given, float) else t_end
                snap = await self._settle(item, fetching, answered, trace, attrs)
                truth_rows.append(truth_row(self.run_id, key, self._mode, snap, answered))
            if answer.error:
                self.progress.errors += 1
            if lean:  # nothing to lose before the results: one commit for the sample
                answer_rows = [answer_row(self.run_id, key, answer, None, None)]
            else:
                await self.writer.commit(answers=[answer_row(self.run_id, key, answer, t_start,
                                                             t_end)],
                                         truth_snapshots=truth_rows, spans=trace.take(),
                                         samples=0)
                self.progress.tokens += answer.usage.total or 0
        else:
            answer = prior
            answer_rows = []
            if fetching is not None:  # answered before a crash, truth never stored: late
                snap = await self._settle(item, fetching, time.time(), trace, attrs)
                await self.writer.commit(truth_snapshots=[truth_row(self.run_id, key,
                                                                    self._mode, snap, None)],
                                         samples=0)
        if snap is None and not lean:  # the item's own ground truth, named on the trace
            t_truth = time.time()
            source = "item field 'ground_truth'"
            trace.span("truth", self.truth_mode, t_truth, t_truth, attributes={
                **attrs, "mode": self.truth_mode, "source": source,
                "present": "ground_truth" in item.fields,
                **semconv.stored_truth(item, source)})
        failure = None
        if snap is not None and snap.status == "error":
            failure = snap.message or "fetch failed"
        todo = [ev for ev in self.evaluators if ev.name not in work.done]
        skipped: list[Score] = []
        if self.scope is not None:  # not applicable to this item: recorded as such, not run
            for ev in todo:
                skip = self.scope.skip(ev.name, ev.version, item)
                if skip is not None:
                    skipped.append(skip)
            if skipped:
                out = {s.evaluator for s in skipped}
                todo = [ev for ev in todo if ev.name not in out]
        stopped: BaseException | None = None
        truth = snap if failure is None else None
        if not todo:
            scores = []
        elif lean and len(todo) == 1 and todo[0].deterministic:
            # code on recorded answers: microseconds, and its result row holds status, score,
            # version and evidence; the root span is the trace (a span per result would cost a
            # 100,000-item score run a sixth of its speed and tell nothing the row does not)
            scores = [await evaluate(todo[0], item, answer, truth, failure, self.timeout_s)]
        elif len(todo) == 1:  # the common case: no gather, no task per evaluator
            scores = [await evaluate_traced(todo[0], item, answer, truth, failure, trace,
                                            attrs, self.timeout_s)]
        else:
            # all of them run to their end: when one is refused (the budget), the others'
            # judgments, already paid for, are stored before the refusal stops the run
            gathered = await asyncio.gather(*(evaluate_traced(
                ev, item, answer, truth, failure, trace, attrs, self.timeout_s) for ev in todo),
                return_exceptions=True)
            scores = [s for s in gathered if isinstance(s, Score)]
            stopped = next((e for e in gathered if isinstance(e, BaseException)), None)
        scores = skipped + scores
        if stopped is None and self.jury is not None and self.judges \
                and f"jury-{self.jury}" not in work.done:
            scores.append(combine(self.jury, [s for s in scores if s.evaluator in self.judges]))
        stamp = self._now()
        rows = []
        for score in scores:
            if score.status == ScoreStatus.ERROR:
                self.progress.errors += 1
            if score.call is not None:
                self.progress.tokens += score.call.usage.total or 0
            rows.append(result_row(self.run_id, key, score, stamp))
            self.tallies.append((item.id, target.name, score.evaluator, str(score.status),
                                 score.value, score.call.cost if score.call else None))
        if lean:
            attrs = {**attrs, "answer": f"recorded ({target.name})",
                     "truth": "item field 'ground_truth'"}
        trace.span("sample", item.id, t_start, time.time(), span_id=trace.root,
                   status="error" if answer.error else "ok",
                   attributes={**attrs, **semconv.root(item, answer, scores)})
        if lean and prior is None:
            await self.writer.commit(answers=answer_rows, results=rows, spans=trace.take())
        else:
            await self.writer.commit(results=rows, spans=trace.take())
        if stopped is not None:
            raise stopped
        self.progress.done += 1
        self.progress.tick()

    def _now(self) -> datetime:
        """The results' `created_at`: one datetime per tenth of a second, so a batch of
        thousands converts a handful of times, not one per row."""
        tenth = int(time.time() * 10)
        if tenth != self._stamp[0]:
            self._stamp = (tenth, repo.now())
        return self._stamp[1]

    @property
    def _mode(self) -> str:
        return self.capture.cfg.mode if self.capture is not None else self.truth_mode

    async def _fetch(self, item: Item) -> tuple[TruthSnapshot, float, float]:
        assert self.capture is not None
        t0 = time.time()
        snap = await self.capture.fetch(item)
        return snap, t0, time.time()

    async def _settle(self, item: Item, fetching: asyncio.Task[tuple[TruthSnapshot, float,
                                                                       float]],
                      answered: float, trace: Trace, attrs: dict[str, Any],
                      parent: str | None = None) -> TruthSnapshot:
        """The fetched snapshot, fetched again if it came more than the window before the
        answer (a slow target); its span records provider, query and the gap."""
        assert self.capture is not None
        snap, t0, t1 = await fetching
        window = self.capture.cfg.window_s
        if self.capture.cfg.mode == "live" and answered - snap.fetched_at.timestamp() > window:
            snap, t0, t1 = await self._fetch(item)
        gap = snap.fetched_at.timestamp() - answered
        trace.span("truth", snap.provider, t0, t1, status="error" if snap.status == "error"
                   else "ok", parent=parent, attributes={**attrs, "mode": self.capture.cfg.mode,
                                          "instrument": snap.instrument, "query": snap.query,
                                          "status": snap.status, "message": snap.message,
                                          "gap_s": round(gap, 3), **semconv.truth(snap)})
        return snap

    async def _call(self, target: Target, item: Item) -> Answer:
        # a target on the Ray workers is bounded there, call by call (core/calls.py)
        limit = None if isinstance(target, BoundedElsewhere) else self.timeout_s
        try:
            return await within(target.answer(item), limit, item_timeout)
        except AssayError:
            raise
        except FAILURES as exc:  # a target's bug (sys.exit too) costs its item, not the run
            return Answer(None, error=f"target failed: {failure_text(exc)}")

