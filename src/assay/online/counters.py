"""What an online run counts, kept in the run's summary (`online`): every trace received is
either evaluated, or counted under the reason it was not."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

REASONS_KEPT = 10


@dataclass
class Counters:
    requests: int = 0  # OTLP export requests received
    bad_requests: int = 0  # refused: 400 (not OTLP), 401 (no token), 413 (too large), 415
    spans: int = 0
    traces: int = 0  # complete traces the assembler handed on
    filtered_out: int = 0  # not matching the spec's filter
    sampled_out: int = 0  # left out by the spec's seeded sample fraction
    dropped: int = 0  # backpressure: evaluation behind, the trace sampled down
    dropped_waiting: int = 0  # too many incomplete traces waiting: the oldest given up
    dropped_at_stop: int = 0  # received, not evaluated when the watch stopped (not resumed)
    oversized: int = 0  # traces whose spans passed max_trace_mb: given up, not stored
    oversized_spans: int = 0  # the spans of those traces, not kept
    late_spans: int = 0  # spans of a trace already handed on
    duplicates: int = 0  # complete traces the run already holds (sent again), not taken twice
    unknown: int = 0  # traces of an unknown shape: stored with the reason, not scored
    failed: int = 0  # traces whose evaluation raised (the reason below)
    evaluated: int = 0
    reasons: list[str] = field(default_factory=list)  # the last unknown shapes and failures

    def note(self, reason: str) -> None:
        self.reasons.append(reason[:300])
        del self.reasons[:-REASONS_KEPT]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Counters:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})
