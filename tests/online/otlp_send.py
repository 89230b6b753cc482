"""Hand-made OTLP/HTTP export requests (protobuf or JSON, as the spec allows both), for the
tests and the bench."""

from __future__ import annotations

import json
import os
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PbSpan

from assay.traces.otlp_in import encode_kv


@dataclass
class S:
    trace_id: str
    span_id: str
    name: str
    parent_id: str = ""
    start_ns: int = 1_700_000_000_000_000_000
    end_ns: int = 1_700_000_001_000_000_000
    attributes: dict[str, Any] = field(default_factory=dict)
    status: int = 0  # OTLP status code: 0 unset, 1 ok, 2 error
    status_message: str = ""


def new_id(n: int) -> str:
    return os.urandom(n).hex()


def agent_trace(question: str, answer: str, *, service: str = "quote-agent",
                end_ns: int = 1_700_000_001_000_000_000, **root_attrs: Any) -> list[S]:
    """An OpenInference trace: an AGENT root holding the question and answer, and an LLM span."""
    tid, root = new_id(16), new_id(8)
    return [
        S(tid, new_id(8), "ChatCompletion", root, end_ns=end_ns - 1000, attributes={
            "openinference.span.kind": "LLM", "llm.model_name": "m1",
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": question,
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.content": answer}),
        S(tid, root, "agent", end_ns=end_ns, attributes={
            "openinference.span.kind": "AGENT", "input.value": question,
            "output.value": answer, "service": service, **root_attrs}),
    ]


def request(spans: list[S], service: str = "quote-agent") -> ExportTraceServiceRequest:
    req = ExportTraceServiceRequest()
    rs = req.resource_spans.add()
    rs.resource.attributes.append(encode_kv("service.name", service))
    ss = rs.scope_spans.add()
    for s in spans:
        p = ss.spans.add()
        p.trace_id = bytes.fromhex(s.trace_id)
        p.span_id = bytes.fromhex(s.span_id)
        if s.parent_id:
            p.parent_span_id = bytes.fromhex(s.parent_id)
        p.name = s.name
        p.kind = PbSpan.SPAN_KIND_INTERNAL
        p.start_time_unix_nano = s.start_ns
        p.end_time_unix_nano = s.end_ns
        for k, v in s.attributes.items():
            p.attributes.append(encode_kv(k, v))
        if s.status:
            p.status.code = s.status
            p.status.message = s.status_message
    return req


def as_json(spans: list[S], service: str = "quote-agent") -> bytes:
    """OTLP/JSON as exporters write it: camelCase keys, hex ids, values as AnyValue objects."""
    def value(v: Any) -> dict[str, Any]:
        if isinstance(v, bool):
            return {"boolValue": v}
        if isinstance(v, int):
            return {"intValue": str(v)}
        if isinstance(v, float):
            return {"doubleValue": v}
        return {"stringValue": str(v)}

    return json.dumps({"resourceSpans": [{
        "resource": {"attributes": [{"key": "service.name", "value": value(service)}]},
        "scopeSpans": [{"scope": {"name": "test"}, "spans": [{
            "traceId": s.trace_id, "spanId": s.span_id,
            **({"parentSpanId": s.parent_id} if s.parent_id else {}),
            "name": s.name, "kind": 1, "startTimeUnixNano": str(s.start_ns),
            "endTimeUnixNano": str(s.end_ns),
            "attributes": [{"key": k, "value": value(v)} for k, v in s.attributes.items()]}
            for s in spans]}]}]}).encode()


def post(endpoint: str, body: bytes, content_type: str = "application/x-protobuf",
         **headers: str) -> tuple[int, bytes]:
    req = urllib.request.Request(endpoint, data=body, method="POST",
                                 headers={"Content-Type": content_type, **headers})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def send(endpoint: str, spans: list[S], service: str = "quote-agent") -> None:
    status, body = post(endpoint, request(spans, service).SerializeToString())
    assert status == 200, body
