"""An answer's trajectory: the tool calls behind it, typed, read from wherever they were
recorded.

Three sources put tool calls beside an answer, all in one stored shape (a list of objects with
`name`, and optionally `arguments`, `result`, `error`, `id`, `start`, `end` in Unix seconds):

- a target's answer, `Answer.extras["tool_calls"]`: an HTTP agent's `tool_calls` (its JSONPath,
  `targets/trajectory.py`), a Python target's returned `tool_calls`;
- the item's `tool_calls` field: a trace received by `assay watch` (its TOOL spans, read by
  `online/reading.py`; a span with status error has `error`), or recorded answers whose
  dataset keeps each answer's calls.

`trajectory_of(item, answer)` reads them into a `Trajectory`, or None when neither source
recorded any: "no tool calls recorded" is not "the agent made none". An empty list *is*
recorded: the agent (or its trace) said it made no call."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .types import Answer, Item

FIELD = "tool_calls"  # the extras key and the item field
PROBLEMS = "tool_call_problems"  # the extras key of what a target could not read
ANSWER = "answer"  # where a trajectory came from: the target's answer …
ITEM = "item"  # … or the item's field


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call: its name, its arguments and result as the agent gave them (any JSON),
    its error if it failed, and when it ran (Unix seconds) if known."""

    name: str
    arguments: Any = None
    result: Any = None
    error: str | None = None
    id: str | None = None
    start: float | None = None
    end: float | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None

    def args(self) -> Any:
        """The arguments as a value: a JSON object given as text (the OpenAI shape, an OTel
        span's attribute) is parsed; anything else is as given."""
        value = self.arguments
        if isinstance(value, str) and value.strip()[:1] in ("{", "["):
            try:
                return json.loads(value)
            except ValueError:
                return value
        return value

    @classmethod
    def from_record(cls, raw: dict[str, Any]) -> ToolCall:
        """A stored call (the shape above; an OpenAI `{"function": {"name", "arguments"}}`
        object is read too, as a dataset may keep it)."""
        fn = raw.get("function")
        function: dict[str, Any] = fn if isinstance(fn, dict) else {}
        name = raw.get("name", function.get("name"))
        error = raw.get("error")
        return cls(name=str(name) if name not in (None, "") else "?",
                   arguments=raw.get("arguments", function.get("arguments")),
                   result=raw.get("result"),
                   error=None if error in (None, False, "") else str(error),
                   id=str(raw["id"]) if raw.get("id") is not None else None,
                   start=_seconds(raw.get("start")), end=_seconds(raw.get("end")))

    def to_record(self) -> dict[str, Any]:
        """The call as evidence shows it: its name, arguments, and error when it has one."""
        out: dict[str, Any] = {"name": self.name, "arguments": self.args()}
        if self.error is not None:
            out["error"] = self.error
        return out


@dataclass(frozen=True, slots=True)
class Trajectory:
    """The tool calls behind one answer, in the order they were made (by start time when
    every call has one, else as recorded), and where they were read from."""

    calls: tuple[ToolCall, ...]
    source: str  # ANSWER or ITEM
    problems: tuple[str, ...] = ()  # entries that were not calls, named

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.calls]

    @property
    def where(self) -> str:
        return "the answer's tool_calls" if self.source == ANSWER else \
            "the item's 'tool_calls' field"


def _seconds(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def read_trajectory(value: Any, source: str) -> Trajectory | None:
    """A stored list of calls as a trajectory; None when there is no list."""
    if not isinstance(value, list):
        return None
    calls: list[ToolCall] = []
    problems: list[str] = []
    for n, raw in enumerate(value, 1):
        if isinstance(raw, dict):
            calls.append(ToolCall.from_record(raw))
        elif isinstance(raw, str) and raw:  # a bare name, as a dataset may list them
            calls.append(ToolCall(raw))
        else:
            problems.append(f"tool call {n}: expected an object, got {type(raw).__name__}")
    if calls and all(c.start is not None for c in calls):
        calls.sort(key=lambda c: c.start or 0.0)  # stable: equal starts keep their order
    return Trajectory(tuple(calls), source, tuple(problems))


def trajectory_of(item: Item, answer: Answer) -> Trajectory | None:
    """The answer's trajectory: the target's reported calls, else the item's `tool_calls`
    field (a watched trace, a recorded dataset); None when neither recorded a list."""
    found = read_trajectory(answer.extras.get(FIELD), ANSWER)
    if found is None:
        return read_trajectory(item.fields.get(FIELD), ITEM)
    told = answer.extras.get(PROBLEMS)  # what the target could not read of its agent's list
    if isinstance(told, list) and told:
        found = Trajectory(found.calls, found.source,
                           tuple(str(p) for p in told) + found.problems)
    return found
