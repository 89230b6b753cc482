"""The target types: one registration each. A new kind of target is a module with a
`build(ctx, *, name, …)` factory and one `TARGETS.register` line here; the spec checker, the
runner, `assay targets list` and the docs then know it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay.core.registry import Arg, Registry

if TYPE_CHECKING:
    from .base import Target

TARGETS: Registry[Target] = Registry("targets", noun="target type", context=True)
NAME = Arg("name", True, "the target's name in results (default: its type)")
TIMEOUT = Arg("timeout_s", help="seconds per item (default 60)")


def _register(name: str, kind: str, summary: str, *args: Arg, **more: Any) -> None:
    module = "baseline" if name == "baseline-quote-agent" else name
    TARGETS.register(name, f"assay.targets.{module}:build", kind=kind, summary=summary,
                     args=(NAME, *args), **more)


_register(
    "model", "model",
    "a registered model answering a prompt template filled from the item",
    Arg("model", True, "a name from the model registry"),
    Arg("prompt", help="user message template (default {prompt})"),
    Arg("system", help="system message template"),
    Arg("params", help="request parameters (temperature …)"),
    Arg("placeholders", help="single ({field}) or double ({{field}})"))
_register(
    "http", "agent",
    "an agent behind an HTTP JSON API: a body template, a JSONPath to the answer",
    Arg("url", True, "http:// or https:// endpoint"),
    Arg("method", help="default POST"),
    Arg("headers", help="values may name environment variables as ${VAR}"),
    Arg("body", help="JSON template; \"{field}\" takes the item's value"),
    Arg("answer_path", help="JSONPath of the answer (default $.answer)"),
    Arg("extras", help="name: JSONPath of more values to keep"),
    Arg("tool_calls", help="JSONPath of the agent's tool calls (default $.tool_calls)"),
    TIMEOUT)
_register(
    "python", "agent",
    "a Python function, sync or async, given the item's fields",
    Arg("function", True, "module:function, relative to the spec's folder"))
_register(
    "command", "agent",
    "a command per item: the item as JSON on stdin, the answer on stdout",
    Arg("command", True, "the command line, or a list of arguments"),
    TIMEOUT)
_register(
    "recorded", "recorded",
    "answers already recorded, in a field of the items or in a file keyed by item id",
    Arg("field", help="the items' answer field (default response)"),
    Arg("file", help="a file of item_id, response rows"))
_register(
    "baseline-quote-agent", "agent",
    "the reference finance agent: looks the quote up and states every field of it",
    Arg("provider", help="a ground-truth provider (default snapshot)"),
    Arg("snapshots", help="folder of recorded tables, for the snapshot provider"),
    Arg("date", help="with snapshots: the tables of this day"),
    Arg("field", help="the item field holding the instrument code"),
    Arg("market", help="force a market (cn_stock, hk_stock …)"),
    Arg("cache_s", help="live: seconds a fetched table serves"),
    Arg("min_interval_s", help="live: seconds between calls to the source"),
    Arg("token_env", help="tushare: the environment variable holding the token"))
