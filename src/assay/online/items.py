"""A complete agent trace → what the store keeps of it: the item's fields (question, answer,
answer time, model and tool calls, the root span's short attributes), the agent's spans as span
rows beside Assay's, and the spec's filter and seeded sample."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from assay.traces.otlp_in import SANITIZED, SpanIn
from assay.traces.semconv import KIND

from .reading import Reading, root_of

SKIPPED = ("input.", "output.", "llm.", "gen_ai.", "assay.")  # read into the item, or ours


def sampled(seed: int, trace_id: str, fraction: float) -> bool:
    if fraction >= 1.0:
        return True
    h = hashlib.blake2b(f"{seed}:{trace_id}".encode(), digest_size=8).digest()
    return int.from_bytes(h, "big") / 2**64 < fraction


def item_fields(r: Reading, spans: list[SpanIn], reference: str | None) -> dict[str, Any]:
    """The item of a trace that was read (unknown shapes too: what could be read)."""
    root = r.root or spans[0]
    answered = r.answered_at_ns / 1e9 if r.answered_at_ns else None
    fields: dict[str, Any] = {
        "prompt": r.question, "input": r.question, "response": r.answer,
        "trace_id": root.trace_id, "service": root.resource.get("service.name"),
        "answered_at": datetime.fromtimestamp(answered, UTC).isoformat()
        if answered else None, "answered_at_s": answered,
        "conventions": r.conventions, "spans": len(spans),
        "model_calls": [_times(m) for m in r.model_calls],
        "tool_calls": [_times(t) for t in r.tool_calls]}
    if reference is not None:
        fields["response_reference"] = reference
    if any(s.attributes.get(SANITIZED) for s in spans):  # as a target's answer says it
        fields["sanitized"] = True
    # the root span's own short attributes, as `span.NAME` fields: an agent that knows its
    # instrument can say so (`truth: {field: span.quote.code}`), and filters can read them
    for k, v in root.attributes.items():
        if isinstance(v, str | int | float | bool) and not k.startswith(SKIPPED) \
                and len(str(v)) <= 256:
            fields[f"span.{k}"] = v
    return fields


def _times(call: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in call.items() if not k.endswith("_ns")}
    out["start"] = call["start_ns"] / 1e9
    out["end"] = call["end_ns"] / 1e9
    return out


def matches(spans: list[SpanIn], flt: dict[str, list[Any]]) -> bool:
    """Every filter key matches the trace's resource or its root span's attributes."""
    root = root_of(spans) or spans[0]
    for key, allowed in flt.items():
        value = root.resource.get(key, root.attributes.get(key))
        if value not in allowed and str(value) not in {str(a) for a in allowed}:
            return False
    return True


def agent_row(run_id: str, item_id: str, s: SpanIn) -> dict[str, Any]:
    """An agent's span as the store keeps spans: kind `agent.<kind>` (OpenInference span kind,
    else the GenAI operation, else `span`), beside Assay's own spans of the sample."""
    a = s.attributes
    kind = str(a.get(KIND) or a.get("gen_ai.operation.name") or "span").lower()
    attrs: dict[str, Any] = {"agent": True, "service.name": s.resource.get("service.name"),
                             "scope": s.scope, **a}
    if s.events:
        attrs["events"] = s.events
    if s.status_message:
        attrs["status_message"] = s.status_message
    return {"span_id": s.span_id, "trace_id": s.trace_id, "parent_id": s.parent_id,
            "run_id": run_id, "item_id": item_id, "kind": f"agent.{kind}"[:32],
            "name": s.name[:255] or "(unnamed)", "start_at": s.start_ns / 1e9,
            "end_at": s.end_ns / 1e9 if s.end_ns else None,
            "status": "error" if s.status == 2 else "ok", "attributes": attrs}
