"""Turning a judge's reply into a score — only the score it states.

A score comes from a JSON object: the one in a fenced block, else the last JSON object in the
text that carries a score key. Keys are matched without case (`score`, `Score`, `answer_score`).
`"null"` is status `null`. Anything else — no JSON, no score key, a value outside the declared
range — is status `unscored` with the raw reply kept. A digit in free text is never a score:
that is how a judge's reasoning ("the answer 1 is close…") turns into a wrong grade.

A reasoning model's reply goes through the canonical form's first step: its reasoning block
(`<think>…</think>`, even fenced drafts inside it) is set aside and kept, and only what follows
is parsed. A verdict that exists only inside the reasoning is no verdict: `unscored`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from assay.core.types import ScoreStatus
from assay.evaluators.canonical import set_aside_reasoning

SCORE_KEYS = ("score", "answer_score", "final_score", "rating")
REASON_KEYS = ("reason", "reasoning", "explanation", "rationale")
FULL_SCORE_KEYS = ("fullscore", "full_score")

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)


@dataclass(frozen=True, slots=True)
class ScoreSchema:
    """What a template declares its judge may answer."""

    minimum: float = 0.0
    maximum: float = 1.0
    integer: bool = True
    null_allowed: bool = False

    def describe(self) -> str:
        kind = "integer" if self.integer else "number"
        text = f"{kind} in [{_num(self.minimum)}, {_num(self.maximum)}]"
        return text + (' or "null"' if self.null_allowed else "")


@dataclass(frozen=True, slots=True)
class Judgment:
    status: ScoreStatus
    score: float | None
    reason: str  # the judge's stated reason, or why the reply could not be used
    full_score: float | None
    how: str  # which rule read it: "fenced block", "last JSON object", or the failure
    raw: str
    reasoning: tuple[str, ...] = ()  # reasoning set aside before parsing (kept as evidence)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def json_objects(text: str) -> list[tuple[int, dict[str, Any]]]:
    """Every top-level JSON object in `text`, with its position, in order.

    Braces inside JSON strings are skipped; an opening brace that does not begin valid JSON
    (prose such as "{var}" or a Python dict) is passed over."""
    decoder = json.JSONDecoder()
    out: list[tuple[int, dict[str, Any]]] = []
    pos = text.find("{")
    while pos != -1:
        try:
            value, end = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError):  # RecursionError: JSON nested thousands deep
            pos = text.find("{", pos + 1)
            continue
        if isinstance(value, dict):
            out.append((pos, value))
        pos = text.find("{", end)
    return out


def _lookup(obj: dict[str, Any], keys: tuple[str, ...]) -> tuple[bool, Any]:
    lowered = {str(k).lower(): v for k, v in obj.items()}
    for key in keys:
        if key in lowered:
            return True, lowered[key]
    return False, None


def _candidates(text: str) -> list[tuple[str, dict[str, Any]]]:
    fenced = [obj for m in _FENCE.finditer(text) for _, obj in json_objects(m.group(1))]
    if any(_lookup(o, SCORE_KEYS)[0] for o in fenced):
        return [("fenced block", o) for o in fenced]
    return [("last JSON object", o) for _, o in json_objects(text)]


def parse_reply(raw: str | None, schema: ScoreSchema) -> Judgment:
    full = raw or ""
    thought = set_aside_reasoning(full)
    text = thought.text
    found = [(how, o) for how, o in _candidates(text) if _lookup(o, SCORE_KEYS)[0]]
    if not found and thought.how == "reasoning preamble":
        # "Analysis: …\n{"score": 1}\nFinal answer: correct": a preamble is a guess at where
        # the reasoning ends, a think block is not; the verdict may stand before the label
        thought = set_aside_reasoning("")
        text = full
        found = [(how, o) for how, o in _candidates(text) if _lookup(o, SCORE_KEYS)[0]]
    if not found:
        if thought.blocks and full.strip():
            why = ("no JSON object with a score after the reasoning" + (
                " (a verdict inside the reasoning is a draft, not the verdict)"
                if any(_candidates(b) for b in thought.blocks) else ""))
        else:
            why = "no JSON object with a score in the reply" if full.strip() else "empty reply"
        return Judgment(ScoreStatus.UNSCORED, None, why, None, why, full, thought.blocks)
    judged = _judge(found, schema, full)
    return Judgment(judged.status, judged.score, judged.reason, judged.full_score, judged.how,
                    full, thought.blocks) if thought.blocks else judged


def _judge(found: list[tuple[str, dict[str, Any]]], schema: ScoreSchema, text: str
           ) -> Judgment:
    how, obj = found[-1]
    _, value = _lookup(obj, SCORE_KEYS)
    _, reason = _lookup(obj, REASON_KEYS)
    has_full, full = _lookup(obj, FULL_SCORE_KEYS)
    reason_text = "" if reason is None else str(reason)
    full_score = _number(full) if has_full else None

    if value is None or (isinstance(value, str) and value.strip().lower() == "null"):
        if schema.null_allowed:
            return Judgment(ScoreStatus.NULL, None, reason_text or "the judge answered null",
                            full_score, how, text)
        return Judgment(ScoreStatus.UNSCORED, None,
                        f"the judge answered null, which this template does not allow "
                        f"({schema.describe()})", full_score, how, text)
    score = _number(value)
    if score is None:
        return Judgment(ScoreStatus.UNSCORED, None, f"score {value!r} is not a number",
                        full_score, how, text)
    if not schema.minimum <= score <= schema.maximum or (
            schema.integer and not float(score).is_integer()):
        return Judgment(ScoreStatus.UNSCORED, None,
                        f"score {_num(score)} is outside the declared range "
                        f"({schema.describe()})", full_score, how, text)
    return Judgment(ScoreStatus.SCORED, score, reason_text, full_score, how, text)


def _number(value: Any) -> float | None:
    """A JSON number, or a JSON string holding exactly one ("1", " 0.5 "); never a bool."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) if value == value else None  # NaN is not a score
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return number if number == number and abs(number) != float("inf") else None
    return None
