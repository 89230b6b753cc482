"""The evaluation step, shared by the sample pipeline and replay: the checks every evaluator
gets before it is called, the call itself (an evaluator's bug costs one result, not the run),
and the evaluator's span with its typed sub-steps."""

from __future__ import annotations

import math
import time
from typing import Any

from assay.core.calls import FAILURES, BoundedElsewhere, failure_text, within
from assay.core.errors import AssayError
from assay.core.types import Answer, Item, Score, ScoreStatus, TruthSnapshot
from assay.evaluators.base import CodeEvaluator, Evaluator
from assay.evaluators.builtin.custom import PythonEvaluator
from assay.traces import semconv, semconv_llm
from assay.traces.spans import Trace


def precheck(ev: Evaluator, item: Item, answer: Answer | None,
             truth: TruthSnapshot | None = None, truth_failure: str | None = None
             ) -> Score | None:
    """A score decided before the evaluator runs: nothing to judge, or not judgeable."""
    if answer is None:
        return Score.error("no answer for this item", ev.name, ev.version)
    if answer.error is not None:
        return Score.error(f"no answer: {answer.error}", ev.name, ev.version)
    if truth_failure is not None and ev.uses_truth:
        return Score.error(f"ground truth unavailable: {truth_failure}", ev.name, ev.version)
    lacking = [n for n in ev.lacking(item) if not (truth is not None and n == "ground_truth")]
    if lacking:
        return Score.error(f"item has no field {', '.join(repr(n) for n in lacking)} "
                           f"(line {item.line})", ev.name, ev.version)
    return None


# A check of one's own (`python:`) that a run, score, replay or watch sets no `timeout_s` for
# gets this: a check of one answer that takes a minute has hung, and a hung one must end its
# item, not the command
CHECK_TIMEOUT_S = 60.0


def time_limit(ev: Evaluator, timeout_s: float | None) -> float | None:
    """The seconds `evaluate` gives this evaluator's call, or None for no limit. A model judge
    is bounded by its model's own timeout and retries; code that runs on the loop's own thread
    (a built-in check: microseconds) cannot be ended from it, so it gets none; code that runs
    in a thread or a coroutine of its own — a user's check, a call to the Ray workers — gets
    the run's `timeout_s`, and a user's check at least CHECK_TIMEOUT_S when none is set."""
    if not ev.deterministic or synchronous(ev) is not None or isinstance(ev, BoundedElsewhere):
        return None
    if timeout_s is None and isinstance(ev, PythonEvaluator):
        return CHECK_TIMEOUT_S
    return timeout_s


async def evaluate(ev: Evaluator, item: Item, answer: Answer | None,
                   truth: TruthSnapshot | None = None,
                   truth_failure: str | None = None, timeout_s: float | None = None) -> Score:
    """The verdict, bounded in time by `time_limit`."""
    early = precheck(ev, item, answer, truth, truth_failure)
    if early is not None:
        return early
    assert answer is not None  # precheck answered for a missing answer
    limit = time_limit(ev, timeout_s)
    try:
        if limit is None:  # no timer, no wrapping coroutine: the common case
            return finite(await ev.evaluate(item, answer, truth))
        return finite(await within(ev.evaluate(item, answer, truth), limit,
                                   lambda s: evaluator_timeout(ev, s)))
    except AssayError:
        raise
    except FAILURES as exc:  # an evaluator's bug (sys.exit too) costs one result, not the run
        return Score.error(f"evaluator failed: {failure_text(exc)}", ev.name, ev.version)


def evaluator_timeout(ev: Evaluator, limit: float) -> Score:
    return Score.error(f"evaluator timeout after {limit:g} s", ev.name, ev.version)


def item_timeout(limit: float) -> Answer:
    """A target's call that took longer than the run's `timeout_s`."""
    return Answer(None, error=f"item timeout after {limit:g} s")


def finite(score: Score) -> Score:
    """The score, or its evaluator's error when its value is NaN or infinite: such a value
    would make every mean it enters NaN, and a NaN mean passes every `--fail-under` gate.
    (Python checks say which Score field was wrong; this is the guard for every other source:
    a judge's parser, a jury, an evaluator of one's own.)"""
    value = score.value
    if value is None or math.isfinite(value):
        return score
    return Score.error(f"evaluator returned a non-finite score ({value!r})", score.evaluator,
                       score.evaluator_version, evidence={"returned": repr(value), "reason": score.reason})


def synchronous(ev: Evaluator) -> CodeEvaluator | None:
    """The evaluator when it is plain code whose `evaluate` only calls `check`: the pipeline
    may call it without a coroutine (a score run makes one call per answer)."""
    if isinstance(ev, CodeEvaluator) and type(ev).evaluate is CodeEvaluator.evaluate:
        return ev
    return None


def evaluate_now(ev: CodeEvaluator, item: Item, answer: Answer) -> Score:
    """`evaluate` for a synchronous code evaluator on an answer without error, the item's own
    truth: the same checks and the same failure handling, no coroutine."""
    if answer.error is not None or ev.lacking(item):  # the common case skips precheck's tests
        early = precheck(ev, item, answer)
        if early is not None:
            return early
    try:
        return finite(ev.check(item, answer, None))
    except AssayError:
        raise
    except FAILURES as exc:  # an evaluator's bug (sys.exit too) costs one result, not the run
        return Score.error(f"evaluator failed: {failure_text(exc)}", ev.name, ev.version)


async def evaluate_traced(ev: Evaluator, item: Item, answer: Answer | None,
                          truth: TruthSnapshot | None, truth_failure: str | None,
                          trace: Trace, attrs: dict[str, Any],
                          timeout_s: float | None = None, parent: str | None = None) -> Score:
    t0 = time.time()
    score = await evaluate(ev, item, answer, truth, truth_failure, timeout_s)
    t1 = time.time()
    sid = trace.span("evaluator", ev.name, t0, t1, parent=parent,
                     status="error" if score.status == ScoreStatus.ERROR else "ok",
                     attributes={**attrs, "status": str(score.status), "score": score.value,
                                 "version": ev.version, **semconv.evaluator(score)})
    llm: tuple[dict[str, Any], dict[str, Any]] | None = None
    for step in score.steps:
        extra = semconv.step()
        if step.kind == "model.request" and score.call is not None:  # a judge's request:
            if llm is None:  # by the conventions, once built
                llm = semconv_llm.call_request(score.call)
            extra = {**llm[0], **llm[1]} if step.status == "ok" else llm[0]
        trace.span(step.kind, step.name, step.start, step.end, status=step.status, parent=sid,
                   attributes={**step.attributes, **extra})
    return score
