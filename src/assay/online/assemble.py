"""Spans → whole traces. Exporters send a trace's spans in several requests, children usually
before their parent; a trace is complete when its root span (no parent) has arrived and no
span of it came for `quiet_s`. Spans whose root never comes are handed on after `orphan_s`
(read as an unknown shape, so they are reported, not lost).

Memory is bounded: at most `max_traces` traces wait here; beyond that the oldest is dropped
and counted. A span of a trace already handed on is counted as late, not taken in again."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from .otlp_in import SpanIn


@dataclass
class Pending:
    spans: list[SpanIn] = field(default_factory=list)
    first_at: float = 0.0
    last_at: float = 0.0
    has_root: bool = False


class Assembler:
    def __init__(self, *, quiet_s: float, orphan_s: float, max_traces: int,
                 remember: int = 20_000) -> None:
        self.quiet_s = quiet_s
        self.orphan_s = orphan_s
        self.max_traces = max_traces
        self.pending: OrderedDict[str, Pending] = OrderedDict()
        self.done: OrderedDict[str, None] = OrderedDict()  # trace ids handed on, the newest
        self.remember = remember
        self.late_spans = 0
        self.evicted = 0  # traces dropped because too many were waiting

    def seen(self, trace_ids: list[str]) -> None:
        """Traces taken in before (a resumed run): their spans are late, not new."""
        for t in trace_ids:
            self._mark_done(t)

    def add(self, spans: list[SpanIn], now: float) -> None:
        for s in spans:
            if s.trace_id in self.done:
                self.late_spans += 1
                continue
            p = self.pending.get(s.trace_id)
            if p is None:
                p = self.pending[s.trace_id] = Pending(first_at=now)
            p.spans.append(s)
            p.last_at = now
            p.has_root = p.has_root or not s.parent_id
        while len(self.pending) > self.max_traces:
            tid, _ = self.pending.popitem(last=False)
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

    def _take(self, tid: str) -> list[SpanIn]:
        spans = self.pending.pop(tid).spans
        self._mark_done(tid)
        return spans

    def _mark_done(self, tid: str) -> None:
        self.done[tid] = None
        if len(self.done) > self.remember:
            self.done.popitem(last=False)
