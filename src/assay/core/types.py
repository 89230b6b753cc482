"""Plain, immutable domain types shared by every layer.

Dataclasses with slots rather than pydantic models: one item passes through several of these
per scoring step, and on a 2-core machine the harness's own CPU per item is what limits
throughput (see DESIGN.md), so construction must stay cheap. The three made for every item
(Item, Answer, Score) are `@record`s: read-only to the type checker, not frozen at run time
(core/record.py says what freezing cost).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from .model_call import NO_USAGE, ModelCall, Usage
from .record import record


class ScoreStatus(StrEnum):
    """Why a score has (or lacks) a value; a failure is a status, never an invented 0."""

    SCORED = "scored"
    NULL = "null"  # no ground truth to judge against
    UNSCORED = "unscored"  # the judge's output could not be used
    ERROR = "error"  # the evaluator itself failed (bad config, bad data)
    # a code evaluator found two readings of the answer that decide differently: it says so,
    # with the candidates in the evidence, and never guesses; hybrids hand these to an LLM
    ABSTAINED = "abstained"
    # the evaluator does not apply to this item (its `when:`, or the item's `evaluators` /
    # `skip_evaluators` field): recorded, never a 0, and left out of its counts and mean
    SKIPPED = "skipped"


@record
class Item:
    """One dataset row: a stable id and every field the source row had."""

    id: str
    fields: dict[str, Any]
    dataset_version: str = ""
    line: int | None = None  # line or row in the source file, for error messages

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)

    def with_field(self, name: str, value: Any) -> Item:
        """The same item with one field replaced (e.g. `ground_truth` by a captured payload)."""
        return Item(self.id, {**self.fields, name: value}, self.dataset_version, self.line)


def is_conversation(item: Item) -> bool:
    """Whether the row is a conversation (core/conversation.py): it has `turns` or
    `simulated_user`, not empty (a CSV mixing questions and conversations has the column,
    empty on a question's row). Here, beside the item, so that a run asks it of every item
    without importing the conversation modules."""
    fields = item.fields
    return fields.get("turns") not in (None, "") or \
        fields.get("simulated_user") not in (None, "")


@record
class Answer:
    """What a target produced for an item. `call`: the model request behind it (a model
    target's, or the usage an agent reported), typed; `extras` keep the rest a target says
    (an agent's tool calls, its request, fields picked from its response)."""

    text: str | None
    extras: dict[str, Any] = field(default_factory=dict)
    latency_s: float | None = None
    raw: Any = None
    error: str | None = None
    call: ModelCall | None = None

    @property
    def usage(self) -> Usage:
        """The tokens the answer took (none known without a call)."""
        return self.call.usage if self.call is not None else NO_USAGE


@dataclass(frozen=True, slots=True)
class Step:
    """A timed sub-step of an evaluation (a judge's render, each model request, the parse),
    which the pipeline turns into child spans of the evaluator's span. Wall-clock seconds."""

    kind: str
    name: str
    start: float
    end: float | None
    status: str = "ok"
    attributes: dict[str, Any] = field(default_factory=dict)


@record
class Score:
    """One evaluator's verdict on one answer, with everything needed to explain it."""

    value: float | None
    status: ScoreStatus
    reason: str
    evaluator: str
    evaluator_version: str
    full_score: tuple[float, float] = (0.0, 1.0)
    evidence: dict[str, Any] = field(default_factory=dict)
    steps: tuple[Step, ...] = ()
    # the model request the evaluator made (a judge's, a hybrid's extraction); the evidence
    # keeps what it decided on (verdict, parse, reasoning)
    call: ModelCall | None = None

    @classmethod
    def error(cls, reason: str, evaluator: str, version: str, *,
              evidence: dict[str, Any] | None = None) -> Score:
        """The evaluator failed (bad config, bad data, no answer): no value, never a 0."""
        return cls(None, ScoreStatus.ERROR, reason, evaluator, version, evidence=evidence or {})

    @classmethod
    def null(cls, reason: str, evaluator: str, version: str, *,
             evidence: dict[str, Any] | None = None) -> Score:
        """No ground truth to judge against."""
        return cls(None, ScoreStatus.NULL, reason, evaluator, version, evidence=evidence or {})

    @classmethod
    def unscored(cls, reason: str, evaluator: str, version: str, *,
                 evidence: dict[str, Any] | None = None) -> Score:
        """The judge's output could not be used."""
        return cls(None, ScoreStatus.UNSCORED, reason, evaluator, version,
                   evidence=evidence or {})

    @classmethod
    def abstain(cls, reason: str, evaluator: str, version: str, *,
                candidates: list[Any], evidence: dict[str, Any] | None = None) -> Score:
        """A code evaluator could not decide: the candidate readings go in the evidence."""
        return cls(None, ScoreStatus.ABSTAINED, reason, evaluator, version,
                   evidence={**(evidence or {}), "candidates": candidates})

    @classmethod
    def skip(cls, reason: str, evaluator: str, version: str, *,
             evidence: dict[str, Any] | None = None) -> Score:
        """The evaluator does not apply to this item: not scored, not an error."""
        return cls(None, ScoreStatus.SKIPPED, reason, evaluator, version,
                   evidence=evidence or {})

    def as_record(self, item_id: str) -> dict[str, Any]:
        """The JSON-lines shape `assay score --out` writes."""
        out = {
            "item_id": item_id,
            "evaluator": self.evaluator,
            "score": _int_if_whole(self.value),
            "status": str(self.status),
            "reason": self.reason,
            "evidence": self.evidence,
        }
        if self.call is not None:
            out["call"] = self.call.to_json()
        return out


def _int_if_whole(value: float | None) -> float | int | None:
    if value is None:
        return None
    return int(value) if float(value).is_integer() else value


@dataclass(frozen=True, slots=True)
class TruthSnapshot:
    """Ground truth as fetched: where from (provider, instrument, the query as text), when
    (UTC), the values under normalised names and under the source's own, the raw payload, and
    whether it worked (`ok`, `empty`: the source had nothing, `error`: the fetch failed)."""

    provider: str
    instrument: str
    query: str
    fetched_at: datetime
    status: str  # ok | empty | error
    fields: dict[str, Any] = field(default_factory=dict)  # last, open, high, low, prev_close …
    source_fields: dict[str, Any] = field(default_factory=dict)
    raw: Any = None
    message: str | None = None
    market: str | None = None
    # What evaluators receive as `ground_truth`: the source's own row where judges know that
    # shape (AKShare columns, Wind RT_* fields), else {"data": {normalised fields}}.
    payload: Any = None

    def payload_text(self) -> str:
        """The payload as judges and the rubric read `ground_truth`: the source's text, or
        its JSON."""
        payload = self.payload if self.payload is not None else {}
        if isinstance(payload, str):
            return payload
        return json.dumps(payload, ensure_ascii=False, default=str)

    def as_record(self) -> dict[str, Any]:
        return {"provider": self.provider, "instrument": self.instrument, "market": self.market,
                "query": self.query, "fetched_at": self.fetched_at.isoformat(),
                "status": self.status, "message": self.message, "fields": self.fields,
                "source_fields": self.source_fields}
