"""Spans → whole traces. Exporters send a trace's spans in several requests, children usually
before their parent; a trace is complete when its root span (no parent) has arrived and no
span of it came for `quiet_s`. Spans whose root never comes are handed on after `orphan_s`
(read as an unknown shape, so they are reported, not lost).

Memory is bounded by count and by bytes (a span's bytes as sent, `SpanIn.size`):
- at most `max_traces` traces wait here; beyond that the oldest is given up (`evicted`);
- one trace holds at most `max_trace_bytes`: the span that would pass it gives the whole trace
  up (`oversized`, its id and size reported through `on_oversized`); its spans, those held and
  those that come later, are counted (`oversized_spans`), not kept — 600k spans of one trace
  once held 1.5 GB and stored 380 MB;
- the traces waiting here together with the bytes `held_elsewhere` (the evaluation queue) hold
  at most `max_pending_bytes`; beyond that the oldest waiting trace is given up (`evicted`).
A span of a trace already handed on is counted as late, not taken in again."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from assay.traces.otlp_in import SpanIn

UNBOUNDED = 1 << 62


@dataclass
class Pending:
    spans: list[SpanIn] = field(default_factory=list)
    first_at: float = 0.0
    last_at: float = 0.0
    has_root: bool = False
    size: int = 0  # bytes of its spans as sent


def trace_size(spans: list[SpanIn]) -> int:
    return sum(s.size for s in spans)


class Assembler:
    def __init__(self, *, quiet_s: float, orphan_s: float, max_traces: int,
                 remember: int = 20_000, max_trace_bytes: int = UNBOUNDED,
                 max_pending_bytes: int = UNBOUNDED,
                 held_elsewhere: Callable[[], int] = lambda: 0,
                 on_oversized: Callable[[str, int], None] | None = None) -> None:
        self.quiet_s = quiet_s
        self.orphan_s = orphan_s
        self.max_traces = max_traces
        self.max_trace_bytes = max_trace_bytes
        self.max_pending_bytes = max_pending_bytes
        self.held_elsewhere = held_elsewhere
        self.on_oversized = on_oversized
        self.pending: OrderedDict[str, Pending] = OrderedDict()
        # trace ids handed on (False) or given up as oversized (True), the newest
        self.done: OrderedDict[str, bool] = OrderedDict()
        self.remember = remember
        self.bytes = 0  # of the spans waiting here
        self.late_spans = 0
        self.evicted = 0  # traces given up because too many (or too many bytes) were waiting
        self.oversized = 0  # traces given up because one passed max_trace_bytes
        self.oversized_spans = 0  # spans of such traces, not kept (before and after the cut)

    def seen(self, trace_ids: list[str]) -> None:
        """Traces taken in before (a resumed run): their spans are late, not new."""
        for t in trace_ids:
            self._mark_done(t)

    def add(self, spans: list[SpanIn], now: float) -> None:
        for s in spans:
            given_up = self.done.get(s.trace_id)
            if given_up is not None:
                if given_up:
                    self.oversized_spans += 1
                else:
                    self.late_spans += 1
                continue
            p = self.pending.get(s.trace_id)
            if p is None:
                p = self.pending[s.trace_id] = Pending(first_at=now)
            if p.size + s.size > self.max_trace_bytes:
                self._give_up_oversized(s.trace_id, p.size + s.size)
                continue
            p.spans.append(s)
            p.size += s.size
            self.bytes += s.size
            p.last_at = now
            p.has_root = p.has_root or not s.parent_id
        while len(self.pending) > self.max_traces or (
                self.pending and self.bytes + self.held_elsewhere() > self.max_pending_bytes):
            tid, p = self.pending.popitem(last=False)
            self.bytes -= p.size
            self._mark_done(tid)
            self.evicted += 1

    def due(self, now: float) -> list[list[SpanIn]]:
        """The traces complete at `now`, taken out."""
        ready = [tid for tid, p in self.pending.items()
                 if (p.has_root and now - p.last_at >= self.quiet_s)
                 or now - p.first_at >= self.orphan_s]
        return [self._take(tid) for tid in ready]

    def drain(self) -> int:
        """Stop: the traces still waiting are given up; how many."""
        n = len(self.pending)
        for tid in list(self.pending):
            self._take(tid)
        return n

    def _give_up_oversized(self, tid: str, size: int) -> None:
        p = self.pending.pop(tid)
        self.bytes -= p.size
        self.oversized += 1
        self.oversized_spans += len(p.spans) + 1  # those held and the one that passed the cap
        self._mark_done(tid, oversized=True)
        if self.on_oversized is not None:
            self.on_oversized(tid, size)

    def _take(self, tid: str) -> list[SpanIn]:
        p = self.pending.pop(tid)
        self.bytes -= p.size
        self._mark_done(tid)
        return p.spans

    def _mark_done(self, tid: str, *, oversized: bool = False) -> None:
        self.done[tid] = oversized
        self.done.move_to_end(tid)
        if len(self.done) > self.remember:
            self.done.popitem(last=False)
