"""Conversations: a dataset row that is a dialogue rather than one question.

A conversation item holds either `turns` (a fixed script of user turns, each with the fields an
item may have: `reference_output`, `ground_truth`, an instrument, its own `evaluators` …) or
`simulated_user` (a registered model plays the user toward a goal). The run plays it turn by
turn against a target that receives the history; each turn may be judged; the conversation
ends with an `Outcome` and gets a score per evaluator from its turns' (`combine`).

These are the facts that travel between the runner, the store, the reports and the UI, typed
here so none is a dict key read back by string."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .errors import ConfigError
from .model_call import ModelCall
from .types import Answer, Item, Score, TruthSnapshot, is_conversation


class Outcome(StrEnum):
    """How a conversation ended; stored, counted and filterable apart from its scores."""

    DONE = "done"  # the script ran out, the simulated user stopped, or the target said done
    TRANSFERRED = "transferred"  # the target handed the user over (to a human, another agent)
    MAX_TURNS = "max_turns"  # the turn limit came first
    TIMEOUT = "timeout"  # the conversation's `max_minutes` came first
    BUDGET = "budget"  # the run's budget refused the next request
    ABORTED = "aborted"  # a turn failed (the target's or the simulator's error): scores 0


OUTCOMES = tuple(o.value for o in Outcome)
EVALUATE = ("each_turn", "final_turn", "never")
COMBINE = ("min", "mean", "product", "last")
STOP_TOKEN = "###STOP###"
# what a target may say to end a conversation (an HTTP agent's `end`, a Python target's "end")
TARGET_ENDS = {"done": Outcome.DONE, "transfer": Outcome.TRANSFERRED,
               "transferred": Outcome.TRANSFERRED}
# fields of a conversation item that describe the conversation, not one turn
CONVERSATION_FIELDS = ("turns", "simulated_user", "evaluate")


@dataclass(frozen=True, slots=True)
class Message:
    role: str  # user | assistant
    content: str

    def to_json(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True, slots=True)
class ScriptedTurn:
    input: str
    fields: dict[str, Any] = field(default_factory=dict)  # the turn's own item fields


@dataclass(frozen=True, slots=True)
class SimulatedUser:
    """`simulated_user:` — the model playing the user, pinned: its model, prompt settings,
    seed and temperature go into the run's manifest and every simulator span."""

    model: str
    persona: str = ""
    goal: str = ""
    known_info: str = ""
    constraints: str = ""
    max_turns: int | None = None
    seed: int | None = None
    temperature: float = 0.0
    stop: str = STOP_TOKEN

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "persona": self.persona, "goal": self.goal,
                "known_info": self.known_info, "constraints": self.constraints,
                "max_turns": self.max_turns, "seed": self.seed,
                "temperature": self.temperature, "stop": self.stop}


@dataclass(frozen=True, slots=True)
class Plan:
    """What a conversation item asks for: a script or a simulated user, and its own trigger."""

    script: tuple[ScriptedTurn, ...] = ()
    simulated: SimulatedUser | None = None
    evaluate: str | None = None  # each_turn | final_turn | never; None: the spec's


@dataclass(frozen=True, slots=True)
class Turn:
    """One exchange: the user's message (scripted or simulated, with the simulator's call) and
    the target's answer, the truth captured at that answer's time, and the turn's scores."""

    number: int  # from 1
    input: str
    source: str  # script | simulator
    answer: Answer | None = None
    user_call: ModelCall | None = None
    truth: TruthSnapshot | None = None
    scores: tuple[Score, ...] = ()
    ended: Outcome | None = None  # the conversation ended at this turn (a stop, a target's end)
    error: str | None = None  # the user's message failed (the simulator's request or reply)


def history_of(item: Item) -> list[dict[str, str]] | None:
    """The messages so far (this turn's last) when `item` is a conversation's turn, as
    `turn_item` makes it; None for a one-question item."""
    f = item.fields
    history = f.get("messages")
    if not isinstance(history, list) or "session_id" not in f or "turn" not in f:
        return None
    return [{"role": str(m.get("role")), "content": str(m.get("content"))}
            for m in history if isinstance(m, dict)]


def _where(item: Item, key: str) -> str:
    line = f" (line {item.line})" if item.line is not None else ""
    return f"item {item.id}{line}: {key}"


def _text(value: Any, where: str) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return "\n".join(f"- {v}" for v in value)
    if not isinstance(value, str | int | float):
        raise ConfigError(f"{where} must be text or a list of texts")
    return str(value)


def plan_of(item: Item) -> Plan:
    """The conversation an item asks for, or one line naming the item, its line and the field."""
    f = {k: v for k, v in item.fields.items() if v not in (None, "")}
    if "turns" in f and "simulated_user" in f:
        raise ConfigError(f"{_where(item, 'turns')}: give 'turns' (a script) or "
                          "'simulated_user', not both")
    for own in ("prompt", "input"):  # a turn's text: it would be replaced, turn by turn
        if own in f:
            raise ConfigError(f"{_where(item, own)}: a conversation's questions are its "
                              f"turns; move '{own}' into the first turn (its 'input')")
    evaluate = f.get("evaluate")
    if evaluate is not None and evaluate not in EVALUATE:
        raise ConfigError(f"{_where(item, 'evaluate')}: '{evaluate}' is not one of "
                          f"{', '.join(EVALUATE)}")
    if "turns" in f:
        return Plan(script=_script(item, f["turns"]), evaluate=evaluate)
    return Plan(simulated=_simulated(item, f["simulated_user"]), evaluate=evaluate)


def _script(item: Item, turns: Any) -> tuple[ScriptedTurn, ...]:
    if isinstance(turns, str):  # a CSV column holding JSON
        import json

        try:
            turns = json.loads(turns)
        except ValueError:
            raise ConfigError(f"{_where(item, 'turns')} is text that is not a JSON list") \
                from None
    if not isinstance(turns, list) or not turns:
        raise ConfigError(f"{_where(item, 'turns')} must be a non-empty list of user turns")
    out = []
    for i, turn in enumerate(turns):
        at = _where(item, f"turns[{i}]")
        if isinstance(turn, str):
            turn = {"input": turn}
        if not isinstance(turn, dict):
            raise ConfigError(f"{at} must be text or a mapping with 'input'")
        text = turn.get("input")
        if not isinstance(text, str) or not text.strip():
            raise ConfigError(f"{at}.input must be non-empty text")
        out.append(ScriptedTurn(text, {k: v for k, v in turn.items() if k != "input"}))
    return tuple(out)


_USER_KEYS = ("model", "persona", "goal", "known_info", "constraints", "max_turns", "seed",
              "temperature", "stop")


def _simulated(item: Item, spec: Any) -> SimulatedUser:
    at = _where(item, "simulated_user")
    if not isinstance(spec, dict):
        raise ConfigError(f"{at} must be a mapping with model, persona, goal …")
    extra = sorted(set(spec) - set(_USER_KEYS))
    if extra:
        raise ConfigError(f"{at}.{extra[0]} is not a simulated_user key (known: "
                          f"{', '.join(_USER_KEYS)})")
    model = spec.get("model")
    if not isinstance(model, str) or not model:
        raise ConfigError(f"{at}.model must name a registered model (models.yaml)")
    if not spec.get("goal"):
        raise ConfigError(f"{at}.goal is needed: what the user wants from the conversation")
    max_turns = spec.get("max_turns")
    if max_turns is not None and (isinstance(max_turns, bool) or not isinstance(max_turns, int)
                                  or max_turns < 1):
        raise ConfigError(f"{at}.max_turns must be a whole number ≥ 1")
    seed = spec.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ConfigError(f"{at}.seed must be a whole number")
    temperature = spec.get("temperature", 0.0)
    if isinstance(temperature, bool) or not isinstance(temperature, int | float) \
            or not 0 <= temperature <= 2:
        raise ConfigError(f"{at}.temperature must be a number from 0 to 2")
    stop = spec.get("stop", STOP_TOKEN)
    if not isinstance(stop, str) or not stop.strip():
        raise ConfigError(f"{at}.stop must be non-empty text")
    return SimulatedUser(model, _text(spec.get("persona"), f"{at}.persona"),
                         _text(spec.get("goal"), f"{at}.goal"),
                         _text(spec.get("known_info"), f"{at}.known_info"),
                         _text(spec.get("constraints"), f"{at}.constraints"),
                         max_turns, seed, float(temperature), stop)


def history_text(messages: Sequence[Message]) -> str:
    """The history as a judge reads `{{chat_history}}`: one line per message."""
    return "\n".join(f"{m.role}: {m.content}" for m in messages)


def turn_item(item: Item, number: int, text: str, history: Sequence[Message],
              fields: dict[str, Any], session: str) -> Item:
    """The item one turn is answered and judged as: the conversation's fields, the turn's own
    over them, the turn's text as `input` and `prompt`, the history before it as `messages`
    (with this turn last) and `chat_history` (before this turn, as text)."""
    base = {k: v for k, v in item.fields.items() if k not in CONVERSATION_FIELDS}
    messages = [*history, Message("user", text)]
    base.update(fields)
    base.update({"input": text, "prompt": text, "turn": number,
                 "messages": [m.to_json() for m in messages],
                 "chat_history": history_text(history), "session_id": session})
    return Item(item.id, base, item.dataset_version, item.line)


def combine(values: Sequence[float], how: str, full: tuple[float, float] = (0.0, 1.0)
            ) -> float:
    """A conversation's score from its judged turns' scores: the worst (`min`, MT-Bench-101),
    the mean, the product (τ²-bench) or the last turn's. The product multiplies the scores as
    fractions of their scale (`full`: a 0–4 judge's 2 is 0.5) and gives the result on it."""
    if not values:
        raise ValueError("no turn scores to combine")
    if how == "min":
        return min(values)
    if how == "mean":
        return math.fsum(values) / len(values)
    if how == "product":
        low, high = full
        if high <= low:
            return math.prod(values)
        return low + (high - low) * math.prod((v - low) / (high - low) for v in values)
    if how == "last":
        return values[-1]
    raise ValueError(f"unknown conversation score '{how}'")


def probe_items(items: Sequence[Item]) -> list[Item]:
    """The items the checks before a run look at: a conversation's scripted turns as they will
    be answered and judged (a simulated conversation as its first turn, its text unknown), each
    plan read (a bad one is refused in one line); other items as they are."""
    out: list[Item] = []
    for item in items:
        if not is_conversation(item):
            out.append(item)
            continue
        plan = plan_of(item)
        session = f"check:{item.id}"
        if plan.simulated is not None:
            out.append(turn_item(item, 1, "…", (), {}, session))
            continue
        history: list[Message] = []
        for n, turn in enumerate(plan.script, 1):
            out.append(turn_item(item, n, turn.input, history, turn.fields, session))
            history = [*history, Message("user", turn.input), Message("assistant", "…")]
    return out
