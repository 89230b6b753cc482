"""The statistics behind "is the difference real": Wilson intervals for pass rates, McNemar's
exact test for paired 0/1 outcomes, and a paired bootstrap interval for a difference in means.
Written out (they are a few lines each) so every figure in a report can be checked by hand;
numpy only draws the bootstrap resamples. The Wilson interval is written in `core.tally`, beside
the tally that reports it (the runner counts too, and must not import the report), and is named
here with the others."""

from __future__ import annotations

import math
from collections.abc import Sequence

from assay.core.tally import Z95, wilson

__all__ = ["Z95", "bootstrap_diff", "mcnemar_exact", "percentile", "wilson"]


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value: b items went 1→0, c went 0→1 (the discordant pairs);
    under no difference each discordant pair is a fair coin."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    # C(n, 0) + … + C(n, k), each term from the one before (exact integers, as math.comb gives
    # them, without computing each from scratch: 100,000 discordant pairs in milliseconds)
    term = total = 1
    for i in range(k):
        term = term * (n - i) // (i + 1)
        total += term
    tail: float = total / 2 ** n
    return min(1.0, 2 * tail)


def bootstrap_diff(base: Sequence[float], other: Sequence[float], *, resamples: int = 2000,
                   seed: int = 0, level: float = 0.95) -> tuple[float, float] | None:
    """Percentile interval for mean(other − base) over paired items, resampling items."""
    import numpy as np

    n = len(base)
    if n == 0 or n != len(other):
        return None
    diff = np.asarray(other, dtype=float) - np.asarray(base, dtype=float)
    if np.all(diff == diff[0]):
        # every resample is the same items' difference: its mean, computed as a resample's
        # is (one row of n values), is each bound — what resampling would give, without it
        same = float(np.full((1, n), diff[0]).mean(axis=1)[0])
        return same, same
    # whole differences (0/1 scores: -1, 0, 1) are summed as small integers — exact, so each
    # resample's mean is the very float the float sum gives, at a fraction of the memory
    # traffic; the resamples drawn are the same either way
    whole = diff.astype(np.int8) if np.all(np.abs(diff) <= 127) and \
        np.all(diff == np.trunc(diff)) else None
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    chunk = max(1, min(resamples, 5_000_000 // max(1, n)))  # bounded memory on 100k items
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        idx = rng.integers(0, n, size=(size, n))
        if whole is not None:
            means[start:start + size] = whole[idx].sum(axis=1, dtype=np.int64) / n
        else:
            means[start:start + size] = diff[idx].mean(axis=1)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return float(low), float(high)


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..1) of the values given; None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[rank - 1]
