"""The trace model (可追溯): every sample — (item, target, epoch) — gets a trace of spans:
the target call and each of its model requests (retries included), the ground truth used, and
each evaluator with its render, model requests and parse. Times are wall-clock seconds while
running and become UTC datetimes when written.

Span and trace ids have OpenTelemetry's sizes (8 and 16 bytes, hex), so a trace can be exported
as OTLP unchanged. Attribute keys without a dot are Assay's own (the UI reads them; the export
names them `assay.KEY`); dotted keys are a convention's names (traces/semconv.py: OpenInference,
OpenTelemetry GenAI) or `assay.*` ones, exported as they are."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

from assay.core.model_call import ModelCall
from assay.core.types import Answer

from . import semconv

# Ids need to be unique, not secret: the process's Mersenne Twister (seeded from os.urandom)
# gives them without a system call per span.
_bits = random.SystemRandom().getrandbits(64)
_rng = random.Random(_bits)


def _hex(n: int) -> str:
    return f"{_rng.getrandbits(n * 8):0{n * 2}x}"


class Trace:
    __slots__ = ("item_id", "root", "rows", "run_id", "trace_id")

    def __init__(self, run_id: str, item_id: str) -> None:
        self.run_id = run_id
        self.item_id = item_id
        self.trace_id = _hex(16)
        self.root = _hex(8)
        self.rows: list[dict[str, Any]] = []

    def span(self, kind: str, name: str, start: float, end: float | None, *,
             status: str = "ok", parent: str | None = None,
             attributes: dict[str, Any] | None = None, span_id: str | None = None) -> str:
        sid = span_id or _hex(8)
        self.rows.append({
            "span_id": sid, "trace_id": self.trace_id,
            "parent_id": self.root if parent is None and sid != self.root else parent,
            "run_id": self.run_id, "item_id": self.item_id, "kind": kind, "name": name,
            # wall-clock seconds: the store turns them into times in bulk when it writes
            "start_at": start, "end_at": end,
            "status": status, "attributes": attributes or {}})
        return sid

    def requests(self, call: ModelCall, parent: str, common: dict[str, Any] | None = None,
                 answered: dict[str, Any] | None = None) -> None:
        """One span per model request, from the call's attempts: each carries the request's
        convention attributes (`common`), the answered one its reply (`answered`)."""
        model = call.name
        for n, a in enumerate(call.attempts):
            if a.start is None:
                continue
            attrs: dict[str, Any] = {"attempt": n + 1, "outcome": a.outcome, "model": model}
            if a.retry_in_s is not None:
                attrs["retry_in_s"] = a.retry_in_s
            if common:
                attrs.update(common)
            if a.ok and answered:
                attrs.update(answered)
            self.span("model.request", model, a.start, a.end,
                      status="ok" if a.ok else "error", parent=parent, attributes=attrs)

    def end(self, span_id: str, end: float) -> None:
        """A span opened with no end (a conversation's turn, whose children come first)
        ends now; a span already taken (written) is left as it was."""
        for row in self.rows:
            if row["span_id"] == span_id:
                row["end_at"] = end
                return

    def take(self) -> list[dict[str, Any]]:
        rows, self.rows = self.rows, []
        return rows


def to_datetime(t: float) -> datetime:
    """Wall-clock seconds → an aware UTC datetime, as the store keeps times."""
    return datetime.fromtimestamp(t, UTC)


def worker_place(answer: Answer) -> dict[str, Any]:
    """The host and pid of the Ray worker that answered (executor: ray), for the span."""
    place = answer.extras.get("ray_worker") if answer.extras else None
    if not isinstance(place, dict):
        return {}
    return {"worker.host": place.get("host"), "worker.pid": place.get("pid")}


def tool_spans(trace: Trace, calls: list[dict[str, Any]], parent: str, t0: float, t1: float,
                attrs: dict[str, Any]) -> None:
    """An agent's reported tool calls as TOOL spans under its target span. Times are the
    agent's own; a call without them spans the target call (`timed` false)."""
    for call in calls:
        start: float | None = call.get("start")
        end: float | None = call.get("end")
        timed = start is not None
        begin = start if start is not None else t0
        trace.span("tool", str(call.get("name", "?")), begin,
                   end if end is not None else (begin if timed else t1),
                   status="error" if call.get("error") else "ok", parent=parent,
                   attributes={**attrs, "timed": timed, "error": call.get("error"),
                               **semconv.tool(call)})
