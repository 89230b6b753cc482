"""A conversation as the item page shows it (issue 26): its outcome and why, each turn's user
message (scripted, or the simulated user's with its model, tokens and cost), the target's
answer with its tool calls, the truth captured at that turn and the turn's scores. Plain
records built from the typed `Turn`s the store reads back (store/conversations.py), so the
template reads names, not a row's columns; the page escapes every text (autoescape)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC
from typing import Any

from assay.core.conversation import OUTCOMES, Turn
from assay.core.model_call import ModelCall
from assay.core.trajectory import FIELD, PROBLEMS, ToolCall
from assay.core.types import TruthSnapshot

# finance-cause's `evidence.cause` values, in the order the run page lists them (another
# cause a later version adds is listed after these)
CAUSE_EVALUATOR = "finance-cause"
CAUSES = ("truth_unavailable", "right", "no_retrieval", "wrong_instrument", "stale_data",
          "misread")


@dataclass(frozen=True, slots=True)
class CallCost:
    """What one model request of a turn took: its model, tokens and cost (None: unknown)."""

    model: str
    tokens: int | None
    cost: float | None


def _call_cost(call: ModelCall | None) -> CallCost | None:
    if call is None:
        return None
    return CallCost(call.model, call.usage.total, call.cost)


def _tool_calls(extras: dict[str, Any]) -> list[dict[str, Any]]:
    raw = extras.get(FIELD)
    calls = [ToolCall.from_record(c) for c in raw if isinstance(c, dict)] \
        if isinstance(raw, list) else []
    return [{"name": c.name, "arguments": c.args(), "result": c.result, "error": c.error}
            for c in calls]


def _truth(snap: TruthSnapshot | None) -> dict[str, Any] | None:
    if snap is None:
        return None
    return {"provider": snap.provider, "instrument": snap.instrument, "market": snap.market,
            "query": snap.query, "status": snap.status,
            "fetched_at": snap.fetched_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S"),
            "message": snap.message, "fields": dict(snap.fields)}


def turn_record(t: Turn) -> dict[str, Any]:
    a = t.answer
    return {
        "number": t.number, "input": t.input, "source": t.source,
        "simulated": t.source == "simulator", "user_error": t.error,
        "user_call": _call_cost(t.user_call),
        "answer": None if a is None else {
            "text": a.text, "error": a.error, "latency_s": a.latency_s,
            "call": _call_cost(a.call), "tool_calls": _tool_calls(a.extras),
            "problems": [str(p) for p in a.extras.get(PROBLEMS) or []]
            + ([str(a.extras["end_ignored"])] if a.extras.get("end_ignored") else [])},
        "truth": _truth(t.truth),
        "scores": [{"evaluator": s.evaluator, "score": s.value, "status": str(s.status),
                    "reason": s.reason} for s in t.scores],
        "ended": None if t.ended is None else str(t.ended)}


def conversation_record(turns: Sequence[Turn], answer: dict[str, Any] | None
                        ) -> dict[str, Any]:
    """The sample's conversation: from its answer row the outcome (column) and what the run
    said of it (`extras.conversation`: reason, evaluate, combine), and its turns in order."""
    answer = answer or {}
    said = (answer.get("extras") or {}).get("conversation") or {}
    said = said if isinstance(said, dict) else {}
    return {"outcome": answer.get("outcome") or said.get("outcome"),
            "reason": said.get("reason"), "evaluate": said.get("evaluate"),
            "combine": said.get("score"), "simulated": bool(said.get("simulated")),
            "turns": [turn_record(t) for t in turns]}


def outcome_table(counts: dict[str, dict[str, int]]) -> list[dict[str, Any]]:
    """Per target, a count for every outcome (0 where none ended so), in Outcome's order."""
    return [{"target": t, "counts": {o: by.get(o, 0) for o in OUTCOMES},
             "total": sum(by.values())} for t, by in sorted(counts.items())]


def cause_table(rows: Sequence[tuple[str, str | None, int]]) -> dict[str, Any]:
    """finance-cause's counts per target and cause: the known causes in their order, then any
    other it gave, then "(none)" for results without one."""
    by: dict[str, dict[str, int]] = {}
    for target, cause, n in rows:
        got = by.setdefault(target, {})
        name = cause if cause is not None else "(none)"
        got[name] = got.get(name, 0) + n
    seen = {c for got in by.values() for c in got}
    other = sorted(seen - set(CAUSES) - {"(none)"})
    names = [*CAUSES, *other, *(["(none)"] if "(none)" in seen else [])]
    return {"causes": names,
            "rows": [{"target": t, "counts": {c: got.get(c, 0) for c in names},
                      "total": sum(got.values())} for t, got in sorted(by.items())]}
