"""Values as a person reads them, for `assay show` and the UI: no Python `None`, no dict or list
syntax, time gaps in the unit that fits ("410 days before the answer", not -35451634.742 s)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# A snapshot this much older (or newer) than the answer it judges is flagged as stale: a quote
# for a time-sensitive question is minutes old, a day's close at most a few days.
STALE_S = 7 * 24 * 3600


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
    """A length of time in the unit that fits: 850 ms, 12.4 s, 3 min, 5.2 h, 410 days."""
    s = abs(seconds)
    if s < 1:
        return f"{s * 1000:.0f} ms"
    if s < 60:
        return f"{s:.1f} s"
    if s < 3600:
        return f"{s / 60:.0f} min"
    if s < 48 * 3600:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.0f} days"


def gap(seconds: float | None) -> str:
    """How far the truth's time is from the answer's (negative: before it)."""
    if seconds is None:
        return "–"
    if abs(seconds) < 0.0005:
        return "at the answer's time"
    return f"{span(seconds)} {'before' if seconds < 0 else 'after'} the answer"


def stale(seconds: float | None) -> bool:
    """Whether a snapshot this far from its answer is too far to judge a latest value."""
    return seconds is not None and abs(seconds) > STALE_S
