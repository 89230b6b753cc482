"""Reading an agent's trace: the user's question, the final answer, the answer's time, the
model calls and the tool calls — by the OpenInference conventions (`openinference.span.kind`,
`input.value`, `output.value`, `llm.*`) and the OpenTelemetry GenAI ones (`gen_ai.*`: message
attributes, or the prompt/completion events when an instrumentor puts them on the span).

A trace that gives no question or no answer is an unknown shape: `Reading.unknown` says why
in one line; the caller stores and counts it, never drops it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson
from openinference.semconv.trace import SpanAttributes, ToolAttributes
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as GA

from assay.traces.otlp_in import SpanIn
from assay.traces.semconv import CONTENT, IN, KIND, OUT, ROLE

IN_MSGS = SpanAttributes.LLM_INPUT_MESSAGES
OUT_MSGS = SpanAttributes.LLM_OUTPUT_MESSAGES
# GenAI message events, as instrumentors emitted them before the message attributes
USER_EVENTS = ("gen_ai.user.message",)
CHOICE_EVENTS = ("gen_ai.choice", "gen_ai.assistant.message")


@dataclass
class Reading:
    question: str | None = None
    answer: str | None = None
    answered_at_ns: int = 0
    root: SpanIn | None = None
    model_calls: list[dict[str, Any]] = field(default_factory=list)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    conventions: list[str] = field(default_factory=list)  # openinference, gen_ai
    unknown: str | None = None  # why the trace could not be read, in one line


def root_of(spans: list[SpanIn]) -> SpanIn | None:
    """The span without a parent (the earliest, if a trace has several)."""
    roots = [s for s in spans if not s.parent_id]
    return min(roots, key=lambda s: s.start_ns) if roots else None


def read_trace(spans: list[SpanIn]) -> Reading:
    r = Reading()
    r.root = root_of(spans)
    if r.root is None:
        r.unknown = f"no root span (a span without parent) among {len(spans)} spans"
        return r
    r.answered_at_ns = r.root.end_ns
    ordered = sorted(spans, key=lambda s: s.start_ns)
    conventions = set()
    for s in ordered:
        a = s.attributes
        if KIND in a:
            conventions.add("openinference")
        if any(k.startswith("gen_ai.") for k in a):
            conventions.add("gen_ai")
        if _is_model(s):
            r.model_calls.append(_model_call(s))
        elif _is_tool(s):
            r.tool_calls.append(_tool_call(s))
    r.conventions = sorted(conventions)
    root = r.root.attributes
    r.question = _text(root.get(IN), root.get(SpanAttributes.INPUT_MIME_TYPE), want="user")
    r.answer = _text(root.get(OUT), root.get(SpanAttributes.OUTPUT_MIME_TYPE),
                     want="assistant")
    models = [s for s in ordered if _is_model(s)]
    if r.question is None:
        r.question = next((q for q in (_user_message(s) for s in models) if q), None)
    if r.answer is None:
        # the final answer: the last model reply of the trace
        r.answer = next((t for t in (_assistant_message(s) for s in reversed(models)) if t),
                        None)
    if r.question is None or r.answer is None:
        missing = "question" if r.question is None else "answer"
        if not models and not conventions:
            r.unknown = (f"no {missing}: the root span '{r.root.name}' has no {IN}/{OUT} "
                         f"and no span follows OpenInference or OTel GenAI")
        elif models and not any(_has_content(s) for s in models):
            r.unknown = (f"no {missing}: the model spans carry no message content (OTel GenAI: "
                         "set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY and "
                         "OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental)")
        else:
            r.unknown = (f"no {missing}: neither the root span '{r.root.name}' nor a model span "
                         f"holds the user's {missing}")
    return r


def _is_model(s: SpanIn) -> bool:
    a = s.attributes
    return a.get(KIND) == "LLM" or a.get(GA.GEN_AI_OPERATION_NAME) in (
        "chat", "text_completion", "generate_content")


def _is_tool(s: SpanIn) -> bool:
    a = s.attributes
    return a.get(KIND) == "TOOL" or a.get(GA.GEN_AI_OPERATION_NAME) == "execute_tool"


def _has_content(s: SpanIn) -> bool:
    return _user_message(s) is not None or _assistant_message(s) is not None


def _model_call(s: SpanIn) -> dict[str, Any]:
    a = s.attributes
    return {"span_id": s.span_id, "name": s.name,
            "model": a.get(SpanAttributes.LLM_MODEL_NAME) or a.get(GA.GEN_AI_RESPONSE_MODEL)
            or a.get(GA.GEN_AI_REQUEST_MODEL),
            "input_tokens": a.get(SpanAttributes.LLM_TOKEN_COUNT_PROMPT,
                                  a.get(GA.GEN_AI_USAGE_INPUT_TOKENS)),
            "output_tokens": a.get(SpanAttributes.LLM_TOKEN_COUNT_COMPLETION,
                                   a.get(GA.GEN_AI_USAGE_OUTPUT_TOKENS)),
            "start_ns": s.start_ns, "end_ns": s.end_ns}


def _tool_call(s: SpanIn) -> dict[str, Any]:
    a = s.attributes
    return {"span_id": s.span_id,
            "name": a.get(ToolAttributes.TOOL_NAME) or a.get(GA.GEN_AI_TOOL_NAME) or s.name,
            "arguments": a.get(SpanAttributes.TOOL_PARAMETERS) or a.get(
                GA.GEN_AI_TOOL_CALL_ARGUMENTS) or a.get(IN),
            "result": a.get(GA.GEN_AI_TOOL_CALL_RESULT) or a.get(OUT),
            "start_ns": s.start_ns, "end_ns": s.end_ns,
            # a span whose status is error: the call failed (no-tool-errors reads this)
            **({"error": s.status_message or a.get("error.type") or "error"}
               if s.status == 2 else {})}


def _indexed(a: dict[str, Any], prefix: str, role: str = ROLE, content: str = CONTENT
             ) -> list[tuple[str | None, str | None]]:
    """Flattened messages: OpenInference's `llm.input_messages.0.message.role` …, or (with
    `role`/`content` given) OpenLLMetry's `gen_ai.prompt.0.role` …"""
    out: list[tuple[str | None, str | None]] = []
    i = 0
    while f"{prefix}.{i}.{role}" in a or f"{prefix}.{i}.{content}" in a:
        out.append((a.get(f"{prefix}.{i}.{role}"), a.get(f"{prefix}.{i}.{content}")))
        i += 1
    return out


def _user_message(s: SpanIn) -> str | None:
    a = s.attributes
    msgs = _indexed(a, IN_MSGS) or _gen_ai_messages(a.get(GA.GEN_AI_INPUT_MESSAGES))
    if not msgs:
        msgs = _indexed(a, GA.GEN_AI_PROMPT, "role", "content")  # OpenLLMetry
    if not msgs:
        msgs = [("user", _event_content(e)) for e in s.events if e["name"] in USER_EVENTS]
    if not msgs and IN in a:
        msgs = _request_messages(a[IN])
    return next((c for role, c in reversed(msgs) if role == "user" and c), None)


def _assistant_message(s: SpanIn) -> str | None:
    a = s.attributes
    msgs = _indexed(a, OUT_MSGS) or _gen_ai_messages(a.get(GA.GEN_AI_OUTPUT_MESSAGES))
    if not msgs:
        msgs = _indexed(a, GA.GEN_AI_COMPLETION, "role", "content")
    if not msgs:
        msgs = [("assistant", _event_content(e)) for e in s.events if e["name"] in CHOICE_EVENTS]
    return next((c for role, c in reversed(msgs) if role in (None, "assistant") and c), None)


def _gen_ai_messages(value: Any) -> list[tuple[str | None, str | None]]:
    """`gen_ai.input.messages` / `gen_ai.output.messages`: JSON of {role, parts: [{type,
    content}]} (the text parts joined)."""
    data = _json(value) if isinstance(value, str) else value
    if not isinstance(data, list):
        return []
    out: list[tuple[str | None, str | None]] = []
    for m in data:
        if not isinstance(m, dict):
            continue
        parts = m.get("parts")
        text: str | None
        if isinstance(parts, list):
            text = "".join(str(p.get("content", "")) for p in parts
                           if isinstance(p, dict) and p.get("type", "text") == "text")
        else:
            text = m.get("content") if isinstance(m.get("content"), str) else None
        out.append((m.get("role"), text or None))
    return out


def _event_content(e: dict[str, Any]) -> str | None:
    a = e["attributes"]
    content = a.get("content")
    if content is None and "message" in a:  # gen_ai.choice: {"message": {"content": …}}
        msg = _json(a["message"]) if isinstance(a["message"], str) else a["message"]
        content = msg.get("content") if isinstance(msg, dict) else None
    return content if isinstance(content, str) else None


def _request_messages(value: Any) -> list[tuple[str | None, str | None]]:
    data = _json(value) if isinstance(value, str) else None
    msgs = data.get("messages") if isinstance(data, dict) else None
    if not isinstance(msgs, list):
        return []
    return [(m.get("role"), m.get("content") if isinstance(m.get("content"), str) else None)
            for m in msgs if isinstance(m, dict)]


def _text(value: Any, mime: Any, *, want: str) -> str | None:
    """A root span's `input.value`/`output.value`: plain text, or the JSON of a chat request
    or response (then the user's last message, or the reply)."""
    if not isinstance(value, str) or not value.strip():
        return None
    if mime != "application/json":
        return value
    data = _json(value)
    if isinstance(data, str):
        return data
    if isinstance(data, dict):
        if want == "user":
            msgs = _request_messages(value)
            found = next((c for role, c in reversed(msgs) if role == "user" and c), None)
            if found:
                return found
        choices = data.get("choices")
        if want == "assistant" and isinstance(choices, list) and choices:
            msg = choices[0].get("message") if isinstance(choices[0], dict) else None
            if isinstance(msg, dict) and isinstance(msg.get("content"), str):
                return str(msg["content"])
        for key in ("question", "input", "query") if want == "user" else (
                "answer", "output", "response"):
            if isinstance(data.get(key), str):
                return str(data[key])
    return None


def _json(text: str) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
