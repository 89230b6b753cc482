"""One item as people read it: the values the rubric read marked in the text it read, the gap
between the ground truth and the answer in words, and the spans as a waterfall. Pure functions
over stored rows, shared by the UI's item page and anything else that shows an item."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from assay.core import humane
from assay.core.conversation import plan_of
from assay.core.errors import ConfigError
from assay.core.types import Item, is_conversation


def marked(text: str, values: list[dict[str, Any]], ignored: list[dict[str, Any]] | None = None
           ) -> list[dict[str, Any]]:
    """`text` cut into segments: plain ones, and the spans [start, end) of the rubric's value
    rows (`mark`: the row's index, `kind`: "pass" / "fail") and of the values it set aside
    (`kind`: "ignored", `why`). Spans that overlap an earlier one or fall outside the text are
    left unmarked; the text is never altered, only cut."""
    spans: list[tuple[int, int, dict[str, Any]]] = []
    for i, v in enumerate(values):
        s = _span(v, len(text))
        if s:
            spans.append((*s, {"mark": i, "kind": "pass" if v.get("pass") else "fail",
                               "field": v.get("field")}))
    for v in ignored or []:
        s = _span(v, len(text))
        if s:
            spans.append((*s, {"mark": None, "kind": "ignored", "why": v.get("why"),
                               "field": v.get("field")}))
    spans.sort(key=lambda s: (s[0], -s[1]))
    out: list[dict[str, Any]] = []
    at = 0
    for start, end, info in spans:
        if start < at:
            continue  # overlaps what is already marked
        if start > at:
            out.append({"text": text[at:start], "kind": None})
        out.append({"text": text[start:end], **info})
        at = end
    if at < len(text):
        out.append({"text": text[at:], "kind": None})
    return out


def _span(v: dict[str, Any], n: int) -> tuple[int, int] | None:
    span = v.get("span")
    if not isinstance(span, list | tuple) or len(span) != 2:
        return None
    try:
        start, end = int(span[0]), int(span[1])
    except (TypeError, ValueError):
        return None
    return (start, end) if 0 <= start < end <= n else None


def turn_ground_truth(item: Item | None, number: int) -> Any:
    """A scripted conversation turn's stored `ground_truth`: the turn's own, else the
    conversation's; None when neither has one (or the item is no conversation)."""
    if item is None or not is_conversation(item):
        return None
    try:
        script = plan_of(item).script
    except ConfigError:
        return None
    own = script[number - 1].fields if 0 < number <= len(script) else {}
    return own.get("ground_truth", item.fields.get("ground_truth"))


def humane_gap(gap_s: float | None) -> str | None:
    """fetched_at − answered_at in words (core/humane.py, as `assay show` says it)."""
    return None if gap_s is None else humane.gap(gap_s)


def is_stale(gap_s: float | None, limit_s: float = humane.STALE_S) -> bool:
    """The snapshot is much older than the answer: it cannot be the quote the answer saw."""
    return humane.stale(gap_s, limit_s)


def waterfall(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Spans (tree-ordered, with `depth`) with their start offset and duration as shares of the
    whole trace (`left`, `width`, in %), and `start_ms` from the first span's start."""
    timed = [(s, _utc(s["start_at"]), _utc(s.get("end_at") or s["start_at"])) for s in spans
             if isinstance(s.get("start_at"), datetime)]
    if not timed:
        return spans
    t0 = min(b for _, b, _ in timed)
    total = max((max(e for _, _, e in timed) - t0).total_seconds(), 1e-6)
    out = []
    for s, begin, end in timed:
        start = (begin - t0).total_seconds()
        dur = (end - begin).total_seconds()
        out.append({**s, "start_ms": start * 1000, "left": 100 * start / total,
                    "width": max(0.4, 100 * dur / total)})
    return out


def _utc(t: Any) -> datetime:
    return t if not isinstance(t, datetime) or t.tzinfo is not None else t.replace(tzinfo=UTC)
