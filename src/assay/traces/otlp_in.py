"""OTLP/HTTP trace export requests (protobuf or JSON) → plain spans.

Decoded with `opentelemetry-proto`'s message classes. OTLP/JSON differs from protobuf's own
JSON mapping in one place: trace and span ids are hex, not base64 — they are turned into
base64 before `json_format` parses the request.

This is where an agent's text enters Assay, so it is made safe here, once, by the boundary
`assay run` applies to targets' answers (core/text.py): a NUL (which PostgreSQL refuses) or an
unpaired surrogate in a name, an attribute key or value, an event or a status message is
replaced by U+FFFD, and the span says so (`assay.sanitized`). Other control characters are kept
as sent (the answer as the agent gave it); they are escaped where they are printed."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field, replace
from typing import Any

import orjson
from google.protobuf import json_format
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from assay.core.errors import DataError
from assay.core.text import safe_text, safe_value

SANITIZED = "assay.sanitized"  # on a span whose text was made safe at the boundary


@dataclass(slots=True)
class SpanIn:
    """One received span, as plain data."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    resource: dict[str, Any]
    kind: int = 0
    status: int = 0  # OTLP status code: 0 unset, 1 ok, 2 error
    status_message: str = ""
    scope: str = ""
    events: list[dict[str, Any]] = field(default_factory=list)
    size: int = 0  # its bytes as sent (protobuf): what the receiver's byte caps count


def decode(body: bytes, content_type: str) -> list[SpanIn]:
    """The spans of one export request; a body that is not one raises DataError (the receiver
    answers 400 with its message)."""
    req = ExportTraceServiceRequest()
    kind = content_type.split(";")[0].strip().lower()
    if kind == "application/json":
        try:
            data = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            raise DataError(f"OTLP/JSON body is not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise DataError("OTLP/JSON body is not an object")
        try:
            json_format.ParseDict(_ids_to_base64(data), req, ignore_unknown_fields=True)
        except (json_format.ParseError, ValueError, TypeError) as exc:
            raise DataError(f"OTLP/JSON body is not an export request: {exc}") from None
    elif kind in ("application/x-protobuf", "application/protobuf"):
        try:
            req.ParseFromString(body)
        except DecodeError as exc:
            raise DataError(f"OTLP protobuf body does not decode: {exc}") from None
    else:
        raise DataError(f"unsupported content type '{content_type}' (OTLP/HTTP sends "
                        "application/x-protobuf or application/json)")
    out: list[SpanIn] = []
    for rs in req.resource_spans:
        resource = attributes(rs.resource.attributes)
        for ss in rs.scope_spans:
            scope = ss.scope.name
            for s in ss.spans:
                trace_id, span_id, parent_id = s.trace_id, s.span_id, s.parent_span_id
                if len(trace_id) != 16 or not any(trace_id) or len(span_id) != 8 \
                        or not any(span_id) or len(parent_id) not in (0, 8):
                    # an empty id was stored as trace ""; a longer one overflowed the store's
                    # varchar(32) on PostgreSQL and ended the watch
                    raise DataError(f"span '{s.name[:80]}': trace_id must be 16 bytes and "
                                    "span_id 8 (parent_span_id 8 or none), not empty or all "
                                    "zero (OTLP)")
                status = s.status
                out.append(SpanIn(
                    trace_id=trace_id.hex(), span_id=span_id.hex(),
                    parent_id=parent_id.hex() or None, name=s.name,
                    start_ns=s.start_time_unix_nano, end_ns=s.end_time_unix_nano,
                    attributes=attributes(s.attributes), resource=resource, kind=s.kind,
                    status=status.code, status_message=status.message, scope=scope,
                    events=[{"name": e.name, "time_ns": e.time_unix_nano,
                             "attributes": attributes(e.attributes)} for e in s.events],
                    size=s.ByteSize()))
    # the text of the whole request checked at once (in C, core/text.py); only a request with
    # something to replace is gone through span by span
    if safe_value([(sp.name, sp.attributes, sp.status_message, sp.events, sp.scope,
                    sp.resource) for sp in out])[1]:
        out = [_settled(sp) for sp in out]
    return out


def _settled(sp: SpanIn) -> SpanIn:
    """A span with its text made safe — its resource's and scope's too — marked when any was."""
    resource, c0 = safe_value(sp.resource)
    scope, c1 = safe_text(sp.scope)
    name, c2 = safe_text(sp.name)
    attrs, c3 = safe_value(sp.attributes)
    message, c4 = safe_text(sp.status_message)
    events, c5 = safe_value(sp.events)
    if not (c0 or c1 or c2 or c3 or c4 or c5):
        return sp
    return replace(sp, resource=resource, scope=scope, name=name,
                   attributes={**attrs, SANITIZED: True}, status_message=message,
                   events=events)


def attributes(kvs: Any) -> dict[str, Any]:
    return {kv.key: value(kv.value) for kv in kvs}


def value(v: AnyValue) -> Any:
    which = v.WhichOneof("value")
    if which is None:
        return None
    if which == "array_value":
        return [value(x) for x in v.array_value.values]
    if which == "kvlist_value":
        return {kv.key: value(kv.value) for kv in v.kvlist_value.values}
    if which == "bytes_value":
        return v.bytes_value.hex()
    return getattr(v, which)


_ID_KEYS = ("traceId", "spanId", "parentSpanId", "trace_id", "span_id", "parent_span_id")


def _ids_to_base64(data: dict[str, Any]) -> dict[str, Any]:
    for rs in _list(data, "resourceSpans", "resource_spans"):
        for ss in _list(rs, "scopeSpans", "scope_spans"):
            for span in _list(ss, "spans"):
                _fix(span)
                for link in _list(span, "links"):
                    _fix(link)
    return data


def _list(d: Any, *keys: str) -> list[Any]:
    if not isinstance(d, dict):
        return []
    for k in keys:
        v = d.get(k)
        if isinstance(v, list):
            return v
    return []


def _fix(d: Any) -> None:
    if not isinstance(d, dict):
        return
    for k in _ID_KEYS:
        v = d.get(k)
        if isinstance(v, str) and v:
            try:
                d[k] = base64.b64encode(bytes.fromhex(v)).decode()
            except ValueError:
                raise DataError(f"OTLP/JSON {k} '{v[:40]}' is not hex") from None


def encode_kv(key: str, v: Any) -> KeyValue:
    """A KeyValue from a Python value (strings, numbers, booleans)."""
    kv = KeyValue(key=key)
    if isinstance(v, bool):
        kv.value.bool_value = v
    elif isinstance(v, int):
        kv.value.int_value = v
    elif isinstance(v, float):
        kv.value.double_value = v
    else:
        kv.value.string_value = str(v)
    return kv
