"""`python`: `module:function`, sync or async, called with the item's fields (a copy) and
returning the answer text or `{"text": …, "metadata": {…}}`, with `"tool_calls": [...]` beside
them when it reports its trajectory (the shape of targets/trajectory.py, as an HTTP agent's), and
`"end": "done" | "transfer"` when it ends a conversation (core/conversation.py, TARGET_ENDS).
An exception — `sys.exit()` too — is that item's error.

A sync function runs in a daemon thread of its own (core/calls.py), so it cannot stall the other
items and a timeout really ends its item: the run's `timeout_s` stops waiting for it, the item
is marked a timeout, and a function that never returns (`time.sleep(3600)`) does not keep the
process alive after the run."""

from __future__ import annotations

import importlib
import inspect
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assay.core.calls import FAILURES, failure_text, in_daemon_thread, in_user_loop
from assay.core.errors import ConfigError
from assay.core.model_call import ModelCall
from assay.core.types import Answer, Item

from .base import TargetContext
from .boundary import settled
from .trajectory import read as read_tool_calls


def load_function(ref: str, where: str, search: Path | None = None) -> Callable[..., Any]:
    module_name, _, attr = ref.partition(":")
    if not module_name or not attr:
        raise ConfigError(f"{where}: function must be 'module:function', not '{ref}'")
    if search is not None and str(search) not in sys.path:
        sys.path.insert(0, str(search))  # the spec's folder: its agent modules import as-is
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"{where}: cannot import module '{module_name}': {exc}") from None
    except FAILURES as exc:  # a SyntaxError, an error or sys.exit() while it imports
        line = f" (line {exc.lineno})" if isinstance(exc, SyntaxError) and exc.lineno else ""
        raise ConfigError(f"{where}: importing module '{module_name}' failed: "
                          f"{failure_text(exc)}{line}") from None
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise ConfigError(f"{where}: module '{module_name}' has no function '{attr}'")
    return fn  # type: ignore[no-any-return]


class PythonTarget:
    kind = "python"

    def __init__(self, name: str, function: str | Callable[..., Any], *,
                 search: Path | None = None) -> None:
        self.name = name
        if callable(function):  # the Python API passes the function itself
            self.fn = function
            self.ref = f"{function.__module__}:{function.__qualname__}"
        else:
            self.ref = function
            self.fn = load_function(function, f"target '{name}'", search)
        self.is_async = inspect.iscoroutinefunction(self.fn)

    def public(self) -> dict[str, Any]:
        return {"type": self.kind, "function": self.ref}

    async def answer(self, item: Item) -> Answer:
        return settled(await self._respond(item))

    async def _respond(self, item: Item) -> Answer:
        fields = dict(item.fields)
        start = time.perf_counter()
        try:
            out = await in_user_loop(self.fn, fields) if self.is_async else \
                await in_daemon_thread(self.fn, fields)
        except FAILURES as exc:  # sys.exit() in an async function too; a Ctrl-C goes through
            return Answer(None, {}, time.perf_counter() - start, None, failure_text(exc))
        latency = time.perf_counter() - start
        if isinstance(out, str):
            return Answer(out, {}, latency)
        if isinstance(out, dict) and isinstance(out.get("text"), str | None):
            meta = out.get("metadata") or {}
            call = ModelCall.reported(meta.get("usage"), meta.get("model")) \
                if isinstance(meta, dict) else None
            extras: dict[str, Any] = {"metadata": meta}
            if isinstance(out.get("end"), str):  # it ends the conversation: done, transfer
                extras["end"] = out["end"]
            if out.get("tool_calls") is not None:  # its trajectory: TOOL spans and the trajectory checks
                calls, problems = read_tool_calls(out["tool_calls"])
                extras["tool_calls"] = calls
                if problems:
                    extras["tool_call_problems"] = problems
            return Answer(out.get("text"), extras, latency, call=call)
        return Answer(None, {}, latency, None,
                      f"{self.ref} returned {type(out).__name__}; expected text or "
                      "{'text': ..., 'metadata': {...}, 'tool_calls': [...]}")

    async def close(self) -> None:
        pass


def build(ctx: TargetContext, *, name: str, function: str | Callable[..., Any]) -> PythonTarget:
    return PythonTarget(name, function if callable(function) else str(function),
                        search=ctx.base)
