"""The simulated user: a registered model plays the user of a conversation item toward its
goal, one message at a time.

Pinned and logged: its model, prompt (and the prompt's version), seed and temperature go into
the run's manifest; each message it writes is stored with its request (tokens, cost) before the
target sees it, so a resume or a replay never asks it again. It always speaks after the target
(or first): the history it is given ends with the target's reply, so it cannot send two user
turns in a row. A reply holding the stop token ends the conversation `done` and is not sent; an
empty reply or a failed request aborts the conversation (never a turn with an empty query)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from assay.core.conversation import Message, SimulatedUser
from assay.core.model_call import ModelCall
from assay.models.client import ModelClient

PROMPT = """You are playing a user who talks to an assistant. Stay in character and write only \
the user's next message: one message, in the user's own words, without saying you are \
simulating anyone.

Persona: {persona}
Goal: {goal}
What you know: {known_info}
Constraints: {constraints}

When the goal is met, or the assistant cannot help further, reply with {stop} alone."""
OPENING = "(The conversation starts. Write your first message to the assistant.)"
PROMPT_VERSION = hashlib.sha256(f"{PROMPT}\n{OPENING}".encode()).hexdigest()[:12]


def prompt_record() -> dict[str, Any]:
    """What the manifest pins of the simulator besides each item's settings."""
    return {"prompt": PROMPT, "opening": OPENING, "version": PROMPT_VERSION}


@dataclass(frozen=True, slots=True)
class UserTurn:
    text: str
    call: ModelCall | None
    error: str | None = None
    stopped: bool = False  # the stop token: the conversation is done, nothing is sent


def messages_for(user: SimulatedUser, history: Sequence[Message]) -> list[dict[str, str]]:
    """The simulator's request: its system prompt, then the conversation with the roles turned
    (the target's replies are what it answers)."""
    system = PROMPT.format(persona=user.persona or "an ordinary user", goal=user.goal,
                           known_info=user.known_info or "nothing beyond the goal",
                           constraints=user.constraints or "none", stop=user.stop)
    return [{"role": "system", "content": system}, {"role": "user", "content": OPENING},
            *({"role": "assistant" if m.role == "user" else "user", "content": m.content}
              for m in history)]


async def next_user_turn(client: ModelClient, user: SimulatedUser,
                         history: Sequence[Message]) -> UserTurn:
    messages = messages_for(user, history)
    params: dict[str, Any] = {"temperature": user.temperature}
    if user.seed is not None:
        params["seed"] = user.seed
    c = await client.chat(messages, params)
    call = client.call_of(messages, c)
    if c.error is not None:
        return UserTurn("", call, f"simulated user ({client.cfg.name}): {c.error}")
    text = (c.text or "").strip()
    if user.stop in text:
        return UserTurn(text, call, stopped=True)
    if not text:
        return UserTurn("", call, f"simulated user ({client.cfg.name}) gave an empty message")
    return UserTurn(text, call)
