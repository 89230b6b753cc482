"""`finance-cause`: why a T1 answer got its verdict — exactly one cause, in the written order
(docs/agents.md, "Why a finance answer was wrong"):

1. truth_unavailable  no usable truth at the answer's time (none, empty, failed, or without the
                      asked quantity): null, the cause in the evidence. Decided first.
2. right              the finance rubric gives the answer 1, whatever the tools did: 1.
3. no_retrieval       wrong, and no call returned market data (none made, all failed, all empty).
4. wrong_instrument   wrong; calls returned data, none of it for the question's instrument.
5. stale_data         wrong; the question's instrument was returned, and no value it had for the
                      failing quantity meets the precision rule against the truth.
6. misread            wrong; a call returned the question's instrument with a value that meets
                      the rule, and the answer's does not (or the answer gives none).

The four wrong causes score 0. "Meets the rule" is the finance rubric's own decision, for the
answer (`FinanceRubric.check`) and for a tool's value (its `Checker`, or its reading of a text
result). Where the rubric abstains on the answer, or a tool's value cannot be read one way, the
cause abstains with its candidates: a 0 needs evidence. No tool calls recorded at all is null
(nothing to judge), as the trajectory checks say."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import cache
from pathlib import Path
from typing import Any, Final

from assay.core.decimals import plain
from assay.core.trajectory import Trajectory, trajectory_of
from assay.core.types import Answer, Item, Score, ScoreStatus, TruthSnapshot
from assay.evaluators.base import CodeEvaluator, missing_fields
from assay.evaluators.builtin.trajectory import NOT_RECORDED
from assay.evaluators.rubric import words as F
from assay.evaluators.rubric.checks import truth_for
from assay.evaluators.rubric.evaluator import FinanceRubric, Prepared
from assay.evaluators.rubric.evaluator import version as rubric_version
from assay.truth.vocabulary import snapshot_of_item

from .instrument import MINE, OTHER, Asked, asked_of
from .tools import FAILS, MEETS, NO_VALUE, UNCLEAR, Context, Reading, read_call

NAME: Final = "finance-cause"
TRUTH_UNAVAILABLE: Final = "truth_unavailable"
RIGHT: Final = "right"
NO_RETRIEVAL: Final = "no_retrieval"
WRONG_INSTRUMENT: Final = "wrong_instrument"
STALE_DATA: Final = "stale_data"
MISREAD: Final = "misread"
CAUSES: Final = (TRUTH_UNAVAILABLE, RIGHT, NO_RETRIEVAL, WRONG_INSTRUMENT, STALE_DATA, MISREAD)
# what a call's value says the cause is, when it is the question's instrument
_BY_OUTCOME: Final = {MEETS: (MISREAD,), FAILS: (STALE_DATA,), UNCLEAR: (STALE_DATA, MISREAD),
                      NO_VALUE: (NO_RETRIEVAL, MISREAD)}


@cache
def version() -> str:
    """This package's source and the rubric's: a stored cause names the code behind it."""
    digest = hashlib.sha256(rubric_version().encode())
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


@dataclass(frozen=True, slots=True)
class Decision:
    """What the calls say: one cause, or candidates; the call the evidence shows; why."""

    causes: tuple[str, ...]  # one: decided; several: the candidates of an abstention
    reading: Reading | None
    why: str = ""
    assumed: bool = False  # calls naming no instrument were taken as the question's


class FinanceCause(CodeEvaluator):
    """The cause of a T1 answer's verdict, from its trajectory, the truth and the answer."""

    name = NAME
    requires: tuple[str, ...] = ("prompt", "response_reference")
    # a run whose live capture failed gets the run's error for every evaluator that reads the
    # truth, as finance-rubric does; a truth it is given that is empty or failed is
    # truth_unavailable
    uses_truth = True

    def __init__(self) -> None:
        self.rubric = FinanceRubric(stamp=version())

    @property
    def version(self) -> str:
        return version()

    def lacking(self, item: Item) -> list[str]:
        # no ground_truth is not the item's error: it is the first cause, truth_unavailable
        return missing_fields(self.requires, item)

    def check(self, item: Item, answer: Answer, truth: TruthSnapshot | None = None) -> Score:
        if truth is None and item.get("ground_truth") in (None, ""):
            return self._unavailable("no ground truth recorded for this answer", {})
        snap = truth if truth is not None else snapshot_of_item(item.fields)
        if snap.status == "error":
            return self._unavailable(f"the ground truth could not be read: "
                                     f"{snap.message or 'fetch failed'}", {})
        # what the rubric needs to judge any value (criteria, truth, its Checker); the answer
        # is not read here, so an empty one still gets its truth judged first
        prepared = self.rubric.prepare(item, Answer("0"), truth)
        if isinstance(prepared, Score):
            if prepared.status == ScoreStatus.NULL:
                return self._unavailable(prepared.reason, {})
            return self._restamp(prepared)  # the rubric's own error: a rubric it cannot read
        trajectory = trajectory_of(item, answer)
        if trajectory is None:
            return Score.null(NOT_RECORDED, NAME, self.version,
                              evidence={"cause": None, "tools": None})
        verdict = self.rubric.check(item, answer, truth)
        if verdict.status == ScoreStatus.NULL:
            return self._unavailable(verdict.reason, {})
        if verdict.status not in (ScoreStatus.SCORED, ScoreStatus.ABSTAINED):
            return self._restamp(verdict)
        return _Judgement(self, item, answer, truth, snap, prepared, trajectory,
                          verdict).score()

    def _unavailable(self, why: str, evidence: dict[str, Any]) -> Score:
        return Score.null(f"{TRUTH_UNAVAILABLE}: {why}", NAME, self.version,
                          evidence={"cause": TRUTH_UNAVAILABLE, **evidence})

    def _restamp(self, score: Score) -> Score:
        return Score(score.value, score.status, score.reason, NAME, self.version,
                     score.full_score, score.evidence, score.steps)


@dataclass(slots=True)
class _Judgement:
    """One answer's cause, worked out."""

    ev: FinanceCause
    item: Item
    answer: Answer
    truth: TruthSnapshot | None
    snap: TruthSnapshot
    p: Prepared
    trajectory: Trajectory
    verdict: Score

    def score(self) -> Score:
        p, verdict = self.p, self.verdict
        asked = asked_of(self.item, self.snap, p.ident, p.criteria.required_text)
        rows = [r for r in verdict.evidence.get("values", []) if isinstance(r, dict)]
        fields = self._failing(rows)
        field = fields[0]
        tv = truth_for(field, p.truth, p.criteria.session)
        truth_text = plain(tv.value) if tv is not None else "?"
        evidence: dict[str, Any] = {
            "cause": None, "field": field, "rule": p.criteria.rule.text,
            "truth_value": {"value": truth_text, "key": tv.key if tv is not None else None},
            "answer_value": self._answer_value(rows, field),
            "asked": asked.as_dict(), "rubric": verdict.reason,
            "rubric_status": str(verdict.status), "tools": self.trajectory.names,
            "source": self.trajectory.where,
        }
        label = F.display(field, "en")
        rule = p.criteria.rule.text
        ctx = Context(self.item, self.truth, p, fields, asked, self.ev.rubric)
        readings = [read_call(n, c, ctx) for n, c in enumerate(self.trajectory.calls, 1)]
        evidence["calls"] = [r.summary() for r in readings]
        if verdict.status == ScoreStatus.SCORED and verdict.value == 1:
            evidence["cause"] = RIGHT
            beside = next((r for r in readings if r.data and r.found
                           and r.instrument != OTHER), None)
            if beside is not None:  # the tool's value beside the answer's, for the record
                evidence["tool_value"] = {**beside.found[0].as_dict(), "call": beside.n,
                                          "name": beside.call.name,
                                          "arguments": beside.call.args()}
            shown = evidence["answer_value"]
            return self._scored(1, f"{RIGHT}: the answer's {label} {shown} meets {rule} against "
                                f"the truth {truth_text}", evidence)
        decision = _decide(readings)
        if decision.assumed:
            evidence["assumed"] = ("no call names its instrument; their values were taken as "
                                   "the question's")
        chosen = decision.reading
        if chosen is not None:
            evidence["tool"] = {"call": chosen.n, "name": chosen.call.name,
                                "instrument": chosen.instrument or "unknown",
                                **chosen.claims.as_dict()}
            value = _value_for(chosen, field)
            if value is not None:
                evidence["tool_value"] = {**value.as_dict(), "call": chosen.n,
                                          "name": chosen.call.name,
                                          "arguments": chosen.call.args()}
        answer_part = _answer_part(evidence["answer_value"], label, rule, truth_text)
        if verdict.status == ScoreStatus.ABSTAINED:
            candidates = [RIGHT, *decision.causes]
            evidence["causes"] = candidates
            return Score.abstain(f"abstained: the rubric cannot tell whether the answer is "
                                 f"right ({verdict.reason}); if wrong: "
                                 f"{' or '.join(decision.causes)}", NAME, self.ev.version,
                                 candidates=candidates, evidence=evidence)
        if len(decision.causes) > 1:
            evidence["causes"] = list(decision.causes)
            return Score.abstain(f"abstained between {' and '.join(decision.causes)}: "
                                 f"{decision.why}; {answer_part}", NAME, self.ev.version,
                                 candidates=list(decision.causes), evidence=evidence)
        cause = decision.causes[0]
        evidence["cause"] = cause
        return self._scored(0, self._reason(cause, decision, evidence, label, rule, truth_text,
                                            asked), evidence)

    def _failing(self, rows: list[dict[str, Any]]) -> tuple[str, ...]:
        """The points the verdict turns on: failing values' fields and missing points (for an
        abstention, the doubtful ones); for an answer that is right, the required ones."""
        ev = self.verdict.evidence
        out = [str(r["field"]) for r in rows if not r.get("pass") and r.get("field")]
        out += [str(c["field"]) for c in ev.get("candidates", []) if isinstance(c, dict)
                and c.get("field")]
        out += [str(f) for f in ev.get("missing", [])]
        required = self.p.criteria.required
        return tuple(dict.fromkeys(f for f in out if f in required)) or required

    @staticmethod
    def _answer_value(rows: list[dict[str, Any]], field: str) -> str | None:
        mine = [r for r in rows if r.get("field") == field]
        bad = [r for r in mine if not r.get("pass")]
        chosen = bad or mine
        return str(chosen[0].get("value")) if chosen else None

    def _reason(self, cause: str, d: Decision, evidence: dict[str, Any], label: str,
                rule: str, truth_text: str, asked: Asked) -> str:
        answer_value = evidence["answer_value"]
        answer_part = _answer_part(answer_value, label, rule, truth_text)
        tool = evidence.get("tool_value")
        if cause == NO_RETRIEVAL:
            return f"{NO_RETRIEVAL}: {d.why}; {answer_part}"
        if cause == WRONG_INSTRUMENT:
            r = d.reading
            got = r.claims.shown() if r is not None and r.claims else "another instrument"
            where = f" ({r.call.name}, call {r.n})" if r is not None else ""
            return (f"{WRONG_INSTRUMENT}: asked {asked.shown}, the tools returned {got}{where}; "
                    f"{answer_part}")
        assert tool is not None
        verb = "fails" if cause == STALE_DATA else "meets"
        if answer_value is None:
            said = "the answer gives no value"
        elif _same(answer_value, tool["value"]):
            said = "the answer copied it"
        else:
            said = f"the answer gave {answer_value}"
        return (f"{cause}: the tool's {tool['key']} {tool['value']} (call {tool['call']}, "
                f"{tool['name']}) {verb} {rule} against the truth {truth_text}; {said}")

    def _scored(self, value: int, reason: str, evidence: dict[str, Any]) -> Score:
        return Score(float(value), ScoreStatus.SCORED, reason, NAME, self.ev.version,
                     (0.0, 1.0), evidence)


def _answer_part(value: str | None, label: str, rule: str, truth: str) -> str:
    if value is None:
        return f"the answer gives no {label} (truth {truth})"
    return f"the answer's {label} {value} fails {rule} against the truth {truth}"


def _same(a: str, b: str) -> bool:
    try:
        return Decimal(a) == Decimal(b)
    except InvalidOperation:
        return a == b


def _value_for(r: Reading, field: str) -> Any:
    return next((f for f in r.found if f.field == field), r.found[0] if r.found else None)


def _decide(readings: list[Reading]) -> Decision:
    """The cause the calls show for a wrong answer (rules 3–6)."""
    data = [r for r in readings if r.data]
    if not data:
        failed = sum(1 for r in readings if r.call.failed)
        n = len(readings)
        why = "no tool call was made" if not n else (
            f"every tool call failed ({failed} of {n})" if failed == n else
            f"no tool call returned market data ({n} call{'s' * (n != 1)}, {failed} failed)")
        return Decision((NO_RETRIEVAL,), None, why)
    mine = [r for r in data if r.instrument == MINE]
    other = [r for r in data if r.instrument == OTHER]
    # a call that names no instrument and holds no value of the asked quantity (a news text
    # with a market's turnover in it) says nothing about this question's instrument
    unknown = [r for r in data if r.instrument is None and r.outcome != NO_VALUE]
    if not (mine or other or unknown):
        return Decision((NO_RETRIEVAL,), None,
                        "no tool call returned a value of the asked quantity, and none names "
                        "an instrument")
    assumed = False
    if not mine and unknown and not other:
        mine, assumed = unknown, True  # nothing names another instrument: the data is taken
        #                                as the question's (the agent's own call for it)
    if mine:
        meets = [r for r in mine if r.outcome == MEETS]
        if meets:
            return Decision((MISREAD,), meets[0], assumed=assumed)
        unclear = [r for r in mine if r.outcome == UNCLEAR]
        if unclear:
            return Decision(_BY_OUTCOME[UNCLEAR], unclear[0],
                            f"the value of call {unclear[0].n} ({unclear[0].call.name}) cannot "
                            f"be read one way: {unclear[0].unclear or 'the rule cannot apply'}",
                            assumed)
        fails = [r for r in mine if r.outcome == FAILS]
        if fails:
            return Decision((STALE_DATA,), fails[-1], assumed=assumed)
        return Decision(_BY_OUTCOME[NO_VALUE], mine[0],
                        "the tools returned the question's instrument but no value of the asked "
                        "quantity", assumed)
    if unknown:  # another instrument, and calls that name none but hold the quantity
        r = unknown[0]
        return Decision((WRONG_INSTRUMENT, *_BY_OUTCOME[r.outcome]), r,
                        f"call {r.n} ({r.call.name}) names no instrument and holds a value, "
                        f"while call {other[0].n} ({other[0].call.name}) returned "
                        f"{other[0].claims.shown() or 'another instrument'}")
    return Decision((WRONG_INSTRUMENT,), other[0])
