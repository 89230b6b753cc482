"""`assay replay` (可执行): recompute a run's scores from what it stored — items, answers, the
ground truth captured for each sample (or the items' own) — without calling any target, and
say per evaluator how many reproduce. Code evaluators must reproduce every score; model judges
show their drift, read from the response cache (same request, same reply) or asked again with
`fresh`."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.core.conversation import Outcome, Turn
from assay.core.types import Answer, Score, ScoreStatus
from assay.store import repo
from assay.store.conversations import conversation_turns, outcomes
from assay.store.db import Engine
from assay.store.rows import truth_from_row

from .conversation import conversation_score, judged_turn_items, scale_of, turn_skip
from .evaluate import evaluate
from .scope import Condition, Scope
from .session import RunSession, run_timeout

JURY_PREFIX = "jury-"


@dataclass
class Replayed:
    evaluator: str
    deterministic: bool
    compared: int = 0
    reproduced: int = 0
    version_changed: bool = False
    differences: list[dict[str, Any]] = field(default_factory=list)

    @property
    def rate(self) -> float | None:
        return self.reproduced / self.compared if self.compared else None


@dataclass
class ReplayReport:
    run_id: str
    evaluators: list[Replayed]
    skipped: dict[str, str] = field(default_factory=dict)  # evaluator → why

    @property
    def deterministic_ok(self) -> bool:
        return all(r.reproduced == r.compared for r in self.evaluators if r.deterministic)


def _evaluator_specs(manifest: dict[str, Any]) -> list[tuple[str, dict[str, str]]]:
    """Evaluator names and variable mappings as the run used them."""
    spec = manifest.get("spec")
    mappings: dict[str, dict[str, str]] = {}
    if isinstance(spec, dict):
        for e in spec.get("evaluators") or []:
            if isinstance(e, dict) and "name" in e:  # a {python: …} check maps nothing
                name = str(e["name"]) + (f"@{e['model']}" if e.get("model") else "")
                mappings[name] = {str(k): str(v) for k, v in (e.get("mapping") or {}).items()}
    return [(e["name"], mappings.get(e["name"], {})) for e in manifest.get("evaluators") or []]


def _recorded_scope(manifest_evaluators: list[dict[str, Any]]) -> Scope:
    """The scope a run's manifest records (its evaluators' `when`)."""
    if not any(e.get("when") for e in manifest_evaluators):
        return Scope()
    from .spec import parse_when  # the `when:` model: pydantic, for a run that has one

    return Scope({str(e["name"]): Condition(parse_when(e["when"]))
                  for e in manifest_evaluators if e.get("when")})


async def replay_run(engine: Engine, run_id: str, *, fresh: bool = False,
                     models_file: Path | None = None, concurrency: int = 16,
                     keep: int = 20, timeout_s: float | None = None) -> ReplayReport:
    """`timeout_s` bounds each code check's call; None: the run's own (and a python: check's
    default when the run set none)."""
    row = repo.require_run(engine, run_id)
    manifest = row["manifest"] or {}
    stored = repo.list_results(engine, run_id)
    answers = {(a["item_id"], a["target"], a["epoch"]): a for a in repo.list_answers(engine,
                                                                                      run_id)}
    items = repo.get_items(engine, row["dataset_id"])
    # a live or snapshot run was judged against what it captured, not the item's own field
    truths = {(t["item_id"], t["target"], t["epoch"]): truth_from_row(t)
              for t in repo.list_truth(engine, run_id)}
    spec = manifest.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    if timeout_s is None:  # the run's own bound on a check's call, as its scores were made
        timeout_s = run_timeout(manifest)
    report = ReplayReport(run_id, [])
    async with RunSession.open(engine, run_id, new=None, models_file=models_file, fresh=fresh,
                               judge_model=spec.get("judge_model")) as session:
        evaluators, report.skipped = session.rebuilt(
            manifest, [(n, m) for n, m in _evaluator_specs(manifest)
                       if not n.startswith(JURY_PREFIX)])
        # the items each evaluator scored, as the run recorded (a skipped one stays skipped)
        scope = _recorded_scope(manifest.get("evaluators") or [])
        per: dict[str, Replayed] = {}
        for name, ev in evaluators.items():
            versions = {r["evaluator_version"] for r in stored if r["evaluator"] == name}
            per[name] = Replayed(name, ev.deterministic,
                                 version_changed=bool(versions - {ev.version}))
        gate = asyncio.Semaphore(concurrency)
        # conversations: each judged turn recomputed from its stored answer and truth, then
        # the conversation's score from them (runner/conversation.py); nothing is asked
        ended = outcomes(engine, run_id)
        talks = conversation_turns(engine, run_id) if ended else {}
        combine = str((manifest.get("conversation") or {}).get("score") or "min")

        async def talk(r: dict[str, Any]) -> None:
            ev = evaluators[r["evaluator"]]
            key = (r["item_id"], r["target"], r["epoch"])
            item, out = items.get(r["item_id"]), per[r["evaluator"]]
            if item is None:
                return
            turns = talks.get(key, [])
            now: list[Turn] = []
            for turn, asked in judged_turn_items(run_id, key, item, turns):
                stored_score = next((s for s in turn.scores if s.evaluator == ev.name), None)
                if stored_score is None:
                    now.append(Turn(turn.number, turn.input, turn.source, turn.answer))
                    continue
                # as the run judged it: what applies to the turn, a failed capture a failure
                snap = turn.truth
                failure = (snap.message or "fetch failed") if snap is not None \
                    and snap.status == "error" else None
                skip = turn_skip(ev, asked, snap, scope)
                if skip is not None:
                    score = skip
                else:
                    async with gate:
                        score = await evaluate(ev, asked, turn.answer,
                                               snap if failure is None else None, failure,
                                               timeout_s=timeout_s)
                _compare(out, key, turn.number, stored_score, score, keep)
                now.append(Turn(turn.number, turn.input, turn.source, turn.answer,
                                scores=(score,)))
            stored_ev = r["evidence"] or {}
            whole = conversation_score(ev.name, ev.version, now,
                                       Outcome(ended[key]), "", str(stored_ev.get(
                                           "evaluate") or "each_turn"), combine,
                                       scale_of(ev))
            _compare(out, key, None, Score(r["score"], ScoreStatus(r["status"]),
                                           r["reason"], ev.name, ev.version), whole, keep)

        async def one(r: dict[str, Any]) -> None:
            if ended and (r["item_id"], r["target"], r["epoch"]) in ended:
                await talk(r)
                return
            ev = evaluators[r["evaluator"]]
            a = answers.get((r["item_id"], r["target"], r["epoch"]))
            item = items.get(r["item_id"])
            out = per[r["evaluator"]]
            if item is None or a is None or a["error"] is not None:
                return  # nothing was evaluated for this sample: the target failed
            snap = truths.get((r["item_id"], r["target"], r["epoch"]))
            if snap is not None and snap.status == "error":
                return  # nothing was evaluated: the ground truth could not be fetched
            skip = scope.skip(ev.name, ev.version, item)
            if skip is not None:
                score = skip
            else:
                async with gate:
                    score = await evaluate(ev, item, Answer(a["text"], a["extras"] or {}), snap,
                                           timeout_s=timeout_s)
            out.compared += 1
            if score.value == r["score"] and str(score.status) == r["status"]:
                out.reproduced += 1
            elif len(out.differences) < keep:
                out.differences.append({
                    "item_id": r["item_id"], "target": r["target"], "epoch": r["epoch"],
                    "stored": [r["score"], r["status"]], "now": [score.value,
                                                                 str(score.status)],
                    "reason_now": score.reason})

        todo = [r for r in stored if r["evaluator"] in evaluators]
        for start in range(0, len(todo), 1000):  # bounded: no 100,000 coroutines at once
            await asyncio.gather(*(one(r) for r in todo[start:start + 1000]))
        report.evaluators = list(per.values())
    return report


def _compare(out: Replayed, key: tuple[str, str, int], turn: int | None, stored: Score,
             now: Score, keep: int) -> None:
    """One recomputed score against the stored one (a conversation's turn, or the whole)."""
    out.compared += 1
    if now.value == stored.value and now.status == stored.status:
        out.reproduced += 1
    elif len(out.differences) < keep:
        out.differences.append({
            "item_id": key[0], "target": key[1], "epoch": key[2],
            **({"turn": turn} if turn is not None else {}),
            "stored": [stored.value, str(stored.status)], "now": [now.value, str(now.status)],
            "reason_now": now.reason})
