"""Values as a person reads them, for `assay show` and the UI: no Python `None`, no dict or list
syntax, time gaps in the unit that fits ("410 days before the answer", not -35451634.742 s)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# A snapshot taken this much before the answer it judges is flagged stale: it cannot be the
# quote the answer saw (a time-sensitive question is about minutes, not days).
STALE_S = 3600.0


def plain(value: Any) -> str:
    """One line: `–` for nothing, `a · b` for a list, `key value, …` for a mapping; a pair of
    bounds reads as an interval through `interval`."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {plain(v)}" for k, v in value.items()) or "–"
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return " · ".join(plain(v) for v in value) or "–"
    return str(value)


def interval(bounds: Any) -> str:
    """`[low, high]` as a person writes an interval: "1454.95 to 1455.05"."""
    if isinstance(bounds, Sequence) and not isinstance(bounds, str) and len(bounds) == 2:
        low, high = (plain(b) for b in bounds)
        return low if low == high else f"{low} to {high}"
    return plain(bounds)


def span(seconds: float) -> str:
    """A length of time in the unit that fits: "250 ms", "12.4 s", "3 minutes", "5.2 hours",
    "410 days" (days up to two years: "410 days" reads better than "1.1 years")."""
    s = abs(seconds)
    for size, unit, least in ((86400 * 365, "year", 2), (86400, "day", 1), (3600, "hour", 1),
                              (60, "minute", 1)):
        if s >= size * least:
            n = round(s / size, 1) if s < 10 * size else round(s / size)
            text = f"{n:g}"
            return f"{text} {unit}{'' if text == '1' else 's'}"
    return f"{s:.1f} s" if s >= 1 else f"{s * 1000:.0f} ms"


def gap(seconds: float | None) -> str:
    """How far the truth's time is from the answer's (negative: before it)."""
    if seconds is None:
        return "–"
    if abs(seconds) < 1:
        return f"at the answer's time ({span(seconds)} apart)"
    return f"{span(seconds)} {'before' if seconds < 0 else 'after'} the answer"


def stale(seconds: float | None, limit_s: float = STALE_S) -> bool:
    """Whether the snapshot was taken so long before the answer that it cannot be the quote
    the answer saw."""
    return seconds is not None and seconds < -limit_s
