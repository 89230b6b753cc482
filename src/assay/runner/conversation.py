"""One conversation sample — (conversation item, target, epoch) — played turn by turn.

Each turn: the user's message (the script's next turn, or the simulated user's, stored before
the target sees it), the target's answer given the history, the truth captured at that
answer's time, the turn's judgments (`each_turn`; `final_turn` judges the last answered turn
when the conversation ends; `never` none). Each turn's rows are committed as it ends, so a kill
loses the turn in flight and a resume continues from the last stored message. When the
conversation ends — `done`, `transferred`, `max_turns`, `timeout`, `budget` or `aborted` — its
answer row (the final answer, the outcome, the target's summed cost) and one result per
evaluator (the turns' scores combined by the spec's `conversation.score`; an aborted
conversation scores 0, as in τ²-bench) are written together: the conversation is stored once,
whole."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from assay.core.conversation import (
    TARGET_ENDS,
    Message,
    Outcome,
    Plan,
    Turn,
    combine,
    plan_of,
    turn_item,
)
from assay.core.model_call import ModelCall, Usage
from assay.core.types import Answer, Item, Score, ScoreStatus, TruthSnapshot
from assay.models.budget import BudgetExceeded
from assay.models.client import ModelClient
from assay.store.conversations import assistant_row, turn_result_row, user_row
from assay.store.rows import Key, answer_row, result_row
from assay.traces import semconv, semconv_llm
from assay.traces.spans import Trace, tool_spans

from .evaluate import evaluate_traced
from .experiment_spec import ConversationSettings
from .simulator import UserTurn, next_user_turn
from .work import Work

if TYPE_CHECKING:
    from .pipeline import SamplePipeline


class ConversationPlayer:
    """Plays the conversation samples of one run, through its sample pipeline's commit
    policy, truth capture, evaluators and scope."""

    def __init__(self, pipeline: SamplePipeline, settings: ConversationSettings,
                 client: Callable[[str], ModelClient] | None,
                 prior: dict[Key, list[Turn]] | None = None) -> None:
        self.p = pipeline
        self.settings = settings
        self.client = client
        self.prior = prior or {}

    async def play(self, work: Work) -> None:
        p = self.p
        item, target, epoch = work.item, work.target, work.epoch
        key: Key = (item.id, target.name, epoch)
        plan = plan_of(item)
        mode = plan.evaluate or self.settings.evaluate
        limit = self.settings.max_turns
        if plan.simulated is not None and plan.simulated.max_turns is not None:
            limit = plan.simulated.max_turns
        trace = Trace(p.run_id, item.id)
        t_start = time.time()
        attrs = {"target": target.name, "epoch": epoch}
        session = session_of(p.run_id, key)
        turns = list(self.prior.get(key, ()))
        pending: Turn | None = None  # a stored user message whose answer was lost
        if turns and turns[-1].answer is None and turns[-1].ended is None:
            pending = turns.pop()
        history = _history(turns)
        outcome: Outcome | None = turns[-1].ended if turns else None
        reason = _ended_why(turns[-1]) if turns else ""
        if work.prior is not None:  # finished before: only evaluators added since are run
            stored = work.prior.extras.get("conversation") or {}
            outcome = Outcome(str(stored.get("outcome") or Outcome.DONE))
            reason = str(stored.get("reason") or "")
        refused: BudgetExceeded | None = None
        deadline = None if self.settings.max_minutes is None \
            else t_start + self.settings.max_minutes * 60
        try:
            while outcome is None:
                number = len(turns) + 1
                if number > limit:
                    outcome, reason = Outcome.MAX_TURNS, f"{limit} turns, the limit"
                    break
                if plan.script and number > len(plan.script):
                    outcome, reason = Outcome.DONE, "the script ended"
                    break
                if deadline is not None and time.time() > deadline:
                    outcome = Outcome.TIMEOUT
                    reason = f"over {self.settings.max_minutes:g} minutes"
                    break
                # the turn's span: the simulator's, target's, truth's and evaluators' under it
                at = {**attrs, "turn": number}
                span = trace.span("turn", f"turn {number}", time.time(), None,
                                  attributes={**at, **semconv.step()})
                turn, rows = await self._user(plan, number, history, pending, key, trace,
                                              at, span)
                pending = None
                if turn.ended is not None:  # the simulated user stopped, or failed
                    turns.append(turn)
                    trace.end(span, time.time())
                    await p.writer.commit(turns=rows, spans=trace.take(), samples=0)
                    outcome = turn.ended
                    reason = turn.error or "the simulated user stopped"
                    break
                turn, stopped = await self._answer(item, target, turn, history, plan, mode,
                                                   session, key, trace, at, rows, span)
                turns.append(turn)  # stored: it counts, also when the budget stops here
                if stopped is not None:
                    raise stopped
                history += [Message("user", turn.input)]
                if turn.answer is not None and turn.answer.text is not None:
                    history.append(Message("assistant", turn.answer.text))
                if turn.ended is not None:
                    outcome, reason = turn.ended, _ended_why(turn)
        except BudgetExceeded as exc:  # nothing was sent for the refused request
            outcome, reason, refused = Outcome.BUDGET, str(exc), exc
        try:
            if work.prior is not None and mode == "each_turn" and outcome != Outcome.ABORTED:
                # a stored conversation whose scores were dropped (`assay retry`) or that
                # has an evaluator more: its turns judged where they lack a judgment
                turns = await self._rejudge(item, turns, range(len(turns)), work, session,
                                            key, trace, attrs)
            elif mode == "final_turn" and outcome != Outcome.ABORTED:
                turns = await self._judge_last(item, turns, work, session, key, trace, attrs)
        except BudgetExceeded as exc:
            refused = refused or exc
        await self._finish(work, key, turns, outcome, reason, mode, trace, attrs, t_start)
        if refused is not None:
            raise refused

    async def _user(self, plan: Plan, number: int, history: list[Message],
                    pending: Turn | None, key: Key, trace: Trace, attrs: dict[str, Any],
                    span: str) -> tuple[Turn, list[dict[str, Any]]]:
        """The user's message of turn `number`, and the rows to store with the answer (a
        simulated message is committed at once: a resume must not ask for it again)."""
        p = self.p
        t0 = time.time()
        if pending is not None:
            return pending, []
        if plan.script:
            text = plan.script[number - 1].input
            return Turn(number, text, "script"), [
                user_row(p.run_id, key, number, text, "script", None, None, t0, t0)]
        user = plan.simulated
        assert user is not None and self.client is not None
        said: UserTurn = await next_user_turn(self.client(user.model), user, history)
        t1 = time.time()
        ended = Outcome.DONE if said.stopped else None
        sid = trace.span("simulator", user.model, t0, t1, parent=span,
                         status="error" if said.error else "ok",
                         attributes={**attrs, **semconv.simulator(said.call.model if
                                                                   said.call else user.model,
                                                                   said.text),
                                     "role": "simulator",
                                     "seed": user.seed, "temperature": user.temperature,
                                     "text": said.text, "stopped": said.stopped,
                                     "error": said.error})
        if said.call is not None and said.call.attempts:
            trace.requests(said.call, sid, *semconv_llm.call_request(said.call))
        if said.error is not None:  # stored as the conversation's end: a resume finds it
            row = user_row(p.run_id, key, number, said.text, "simulator", said.call,
                           Outcome.ABORTED, t0, t1)
            row["error"] = said.error
            return Turn(number, said.text, "simulator", None, said.call,
                        ended=Outcome.ABORTED, error=said.error), [row]
        row = user_row(p.run_id, key, number, said.text, "simulator", said.call, ended, t0, t1)
        turn = Turn(number, said.text, "simulator", None, said.call, ended=ended)
        if ended is None:  # stored now, before the target is asked (its span: with the turn)
            await p.writer.commit(turns=[row], samples=0)
            return turn, []
        return turn, [row]

    async def _answer(self, item: Item, target: Any, turn: Turn, history: list[Message],
                      plan: Plan, mode: str, session: str, key: Key, trace: Trace,
                      at: dict[str, Any], rows: list[dict[str, Any]], span: str
                      ) -> tuple[Turn, BaseException | None]:
        p = self.p
        number = turn.number
        fields = _turn_fields(plan, number)
        asked = turn_item(item, number, turn.input, history, fields, session)
        t0 = time.time()
        # a turn that names no instrument ("谢谢") has no truth to capture: nothing to judge
        # against, never a failed fetch
        fetching = asyncio.create_task(p._fetch(asked)) \
            if p.capture is not None and p.capture.names_instrument(asked) else None
        try:
            answer = await p._call(target, asked)
        except BaseException:
            if fetching is not None:
                fetching.cancel()
            raise
        t1 = time.time()
        tid = trace.span("target", key[1], t0, t1, status="error" if answer.error else "ok",
                         parent=span, attributes={**at, "latency_s": answer.latency_s,
                                     "usage": answer.usage.to_json(), "error": answer.error,
                                     **semconv.target(target.kind, key[1], asked, answer)})
        if answer.call is not None and answer.call.attempts:
            trace.requests(answer.call, tid, *semconv_llm.call_request(answer.call))
        calls = answer.extras.get("tool_calls")
        if calls:
            tool_spans(trace, calls, tid, t0, t1, at)
        snap: TruthSnapshot | None = None
        if fetching is not None:
            snap = await p._settle(asked, fetching, t1, trace, at, span)
        said_end = str(answer.extras.get("end") or "").strip().lower()
        ended = Outcome.ABORTED if answer.error else TARGET_ENDS.get(said_end)
        if said_end and said_end not in TARGET_ENDS:  # a typo must not go unseen: it is
            # stored with the answer and shown with the turn; the conversation goes on
            answer.extras["end_ignored"] = (f"end '{said_end[:40]}' is not done or transfer: "
                                            "the conversation went on")
        judged = Turn(number, turn.input, turn.source, answer, turn.user_call, snap, (), ended)
        scores: list[Score] = []
        stopped: BaseException | None = None
        if mode == "each_turn" and answer.error is None:
            scores, stopped = await self._judge(asked, judged, trace, at, span)
        if answer.error:
            p.progress.errors += 1
        stamp = p._now()
        trace.end(span, time.time())
        await p.writer.commit(
            turns=[*rows, assistant_row(p.run_id, key, number, answer, snap, ended, t0, t1)],
            turn_results=[turn_result_row(p.run_id, key, number, s, stamp) for s in scores],
            spans=trace.take(), samples=0)
        p.progress.tokens += answer.usage.total or 0
        # the answer and the judgments made are stored; a refusal (the budget) is raised by
        # the caller once the turn is counted
        return Turn(number, turn.input, turn.source, answer, turn.user_call, snap,
                    tuple(scores), ended), stopped

    async def _judge(self, asked: Item, turn: Turn, trace: Trace, at: dict[str, Any],
                     span: str | None = None, only: Sequence[Any] | None = None
                     ) -> tuple[list[Score], BaseException | None]:
        """The turn's judgments by every evaluator that applies to it (its own `evaluators`
        field, the spec's `when:`), against the truth captured at its answer's time."""
        p = self.p
        snap = turn.truth
        failure = None
        if snap is not None and snap.status == "error":
            failure = snap.message or "fetch failed"
        truth = snap if failure is None else None
        skipped: list[Score] = []
        todo = []
        for ev in p.evaluators if only is None else only:
            skip = turn_skip(ev, asked, snap, p.scope)
            if skip is None:
                todo.append(ev)
            else:
                skipped.append(skip)
        gathered = await asyncio.gather(*(evaluate_traced(
            ev, asked, turn.answer, truth, failure, trace, at, p.timeout_s, span)
            for ev in todo),
            return_exceptions=True)
        scores = [s for s in gathered if isinstance(s, Score)]
        stopped = next((e for e in gathered if isinstance(e, BaseException)), None)
        for s in scores:
            if s.call is not None:
                p.progress.tokens += s.call.usage.total or 0
        return skipped + scores, stopped

    async def _judge_last(self, item: Item, turns: list[Turn], work: Work, session: str,
                          key: Key, trace: Trace, attrs: dict[str, Any]) -> list[Turn]:
        """`final_turn`: the last answered turn judged, once (a resume finds it judged)."""
        answered = [i for i, t in enumerate(turns) if t.answer is not None
                    and t.answer.error is None]
        if not answered:
            return turns
        return await self._rejudge(item, turns, answered[-1:], work, session, key, trace,
                                   attrs)

    async def _rejudge(self, item: Item, turns: list[Turn], which: Sequence[int], work: Work,
                       session: str, key: Key, trace: Trace, attrs: dict[str, Any]
                       ) -> list[Turn]:
        """The turns at `which` judged by each evaluator that has no judgment of them yet
        (and no conversation score: `work.done`); the judgments committed as made."""
        turns = list(turns)
        plan = plan_of(item)
        for i in which:
            turn = turns[i]
            if turn.answer is None or turn.answer.error is not None:
                continue
            have = {s.evaluator for s in turn.scores} | set(work.done)
            todo = [ev for ev in self.p.evaluators if ev.name not in have]
            if not todo:
                continue
            fields = _turn_fields(plan, turn.number)
            asked = turn_item(item, turn.number, turn.input, _history(turns[:i]), fields,
                              session)
            scores, stopped = await self._judge(asked, turn, trace,
                                                {**attrs, "turn": turn.number}, only=todo)
            stamp = self.p._now()
            await self.p.writer.commit(
                turn_results=[turn_result_row(self.p.run_id, key, turn.number, s, stamp)
                              for s in scores], samples=0)
            if stopped is not None:
                raise stopped
            turns[i] = Turn(turn.number, turn.input, turn.source, turn.answer, turn.user_call,
                            turn.truth, (*turn.scores, *scores), turn.ended, turn.error)
        return turns

    async def _finish(self, work: Work, key: Key, turns: list[Turn], outcome: Outcome,
                      reason: str, mode: str, trace: Trace, attrs: dict[str, Any],
                      t_start: float) -> None:
        p = self.p
        item = work.item
        final = next((t.answer for t in reversed(turns) if t.answer is not None
                      and t.answer.error is None), None)
        record = {"outcome": str(outcome), "reason": reason, "turns": len(turns),
                  "evaluate": mode, "score": self.settings.score,
                  "simulated": any(t.source == "simulator" for t in turns)}
        rows: list[dict[str, Any]] = []
        if work.prior is None:
            answer = Answer(final.text if final else None, {"conversation": record},
                            sum(t.answer.latency_s or 0.0 for t in turns if t.answer),
                            None, None, _summed([t.answer.call for t in turns if t.answer]))
            row = answer_row(p.run_id, key, answer, t_start, time.time())
            row["outcome"] = str(outcome)
            rows.append(row)
        stamp = p._now()
        scores = [conversation_score(ev.name, ev.version, turns, outcome, reason, mode,
                                     self.settings.score, scale_of(ev))
                  for ev in p.evaluators if ev.name not in work.done]
        results = []
        for s in scores:
            if s.status == ScoreStatus.ERROR:
                p.progress.errors += 1
            results.append(result_row(p.run_id, key, s, stamp))
            p.tallies.append((item.id, key[1], s.evaluator, str(s.status), s.value,
                              s.call.cost if s.call else None))
        trace.span("sample", item.id, t_start, time.time(), span_id=trace.root,
                   status="error" if outcome == Outcome.ABORTED else "ok",
                   attributes={**attrs, "conversation": True, "outcome": str(outcome),
                               "turns": len(turns), "reason": reason,
                               **semconv.root(item, final or Answer(None), scores)})
        await p.writer.commit(answers=rows, results=results, spans=trace.take())
        p.progress.done += 1
        p.progress.tick()


def scale_of(ev: Any) -> tuple[float, float] | None:
    """An evaluator's score scale where it declares one (a judge template's), else None."""
    template = getattr(ev, "template", None)
    schema = getattr(template, "schema", None)
    low, high = getattr(schema, "minimum", None), getattr(schema, "maximum", None)
    if isinstance(low, int | float) and isinstance(high, int | float):
        return float(low), float(high)
    return None


def _ended_why(turn: Turn) -> str:
    """Why the conversation ended at `turn`, as its stored rows say (also on a resume)."""
    if turn.error:
        return turn.error
    if turn.ended == Outcome.ABORTED:
        return f"turn {turn.number}: {turn.answer.error if turn.answer else ''}"
    if turn.ended is not None and turn.answer is None:
        return "the simulated user stopped"
    return f"the target said {turn.ended}"


def turn_skip(ev: Any, asked: Item, captured: TruthSnapshot | None, scope: Any
              ) -> Score | None:
    """`skipped` when the evaluator does not apply to this turn: the spec's `when:` or the
    turn's own `evaluators` / `skip_evaluators`, or the turn lacks a field it needs (a closing
    "thanks" has no `response_reference`: not every turn of a conversation is a question for
    every evaluator; a field no turn has is refused before the run). `captured`: the truth
    fetched for the turn, failed or not — a failed fetch is the turn's error, not a skip. The
    run and replay ask this alike."""
    if scope is not None:
        skip: Score | None = scope.skip(ev.name, ev.version, asked)
        if skip is not None:
            return skip
    lacking = [n for n in ev.lacking(asked)
               if not (captured is not None and n == "ground_truth")]
    if lacking:
        return Score.skip(f"turn {asked.fields.get('turn')} has no "
                          f"{', '.join(repr(n) for n in lacking)}", ev.name, ev.version)
    return None


def session_of(run_id: str, key: Key) -> str:
    """The conversation's session id, as an HTTP agent in `history: session` mode gets it."""
    return f"{run_id}:{key[0]}:{key[1]}:{key[2]}"


def judged_turn_items(run_id: str, key: Key, item: Item, turns: Sequence[Turn]
                      ) -> list[tuple[Turn, Item]]:
    """Each stored turn with the item it was answered and judged as (replay recomputes its
    scores from these, without asking anyone)."""
    plan = plan_of(item)
    out = []
    for i, t in enumerate(turns):
        fields = _turn_fields(plan, t.number)
        out.append((t, turn_item(item, t.number, t.input, _history(turns[:i]), fields,
                                 session_of(run_id, key))))
    return out


def _turn_fields(plan: Plan, number: int) -> dict[str, Any]:
    """A scripted turn's own fields (none for a simulated user's turn)."""
    return plan.script[number - 1].fields if number <= len(plan.script) else {}


def _history(turns: Sequence[Turn]) -> list[Message]:
    out: list[Message] = []
    for t in turns:
        out.append(Message("user", t.input))
        if t.answer is not None and t.answer.text is not None:
            out.append(Message("assistant", t.answer.text))
    return out


def _summed(calls: Sequence[ModelCall | None]) -> ModelCall | None:
    """The target's calls of a conversation as one: tokens and cost summed (a cost sheet's
    target line is then the conversation's), the model named once."""
    known = [c for c in calls if c is not None]
    if not known:
        return None

    def total(values: list[int | None]) -> int | None:
        seen = [v for v in values if v is not None]
        return sum(seen) if seen else None

    costs = [c.cost for c in known if c.cost is not None]
    usage = Usage(total([c.usage.prompt_tokens for c in known]),
                  total([c.usage.completion_tokens for c in known]),
                  total([c.usage.total for c in known]))
    return ModelCall(model=known[-1].model, provider=known[-1].provider, usage=usage,
                     cost=round(math.fsum(costs), 8) if costs else None, name=known[-1].name)


def conversation_score(name: str, version: str, turns: Sequence[Turn], outcome: Outcome,
                       reason: str, mode: str, how: str,
                       scale: tuple[float, float] | None = None) -> Score:
    """One evaluator's score of a whole conversation, from its judged turns. `scale`: the
    evaluator's (a judge template's 1–5); else its turns' scores say it, else 0–1."""
    judged = [(t.number, s) for t in turns for s in t.scores if s.evaluator == name]
    per_turn = [{"turn": n, "status": str(s.status), "score": s.value} for n, s in judged]
    costs = [s.call.cost for _, s in judged if s.call is not None and s.call.cost is not None]
    call = ModelCall(model="", cost=round(math.fsum(costs), 8)) if costs else None
    evidence: dict[str, Any] = {"outcome": str(outcome), "combine": how, "evaluate": mode,
                                "turns": per_turn}
    if outcome == Outcome.ABORTED:  # the lowest score of the evaluator's scale, as τ²'s 0
        full = scale or next((s.full_score for _, s in judged
                              if s.status == ScoreStatus.SCORED), (0.0, 1.0))
        return Score(full[0], ScoreStatus.SCORED, f"conversation aborted: {reason}", name,
                     version, full_score=full, evidence=evidence, call=call)
    if mode == "never":
        return Score(None, ScoreStatus.SKIPPED, "not judged (evaluate: never)", name, version,
                     evidence=evidence)
    # a turn the evaluator failed on, could not use its judge's reply for, or could not
    # decide: the conversation's score is not known either (leaving the turn out could raise a
    # `min`) — it takes that turn's status and reason; `assay retry` judges the turn again
    undecided = next(((n, sc) for n, sc in judged if sc.status in _UNDECIDED), None)
    if undecided is not None:
        n, first = undecided
        return Score(None, first.status, f"turn {n}: {first.reason}", name, version,
                     evidence={**evidence, **({"candidates": first.evidence["candidates"]}
                                              if "candidates" in first.evidence else {})},
                     call=call)
    values = [s.value for _, s in judged if s.status == ScoreStatus.SCORED
              and s.value is not None]
    if values:
        full = next(s.full_score for _, s in judged if s.status == ScoreStatus.SCORED)
        value = combine(values, how, full)
        return Score(value, ScoreStatus.SCORED,
                     f"{how} of {len(values)} judged turn{'s' * (len(values) != 1)} "
                     f"({', '.join(_fmt(v) for v in values)}); {outcome}", name, version,
                     full_score=full, evidence=evidence, call=call)
    if not judged:
        return Score.null(f"no turn was judged ({outcome}{': ' + reason if reason else ''})",
                          name, version, evidence=evidence)
    if all(s.status == ScoreStatus.SKIPPED for _, s in judged):
        return Score(None, ScoreStatus.SKIPPED, "it applies to none of the turns", name,
                     version, evidence=evidence)
    n, first = next((n, s) for n, s in judged if s.status != ScoreStatus.SKIPPED)
    return Score(None, first.status, f"no turn scored; turn {n}: {first.reason}", name,
                 version, evidence={**evidence, **({"candidates": first.evidence["candidates"]}
                                                   if "candidates" in first.evidence else {})},
                 call=call)


_UNDECIDED = (ScoreStatus.ERROR, ScoreStatus.UNSCORED, ScoreStatus.ABSTAINED)


def _fmt(v: float) -> str:
    return f"{v:g}"
