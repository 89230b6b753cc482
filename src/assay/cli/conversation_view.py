"""`assay show` for conversations (core/conversation.py): the outcomes per target in a run's
summary, the conversations that ended one way (`--outcome`), and one conversation turn by turn
(`--item`): each user message (scripted or simulated), the answer, its tool calls, the truth
captured at it, the turn's scores, then the outcome."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.table import Table

from assay.core.conversation import OUTCOMES, Turn
from assay.core.errors import ConfigError
from assay.core.humane import plain
from assay.core.types import Answer, Item, Score
from assay.report.itemview import turn_ground_truth
from assay.store import repo
from assay.store.conversations import conversation_turns, outcome_counts
from assay.store.db import Engine

from .terminal import escape

Clip = Callable[[Any, bool, int], str]


def check_outcome(outcome: str) -> str:
    """`--outcome`: one of the outcomes, or one line naming them."""
    if outcome not in OUTCOMES:
        raise ConfigError(f"--outcome must be one of {', '.join(OUTCOMES)}, not '{outcome}'")
    return outcome


def outcome_table(engine: Engine, run_id: str) -> Table | None:
    """Conversations per outcome, per target; None when the run has none."""
    counts = outcome_counts(engine, run_id)
    if not counts:
        return None
    t = Table(title="conversation outcomes")
    for col in ("target", "conversations", *OUTCOMES):
        t.add_column(col, justify="left" if col == "target" else "right")
    for target, per in sorted(counts.items()):
        t.add_row(escape(target), str(sum(per.values())), *(str(per.get(o, 0))
                                                             for o in OUTCOMES))
    return t


def _reason(answer: dict[str, Any]) -> str:
    talk = (answer.get("extras") or {}).get("conversation") or {}
    return str(talk.get("reason") or "")


def list_by_outcome(console: Console, engine: Engine, run_id: str, outcome: str) -> None:
    """The run's conversations that ended `outcome`, with why and their scores."""
    repo.require_run(engine, run_id)
    answers = [a for a in repo.list_answers(engine, run_id) if a.get("outcome")]
    if not answers:
        console.print(f"run {run_id} has no conversations")
        return
    chosen = sorted((a for a in answers if a["outcome"] == outcome),
                    key=lambda a: (a["item_id"], a["target"], a["epoch"]))
    if not chosen:
        console.print(f"no conversation of run {run_id} ended {outcome} ({len(answers)} "
                      "conversation(s) in all; assay show RUN counts them by outcome)")
        return
    scores: dict[tuple[str, str, int], list[str]] = {}
    for r in repo.list_results(engine, run_id):
        score = "–" if r["score"] is None else f"{r['score']:g}"
        scores.setdefault((r["item_id"], r["target"], r["epoch"]), []).append(
            f"{r['evaluator']} {score}")
    t = Table(title=f"conversations that ended {outcome} ({len(chosen)} of {len(answers)})")
    for col in ("item", "target", "epoch", "turns", "why", "scores"):
        t.add_column(col, justify="right" if col in ("epoch", "turns") else "left")
    for a in chosen:
        key = (a["item_id"], a["target"], a["epoch"])
        turns = ((a.get("extras") or {}).get("conversation") or {}).get("turns")
        t.add_row(escape(a["item_id"]), escape(a["target"]), str(a["epoch"]),
                  "–" if turns is None else str(turns), escape(_reason(a)),
                  escape(", ".join(scores.get(key, []))))
    console.print(t)


def print_conversation(console: Console, engine: Engine, run_id: str, item: Item, *,
                       clip: Clip, full: bool,
                       tool_calls: Callable[[Item, Answer, str], None]) -> None:
    """Each (target, epoch) conversation of `item`, turn by turn, then how it ended."""
    talks = conversation_turns(engine, run_id, item.id)
    answers = {(a["item_id"], a["target"], a["epoch"]): a
               for a in repo.list_answers(engine, run_id, item.id)}
    if not talks:
        console.print("[bold]conversation[/]: no turn stored")
    for key, turns in sorted(talks.items()):
        console.print(f"[bold]conversation with {escape(key[1])}[/]"
                      + (f" (epoch {key[2]})" if key[2] else "") + f", {len(turns)} turn(s)")
        for turn in turns:
            _print_turn(console, item, turn, clip, full, tool_calls)
        a = answers.get(key) or {}
        outcome = a.get("outcome")
        console.print(f"[bold]outcome[/] {escape(outcome or 'unfinished')}"
                      + (f": {escape(_reason(a))}" if _reason(a) else ""))


def _print_turn(console: Console, item: Item, turn: Turn, clip: Clip, full: bool,
                tool_calls: Callable[[Item, Answer, str], None]) -> None:
    who = "simulated" if turn.source == "simulator" else "script"
    model = turn.user_call.name or turn.user_call.model if turn.user_call is not None else None
    console.print(f"[bold]turn {turn.number}[/] user ({who}"
                  + (f", {escape(model)}" if model else "") + f"): {clip(turn.input, full, 600)}")
    if turn.error:
        console.print(f"  [red]user message failed[/] {escape(turn.error)}")
    a = turn.answer
    if a is None:
        if not turn.error:
            console.print("  [dim]no answer stored[/]")
    elif a.error:
        console.print(f"  answer: [red]error[/] {escape(a.error)}")
    else:
        meta = f" [dim]({a.latency_s:.3f} s)[/]" if a.latency_s is not None else ""
        console.print(f"  answer{meta}: {clip(a.text, full, 600)}")
        if a.extras.get("end_ignored"):
            console.print(f"  [yellow]{escape(str(a.extras['end_ignored']))}[/]")
        tool_calls(item, a, "  ")
    if turn.truth is not None:  # fetched at this answer's time
        t = turn.truth
        console.print(f"  [dim]truth:[/] {escape(t.provider)} {escape(t.instrument)} — "
                      f"{escape(t.status)}" + (f": {escape(plain(t.fields))}" if t.fields
                                               else ""))
    elif (stored := turn_ground_truth(item, turn.number)) is not None:
        console.print(f"  [dim]truth (stored in the item):[/] {clip(plain(stored), full, 600)}")
    for s in turn.scores:
        console.print(f"  {_score_line(s)}")
    if turn.ended is not None:
        console.print(f"  [dim]the conversation ended here: {escape(str(turn.ended))}[/]")


def _score_line(s: Score) -> str:
    value = "–" if s.value is None else f"{s.value:g}"
    return f"[bold]{escape(s.evaluator)}[/] → {value} ({s.status}): {escape(s.reason)}"
