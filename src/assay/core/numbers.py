"""Numbers read from a user — money, thresholds, limits — checked in one place.

A NaN compares false with everything, so `value <= 0` lets it through and a budget of NaN, a
`--fail-under nan` or a negative price silently sets no limit (or a negative cost that opens
one). Every such number is read through `number_problem`: finite, within its bounds, whole
where it counts things."""

from __future__ import annotations

import math
from typing import Any

from .errors import ConfigError


def number_problem(value: Any, *, low: float | None = 0.0, above: bool = False,
                   high: float | None = None, whole: bool = False) -> str | None:
    """Why `value` is not an acceptable number, or None. `low` is the least value allowed
    (more than it, when `above`); `high` the most; `whole`: an integer. A bool is no number."""
    kind = "whole number" if whole else "number"
    bounds = []
    if low is not None:
        bounds.append(f"{'>' if above else '≥'} {low:g}")
    if high is not None:
        bounds.append(f"≤ {high:g}")
    want = f"must be a finite {kind}" + (f" {' and '.join(bounds)}" if bounds else "")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return want
    if whole and not isinstance(value, int):
        return want
    if not math.isfinite(value):
        return f"{want}, not {value}"
    if low is not None and (value <= low if above else value < low):
        return f"{want}, not {value:g}"
    if high is not None and value > high:
        return f"{want}, not {value:g}"
    return None


def checked(value: Any, what: str, **bounds: Any) -> Any:
    """`value` when acceptable (see `number_problem`), else a one-line ConfigError naming
    `what` (an option, a field)."""
    problem = number_problem(value, **bounds)
    if problem is not None:
        raise ConfigError(f"{what} {problem}")
    return value

