"""An agent's trajectory: the tool calls an HTTP agent reports beside its answer, read into
one shape that the runner turns into TOOL spans under the target's span (docs/targets.md).

    {"answer": "...", "tool_calls": [
        {"name": "quote", "arguments": {"symbol": "600519"}, "result": {"last": 1455.0},
         "start": "2026-11-30T09:30:00.120Z", "end": 1796031000.41, "id": "call_1"}]}

`name` is required; `arguments` and `result` are any JSON; `start`/`end` are Unix seconds (or
milliseconds) or ISO 8601 times (UTC unless a zone is given); `id` and `error` are optional.
The OpenAI shape (`{"id", "function": {"name", "arguments"}}`) is read as well. What cannot be
read is kept and named in `problems`, never dropped silently."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

# Beyond this a number is milliseconds, not seconds (year 5138 in seconds).
_MS = 1e11


def _time(value: Any) -> float | None:
    if isinstance(value, bool):
        raise ValueError("a boolean is not a time")
    if isinstance(value, int | float):
        return value / 1000 if value > _MS else float(value)
    if isinstance(value, str):
        t = datetime.fromisoformat(value.replace("Z", "+00:00"))
        return (t if t.tzinfo else t.replace(tzinfo=UTC)).timestamp()
    raise ValueError(f"{type(value).__name__} is not a time")


def read(value: Any) -> tuple[list[dict[str, Any]], list[str]]:
    """The calls in the agent's field, and a line for each thing that could not be read."""
    if value is None:
        return [], []
    if not isinstance(value, list):
        return [], [f"tool calls: expected a list, got {type(value).__name__}"]
    calls: list[dict[str, Any]] = []
    problems: list[str] = []
    for n, raw in enumerate(value):
        where = f"tool call {n + 1}"
        if not isinstance(raw, dict):
            problems.append(f"{where}: expected an object, got {type(raw).__name__}")
            continue
        function = raw.get("function")
        fn: dict[str, Any] = function if isinstance(function, dict) else {}
        name = raw.get("name", fn.get("name"))
        call: dict[str, Any] = {"name": str(name) if name not in (None, "") else "?"}
        if name in (None, ""):
            problems.append(f"{where}: no 'name'")
            call["error"] = "no name"
        for key in ("arguments", "result", "id", "error"):
            if key in raw:
                call[key] = raw[key]
            elif key == "arguments" and "arguments" in fn:
                call[key] = fn["arguments"]
        for key in ("start", "end"):
            if raw.get(key) is None:
                continue
            try:
                call[key] = _time(raw[key])
            except ValueError as exc:
                problems.append(f"{where} ({call['name']}): bad '{key}' {raw[key]!r}: {exc}")
        calls.append(call)
    return calls, problems
