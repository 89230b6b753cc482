"""The evaluation step, shared by the sample pipeline and replay: the checks every evaluator
gets before it is called, the call itself (an evaluator's bug costs one result, not the run),
and the evaluator's span with its typed sub-steps."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from assay.core.calls import FAILURES, failure_text
from assay.core.errors import AssayError
from assay.core.types import Answer, Item, Score, ScoreStatus, TruthSnapshot
from assay.evaluators.base import CodeEvaluator, Evaluator

from . import semconv, semconv_llm
from .trace import Trace


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


async def evaluate(ev: Evaluator, item: Item, answer: Answer | None,
                   truth: TruthSnapshot | None = None,
                   truth_failure: str | None = None, timeout_s: float | None = None) -> Score:
    """The verdict; `timeout_s` (the run's) bounds a code evaluator's call as it bounds a
    target's — a model judge is bounded by its model's own timeout and retries."""
    early = precheck(ev, item, answer, truth, truth_failure)
    if early is not None:
        return early
    assert answer is not None  # precheck answered for a missing answer
    try:
        if timeout_s is None or not ev.deterministic:
            return await ev.evaluate(item, answer, truth)
        return await asyncio.wait_for(ev.evaluate(item, answer, truth), timeout_s)
    except TimeoutError:
        return Score.error(f"evaluator timeout after {timeout_s:g} s", ev.name, ev.version)
    except AssayError:
        raise
    except FAILURES as exc:  # an evaluator's bug (sys.exit too) costs one result, not the run
        return Score.error(f"evaluator failed: {failure_text(exc)}", ev.name, ev.version)


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
        return ev.check(item, answer, None)
    except AssayError:
        raise
    except FAILURES as exc:  # an evaluator's bug (sys.exit too) costs one result, not the run
        return Score.error(f"evaluator failed: {failure_text(exc)}", ev.name, ev.version)


async def evaluate_traced(ev: Evaluator, item: Item, answer: Answer | None,
                          truth: TruthSnapshot | None, truth_failure: str | None,
                          trace: Trace, attrs: dict[str, Any],
                          timeout_s: float | None = None) -> Score:
    t0 = time.time()
    score = await evaluate(ev, item, answer, truth, truth_failure, timeout_s)
    t1 = time.time()
    sid = trace.span("evaluator", ev.name, t0, t1,
                     status="error" if score.status == ScoreStatus.ERROR else "ok",
                     attributes={**attrs, "status": str(score.status), "score": score.value,
                                 "version": ev.version, **semconv.evaluator(score)})
    llm: tuple[dict[str, Any], dict[str, Any]] | None = None
    for step in score.steps:
        extra = semconv.step()
        if step.kind == "model.request":  # a judge's request: by the conventions, once built
            if llm is None:
                llm = semconv_llm.judge_request(score.evidence)
            extra = {**llm[0], **llm[1]} if step.status == "ok" else llm[0]
        trace.span(step.kind, step.name, step.start, step.end, status=step.status, parent=sid,
                   attributes={**step.attributes, **extra})
    return score
