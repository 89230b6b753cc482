"""Domain objects ↔ the rows the store keeps, in one place: the pipeline writes with these and
resume, replay and the API read back with them, so a column is named once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import orjson

from assay.core.model_call import ModelCall
from assay.core.types import Answer, Score, TruthSnapshot

from .db import RawJSON
from .reviews import stored_evidence

Key = tuple[str, str, int]  # item id, target, epoch: one sample


def to_datetime(t: float) -> datetime:
    """Wall-clock seconds → an aware UTC datetime, as the store keeps times."""
    return datetime.fromtimestamp(t, UTC)


def aware(t: datetime) -> datetime:
    """SQLite gives back naive datetimes; every stored time is UTC."""
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def json_text(value: Any) -> RawJSON:
    return RawJSON(orjson.dumps(value, default=str).decode())


EMPTY = RawJSON("{}")  # encoded once: most recorded answers have no usage and no extras


def call_columns(call: ModelCall, *, reply: str | None = None) -> dict[str, Any]:
    """The columns of a row's model call: the call as JSON, and its cost and tokens apart.
    `reply`: the row's own text when the call's reply is that text — kept once, in the row
    (`answer_call` puts it back)."""
    data = call.to_json()
    if reply is not None and data["reply"] == reply:
        del data["reply"]
    usage = call.usage
    return {"cost": call.cost, "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens, "total_tokens": usage.total,
            "call": json_text(data)}


def answer_row(run_id: str, key: Key, answer: Answer, t_start: float | None,
               t_end: float | None) -> dict[str, Any]:
    if answer.extras or answer.raw is not None:
        extras = dict(answer.extras)
        if answer.raw is not None:
            extras["raw"] = answer.raw
        encoded = json_text(extras)
    else:
        encoded = EMPTY
    row = {"run_id": run_id, "item_id": key[0], "target": key[1], "epoch": key[2],
           "text": answer.text, "error": answer.error, "latency_s": answer.latency_s,
           "usage": EMPTY, "extras": encoded,
           "started_at": to_datetime(t_start) if t_start is not None else None,
           "finished_at": to_datetime(t_end) if t_end is not None else None}
    if answer.call is not None:
        row.update(call_columns(answer.call, reply=answer.text))
    return row


def recorded_answer_row(run_id: str, key: Key, answer: Answer) -> dict[str, Any]:
    """A recorded answer read for a score run: its text and nothing else to keep (no call,
    no timing, no error); the other columns stay NULL, which reads back as an empty answer
    record. Rows of both shapes may go in one batch (the store groups them)."""
    if answer.extras or answer.call is not None or answer.raw is not None \
            or answer.error is not None or answer.latency_s:
        return answer_row(run_id, key, answer, None, None)
    return {"run_id": run_id, "item_id": key[0], "target": key[1], "epoch": key[2],
            "text": answer.text}


def answer_call(row: Mapping[str, Any]) -> ModelCall | None:
    """An answer row's model call: its `call` column, or — for a row stored before calls had
    one (migration 0010) — what its extras, usage and latency kept."""
    stored = row.get("call")
    if isinstance(stored, Mapping):
        call = ModelCall.from_json(stored)
        return call if "reply" in stored else replace(call, reply=row.get("text"))
    extras, usage = row.get("extras"), row.get("usage")
    extras = extras if isinstance(extras, Mapping) else {}
    if "attempts" in extras or "request_model" in extras:  # a model target's request
        return ModelCall.from_json({**extras, "usage": usage, "reply": row.get("text"),
                                    "latency_s": row.get("latency_s")})
    if usage or "cost" in extras:  # tokens an agent reported
        return ModelCall.reported(usage) or ModelCall.from_json(
            {"usage": usage, "cost": extras.get("cost")})
    return None


def result_call(row: Mapping[str, Any]) -> ModelCall | None:
    """A result row's model call: its `call` column, or — for a row stored before calls had
    one (migration 0010) — what a judge's evidence (a hybrid's `extraction`) kept."""
    stored = row.get("call")
    if isinstance(stored, Mapping):
        return ModelCall.from_json(stored)
    evidence = row.get("evidence")
    if not isinstance(evidence, Mapping):
        return None
    for kept in (evidence, evidence.get("extraction")):
        if isinstance(kept, Mapping) and "attempts" in kept:  # what every judge's request kept
            return ModelCall.from_json(kept)
    return None


def answer_record(row: Mapping[str, Any]) -> dict[str, Any]:
    """An answer row as pages and the JSON API show it: `call` the whole call, as
    `ModelCall.to_json` gives it (an old row's too)."""
    call = answer_call(row)
    return {**row, "call": call.to_json() if call is not None else None}


def result_record(row: Mapping[str, Any]) -> dict[str, Any]:
    """A result row as pages and the JSON API show it: `call` the whole call, as
    `ModelCall.to_json` gives it (an old row's too)."""
    call = result_call(row)
    return {**row, "call": call.to_json() if call is not None else None}


def answer_from_row(row: dict[str, Any]) -> Answer:
    return Answer(row["text"], row["extras"] or {}, row["latency_s"], None, row["error"],
                  answer_call(row))


def result_row(run_id: str, key: Key, score: Score, stamp: datetime,
               evidence: RawJSON | None = None) -> dict[str, Any]:
    """`evidence` may be given already encoded (the JSONL output shares the bytes)."""
    row = {"run_id": run_id, "item_id": key[0], "target": key[1], "epoch": key[2],
           "evaluator": score.evaluator, "evaluator_version": score.evaluator_version,
           "score": score.value, "status": str(score.status), "reason": score.reason,
           "evidence": evidence if evidence is not None else json_text(stored_evidence(score)),
           "created_at": stamp}
    if score.call is not None:
        row.update(call_columns(score.call))
    return row


def truth_row(run_id: str, key: Key, mode: str, snap: TruthSnapshot,
              answered: float | None) -> dict[str, Any]:
    return {"run_id": run_id, "item_id": key[0], "target": key[1], "epoch": key[2],
            "mode": mode, "provider": snap.provider, "instrument": snap.instrument,
            "market": snap.market, "query": snap.query, "fetched_at": snap.fetched_at,
            "answered_at": to_datetime(answered) if answered is not None else None,
            "gap_s": None if answered is None else round(
                snap.fetched_at.timestamp() - answered, 3),
            "status": snap.status, "message": snap.message,
            "fields": json_text(snap.fields), "source_fields": json_text(snap.source_fields),
            "payload": json_text(snap.payload)}


def truth_from_row(t: dict[str, Any]) -> TruthSnapshot:
    return TruthSnapshot(t["provider"], t["instrument"], t["query"], aware(t["fetched_at"]),
                         t["status"], t["fields"] or {}, t["source_fields"] or {}, None,
                         t["message"], t["market"], t["payload"])
