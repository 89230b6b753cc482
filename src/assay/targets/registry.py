"""The target types: one registration each. A new kind of target is a module with a
`build(ctx, *, name, …)` factory and one `TARGETS.register` line here; the spec checker, the
runner, `assay targets list` and the docs then know it (docs/extending.md, worked example).

A registration also carries what the runner needs to know of a type (`meta`, written with
`target_facts`), so that no runner module lists type names: the OpenInference span kind of its
call (LLM for one model request, AGENT for an agent, CHAIN for a program), and whether an
executor may place it on its workers (`workers`: its work is local computation) or keeps it in
the coordinator (`coordinator`: it waits on a network, reads the run's files or needs the
run's model clients)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from assay.core.errors import ConfigError
from assay.core.registry import Arg, Registry

if TYPE_CHECKING:
    from .base import Target

TARGETS: Registry[Target] = Registry("targets", noun="target type", context=True)
NAME = Arg("name", True, "the target's name in results (default: its type)")
TIMEOUT = Arg("timeout_s", help="seconds per item (default 60)")

# OpenInference's span kinds (openinference.semconv: OpenInferenceSpanKindValues) a target's
# call can be; tests/runner/test_semconv.py checks them against the package.
SPAN_KINDS = ("LLM", "AGENT", "CHAIN", "TOOL", "RETRIEVER")
PLACEMENTS = ("coordinator", "workers")
_DEFAULTS = {"span_kind": "CHAIN", "placement": "coordinator"}


def target_facts(*, span_kind: str = "CHAIN", placement: str = "coordinator") -> dict[str, str]:
    """A target type's facts, as its registration's `meta`:
    `TARGETS.register(…, meta=target_facts(span_kind="AGENT"))`. A type that declares none is
    a CHAIN that stays in the coordinator."""
    if span_kind not in SPAN_KINDS:
        raise ConfigError(f"span_kind '{span_kind}' is not one of {', '.join(SPAN_KINDS)}")
    if placement not in PLACEMENTS:
        raise ConfigError(f"placement '{placement}' is not one of {', '.join(PLACEMENTS)}")
    return {"span_kind": span_kind, "placement": placement}


def fact(type_name: str, key: str) -> str:
    """What the registration of `type_name` says of `key` (`span_kind`, `placement`), or the
    default when it says nothing or the type is not registered (an online trace's answers)."""
    meta: Mapping[str, Any] = TARGETS.entry(type_name).meta if type_name in TARGETS else {}
    return str(meta.get(key, _DEFAULTS[key]))


def _register(name: str, kind: str, summary: str, *args: Arg, span_kind: str,
              placement: str = "coordinator", **more: Any) -> None:
    module = "baseline" if name == "baseline-quote-agent" else name
    TARGETS.register(name, f"assay.targets.{module}:build", kind=kind, summary=summary,
                     args=(NAME, *args), meta=target_facts(span_kind=span_kind,
                                                           placement=placement), **more)


_register(
    "model", "model",
    "a registered model answering a prompt template filled from the item",
    Arg("model", True, "a name from the model registry"),
    Arg("prompt", help="user message template (default {prompt})"),
    Arg("system", help="system message template"),
    Arg("params", help="request parameters (temperature …)"),
    Arg("placeholders", help="single ({field}) or double ({{field}})"),
    span_kind="LLM")
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
    Arg("history", help="in a conversation: messages (the history as a messages array, "
        "default) or session (this turn's input and a session_id)"),
    Arg("end", help="JSONPath of the agent's end of a conversation: done or transfer "
        "(default $.end)"),
    TIMEOUT, span_kind="AGENT")
_register(
    "python", "agent",
    "a Python function, sync or async, given the item's fields",
    Arg("function", True, "module:function, relative to the spec's folder"),
    span_kind="CHAIN", placement="workers")
_register(
    "command", "agent",
    "a command per item: the item as JSON on stdin, the answer on stdout",
    Arg("command", True, "the command line, or a list of arguments"),
    TIMEOUT, span_kind="CHAIN", placement="workers")
_register(
    "recorded", "recorded",
    "answers already recorded, in a field of the items or in a file keyed by item id",
    Arg("field", help="the items' answer field (default response)"),
    Arg("file", help="a file of item_id, response rows"),
    span_kind="CHAIN")
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
    Arg("token_env", help="tushare: the environment variable holding the token"),
    span_kind="AGENT", placement="workers")
