"""A conversation's rows (migration 0012): its messages in `turns`, one row each as they
happen, and its per-turn judgments in `turn_results`; read back as typed `Turn`s
(core/conversation.py) by resume, replay, show, exports and the UI."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, func, select

from assay.core.conversation import Outcome, Turn
from assay.core.model_call import ModelCall
from assay.core.types import Answer, Score, ScoreStatus, TruthSnapshot

from .reviews import stored_evidence
from .rows import (
    EMPTY,
    Key,
    answer_call,
    aware,
    call_columns,
    json_text,
    result_call,
    to_datetime,
)
from .schema import answers, turn_results, turns


def _key(run_id: str, key: Key, turn: int) -> dict[str, Any]:
    return {"run_id": run_id, "item_id": key[0], "target": key[1], "epoch": key[2],
            "turn": turn}


def user_row(run_id: str, key: Key, turn: int, text: str, source: str,
             call: ModelCall | None, ended: Outcome | None, t0: float, t1: float
             ) -> dict[str, Any]:
    """A user message: scripted, or the simulated user's with the request that made it."""
    row = {**_key(run_id, key, turn), "role": "user", "source": source, "text": text,
           "error": None, "latency_s": None if call is None else call.latency_s,
           "extras": EMPTY, "truth": None, "ended": None if ended is None else str(ended),
           "started_at": to_datetime(t0), "finished_at": to_datetime(t1)}
    if call is not None:
        row.update(call_columns(call, reply=text))
    return row


def _truth_record(snap: TruthSnapshot) -> dict[str, Any]:
    return {**snap.as_record(), "payload": snap.payload}


def _truth_from(record: Any) -> TruthSnapshot | None:
    if not isinstance(record, dict) or "provider" not in record:
        return None
    fetched = datetime.fromisoformat(str(record["fetched_at"]))
    return TruthSnapshot(record["provider"], record.get("instrument") or "",
                         record.get("query") or "", aware(fetched), record.get("status") or "ok",
                         record.get("fields") or {}, record.get("source_fields") or {}, None,
                         record.get("message"), record.get("market"), record.get("payload"))


def assistant_row(run_id: str, key: Key, turn: int, answer: Answer,
                  truth: TruthSnapshot | None, ended: Outcome | None, t0: float, t1: float
                  ) -> dict[str, Any]:
    """The target's answer to a turn, with the truth captured at that answer's time."""
    extras = dict(answer.extras)
    if answer.raw is not None:
        extras["raw"] = answer.raw
    row = {**_key(run_id, key, turn), "role": "assistant", "source": "target",
           "text": answer.text, "error": answer.error, "latency_s": answer.latency_s,
           "extras": json_text(extras) if extras else EMPTY,
           "truth": None if truth is None else json_text(_truth_record(truth)),
           "ended": None if ended is None else str(ended),
           "started_at": to_datetime(t0), "finished_at": to_datetime(t1)}
    if answer.call is not None:
        row.update(call_columns(answer.call, reply=answer.text))
    return row


def turn_result_row(run_id: str, key: Key, turn: int, score: Score, stamp: datetime
                    ) -> dict[str, Any]:
    row = {**_key(run_id, key, turn), "evaluator": score.evaluator,
           "evaluator_version": score.evaluator_version, "score": score.value,
           "status": str(score.status), "reason": score.reason,
           "evidence": json_text(stored_evidence(score)), "created_at": stamp}
    if score.call is not None:
        row.update(call_columns(score.call))
    return row


def _score(row: dict[str, Any]) -> Score:
    return Score(row["score"], ScoreStatus(row["status"]), row["reason"], row["evaluator"],
                 row["evaluator_version"], evidence=row["evidence"] or {}, call=result_call(row))


def conversation_turns(engine: Engine, run_id: str, item_id: str | None = None,
                       keys: Iterable[Key] | None = None) -> dict[Key, list[Turn]]:
    """Each conversation's turns in order, with their scores; a turn whose user message is
    stored and whose answer is not (a kill between them) has `answer` None."""
    wanted = set(keys) if keys is not None else None
    q = select(turns).where(turns.c.run_id == run_id)
    r = select(turn_results).where(turn_results.c.run_id == run_id)
    if item_id is not None:
        q, r = q.where(turns.c.item_id == item_id), r.where(turn_results.c.item_id == item_id)
    with engine.connect() as conn:
        messages = [dict(m) for m in conn.execute(
            q.order_by(turns.c.item_id, turns.c.target, turns.c.epoch, turns.c.turn,
                       turns.c.role.desc())).mappings()]  # user before assistant
        scored: dict[tuple[str, str, int, int], list[Score]] = {}
        for mapping in conn.execute(r.order_by(turn_results.c.evaluator)).mappings():
            row = dict(mapping)
            k = (row["item_id"], row["target"], row["epoch"], row["turn"])
            scored.setdefault(k, []).append(_score(row))
    out: dict[Key, list[Turn]] = {}
    users: dict[tuple[str, str, int, int], dict[str, Any]] = {}
    for m in messages:
        key: Key = (m["item_id"], m["target"], m["epoch"])
        if wanted is not None and key not in wanted:
            continue
        k4 = (*key, m["turn"])
        if m["role"] == "user":
            users[k4] = m
            out.setdefault(key, []).append(Turn(
                m["turn"], m["text"] or "", m["source"], None,
                answer_call(m) if m["source"] == "simulator" else None,
                ended=Outcome(m["ended"]) if m["ended"] else None, error=m["error"]))
            continue
        user = users.get(k4)
        answer = Answer(m["text"], m["extras"] or {}, m["latency_s"], None, m["error"],
                        answer_call(m))
        turns_of = out.setdefault(key, [])
        previous = turns_of[-1] if turns_of and turns_of[-1].number == m["turn"] else None
        turn = Turn(m["turn"], previous.input if previous else (user or {}).get("text") or "",
                    previous.source if previous else "script", answer,
                    previous.user_call if previous else None, _truth_from(m["truth"]),
                    tuple(scored.get(k4, ())),
                    Outcome(m["ended"]) if m["ended"] else None)
        if previous is not None:
            turns_of[-1] = turn
        else:
            turns_of.append(turn)
    return out


def outcome_counts(engine: Engine, run_id: str) -> dict[str, dict[str, int]]:
    """Conversations per outcome, per target."""
    out: dict[str, dict[str, int]] = {}
    with engine.connect() as conn:
        for target, outcome, n in conn.execute(
                select(answers.c.target, answers.c.outcome, func.count())
                .where(answers.c.run_id == run_id, answers.c.outcome.is_not(None))
                .group_by(answers.c.target, answers.c.outcome)):
            out.setdefault(target, {})[outcome] = int(n)
    return out


def outcomes(engine: Engine, run_id: str) -> dict[Key, str]:
    """Each finished conversation's outcome."""
    with engine.connect() as conn:
        return {(i, t, e): o for i, t, e, o in conn.execute(
            select(answers.c.item_id, answers.c.target, answers.c.epoch, answers.c.outcome)
            .where(answers.c.run_id == run_id, answers.c.outcome.is_not(None)))}


def failed_turns(engine: Engine, run_id: str) -> dict[str, int]:
    """Per target, the conversations' turns whose answer failed (the target's error): a
    conversation's own answer row holds its last good answer, not the failure."""
    with engine.connect() as conn:
        return {t: int(n) for t, n in conn.execute(
            select(turns.c.target, func.count())
            .where(turns.c.run_id == run_id, turns.c.role == "assistant",
                   turns.c.error.is_not(None))
            .group_by(turns.c.target))}
