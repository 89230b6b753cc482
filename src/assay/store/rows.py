"""Domain objects ↔ the rows the store keeps, in one place: the pipeline writes with these and
resume, replay and the API read back with them, so a column is named once."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson

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


def answer_row(run_id: str, key: Key, answer: Answer, t_start: float | None,
               t_end: float | None) -> dict[str, Any]:
    if answer.extras or answer.raw is not None:
        extras = dict(answer.extras)
        if answer.raw is not None:
            extras["raw"] = answer.raw
        encoded = json_text(extras)
    else:
        encoded = EMPTY
    return {"run_id": run_id, "item_id": key[0], "target": key[1], "epoch": key[2],
            "text": answer.text, "error": answer.error, "latency_s": answer.latency_s,
            "usage": answer.usage or EMPTY, "extras": encoded,
            "started_at": to_datetime(t_start) if t_start is not None else None,
            "finished_at": to_datetime(t_end) if t_end is not None else None}


def recorded_answer_row(run_id: str, key: Key, answer: Answer) -> dict[str, Any]:
    """A recorded answer read for a score run: its text and nothing else to keep (no usage,
    no timing, no error); the other columns stay NULL, which reads back as an empty answer
    record. Rows of both shapes may go in one batch (the store groups them)."""
    if answer.extras or answer.usage or answer.raw is not None or answer.error is not None \
            or answer.latency_s:
        return answer_row(run_id, key, answer, None, None)
    return {"run_id": run_id, "item_id": key[0], "target": key[1], "epoch": key[2],
            "text": answer.text}


def answer_from_row(row: dict[str, Any]) -> Answer:
    return Answer(row["text"], row["extras"] or {}, row["usage"] or {}, row["latency_s"], None,
                  row["error"])


def result_row(run_id: str, key: Key, score: Score, stamp: datetime,
               evidence: RawJSON | None = None) -> dict[str, Any]:
    """`evidence` may be given already encoded (the JSONL output shares the bytes)."""
    return {"run_id": run_id, "item_id": key[0], "target": key[1], "epoch": key[2],
            "evaluator": score.evaluator, "evaluator_version": score.evaluator_version,
            "score": score.value, "status": str(score.status), "reason": score.reason,
            "evidence": evidence if evidence is not None else json_text(stored_evidence(score)),
            "created_at": stamp}


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
