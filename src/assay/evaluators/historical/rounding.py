"""The readings of "rounding errors are allowed" that `finance-rubric` takes (docs/rubric.md sets
them side by side), apart from the T2/T3 reader: the evaluator checks its `rounding` argument
when it is built, and a run of T1 items never loads the reader's modules (their patterns are
compiled at import, a fifth of a score run's start-up)."""

from __future__ import annotations

from assay.core.errors import ConfigError

BENCHMARK = "benchmark"  # both values at the coarser precision shown (the release judge's)
STRICT_ROUNDING = "strict"  # the reference's and the question's decimals
ROUNDINGS = (BENCHMARK, STRICT_ROUNDING)


def rounding_reading(rounding: str) -> str:
    """`rounding` checked: one of ROUNDINGS, else a ConfigError naming them."""
    if rounding not in ROUNDINGS:
        raise ConfigError(f"finance-rubric: rounding must be one of {', '.join(ROUNDINGS)}, "
                          f"not {rounding!r}")
    return rounding
