"""Optional OpenTelemetry export: a run's spans, as stored, sent to an OTLP/HTTP endpoint
(Jaeger, Tempo, Langfuse, an OpenTelemetry Collector …) when the user configures one — the
spec's `otlp:` key or the standard OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT variables. Spans carry
the OpenInference and OpenTelemetry GenAI attributes viewers read (traces/semconv.py) beside
Assay's own `assay.*`; outgoing calls are CLIENT spans, the rest INTERNAL.

Spans are exported after they are stored, from the store, so a slow or absent collector can
never slow or lose a run. Their ids are the stored ones (OpenTelemetry's sizes), and every
attribute is a primitive, as OTLP requires (structures become JSON text). Authentication
headers come from OTEL_EXPORTER_OTLP_HEADERS, read by the exporter; Assay stores none."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from assay.core.errors import ConfigError
from assay.core.registry import install_hint
from assay.store import repo
from assay.store.db import Engine
from assay.store.rows import aware

from . import semconv_llm
from .implied import with_conventions

BATCH = 512


def endpoint_from_env() -> str | None:
    traces = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    if traces:
        return traces
    base = os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
    return base.rstrip("/") + "/v1/traces" if base else None


def _ns(t: datetime | None) -> int | None:
    if t is None:
        return None
    if t.tzinfo is None:  # SQLite returns stored UTC times without their zone
        t = t.replace(tzinfo=UTC)
    return int(t.timestamp() * 1e9)


def _attr(value: Any) -> Any:
    if isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return tuple(value)  # a string array, as the conventions type some (finish reasons)
    return json.dumps(value, ensure_ascii=False, default=str)


def _name(key: str) -> str:
    """A stored attribute's exported name: dotted keys are a convention's (OpenInference,
    GenAI) or already `assay.*`; Assay's own plain keys get the `assay.` prefix."""
    return key if "." in key else f"assay.{key}"


def _client(row: dict[str, Any]) -> bool:
    """Outgoing calls are CLIENT spans: each model request, and an HTTP agent's call."""
    return row["kind"] == "model.request" or (
        row["kind"] == "target" and (row["attributes"] or {}).get("type") == "http")


def export_spans(rows: Iterable[dict[str, Any]], endpoint: str, *,
                 run_id: str, timeout_s: float = 10.0) -> int:
    """Send stored span rows; returns how many were accepted. Raises ConfigError when the
    optional packages are missing or the collector refuses them."""
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import ReadableSpan
        from opentelemetry.sdk.trace.export import SpanExportResult
        from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags
    except ImportError:
        raise ConfigError(f"OTLP export needs the otel extra: {install_hint('otel')}") \
            from None
    from openinference.semconv.resource import ResourceAttributes

    import assay

    # the project Phoenix files the traces under (others read service.name)
    resource = Resource.create({"service.name": "assay", "service.version": assay.__version__,
                                ResourceAttributes.PROJECT_NAME: "assay",
                                "assay.run_id": run_id})
    exporter = OTLPSpanExporter(endpoint=endpoint, timeout=timeout_s)
    # the exporter logs its own line per failed batch; Assay reports one, with the count
    logging.getLogger(OTLPSpanExporter.__module__).setLevel(logging.CRITICAL)
    sent = 0
    batch: list[Any] = []

    def flush() -> None:
        nonlocal sent
        if not batch:
            return
        if exporter.export(batch) is not SpanExportResult.SUCCESS:
            raise ConfigError(f"OTLP endpoint {endpoint} did not accept the spans "
                              f"({sent} sent before)")
        sent += len(batch)
        batch.clear()

    try:
        for r in rows:
            trace_id, span_id = int(r["trace_id"], 16), int(r["span_id"], 16)
            ctx = SpanContext(trace_id, span_id, is_remote=False,
                              trace_flags=TraceFlags(TraceFlags.SAMPLED))
            parent = (SpanContext(trace_id, int(r["parent_id"], 16), is_remote=False)
                      if r["parent_id"] else None)
            attrs = {_name(k): _attr(v)
                     for k, v in semconv_llm.expand(r["attributes"] or {}).items()
                     if v is not None}
            attrs.update({"assay.run_id": run_id, "assay.item_id": r["item_id"] or "",
                          "assay.kind": r["kind"]})
            batch.append(ReadableSpan(
                f"{r['kind']} {r['name']}", context=ctx, parent=parent, resource=resource,
                attributes=attrs, start_time=_ns(r["start_at"]), end_time=_ns(r["end_at"]),
                kind=SpanKind.CLIENT if _client(r) else SpanKind.INTERNAL,
                status=Status(StatusCode.ERROR if r["status"] == "error" else StatusCode.OK)))
            if len(batch) >= BATCH:
                flush()
        flush()
    finally:
        exporter.shutdown()  # type: ignore[no-untyped-call]
    return sent


async def export_new_spans(engine: Engine, run_id: str, endpoint: str,
                           exported_until: str | None) -> str:
    """Send every span of the run not sent yet: a run killed before its export, or whose
    collector refused it, sends its earlier spans with the next resume; none is sent twice.
    Returns what happened, for the run's report (a refusal does not fail the stored run)."""
    since = datetime.fromisoformat(exported_until) if exported_until else None
    rows = with_conventions(engine, run_id, [
        s for s in repo.list_spans(engine, run_id)
        if since is None or aware(s["start_at"]) > since])
    try:
        sent = await asyncio.to_thread(export_spans, rows, endpoint, run_id=run_id)
    except ConfigError as exc:
        return f"OTLP export failed: {exc}"
    if rows:
        newest = max(aware(s["start_at"]) for s in rows).isoformat()
        repo.merge_summary(engine, run_id, {"otlp_exported_until": newest})
    return f"{sent} spans sent to {endpoint}"
