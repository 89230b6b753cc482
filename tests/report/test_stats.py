"""The report statistics against values computed by hand or by reference implementations."""

from __future__ import annotations

import math

import pytest

from assay.report.stats import bootstrap_diff, mcnemar_exact, percentile, wilson


def test_wilson_matches_the_textbook_values() -> None:
    # 81 of 263 (Wilson 1927 style example): 0.2553–0.3662 by the formula
    low, high = wilson(81, 263)  # type: ignore[misc]
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    assert wilson(0, 10) == (0.0, pytest.approx(0.2775, abs=1e-4))
    assert wilson(10, 10)[0] == pytest.approx(0.7225, abs=1e-4)  # type: ignore[index]
    assert wilson(0, 0) is None


def test_mcnemar_exact() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    # b=1, c=9: 2 * (C(10,0)+C(10,1)) / 2^10 = 22/1024
    assert mcnemar_exact(1, 9) == pytest.approx(22 / 1024)
    assert mcnemar_exact(9, 1) == mcnemar_exact(1, 9)
    assert mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(0, 12) == pytest.approx(2 / 4096)


def test_bootstrap_interval_brackets_the_difference_and_is_seeded() -> None:
    base = [1.0] * 60 + [0.0] * 40
    other = [1.0] * 80 + [0.0] * 20
    ci = bootstrap_diff(base, other, seed=1)
    assert ci is not None
    low, high = ci
    assert low < 0.2 < high and low > 0.05 and high < 0.35
    assert bootstrap_diff(base, other, seed=1) == ci
    assert bootstrap_diff([], []) is None
    same = bootstrap_diff([1.0, 0.0] * 50, [1.0, 0.0] * 50)
    assert same == (0.0, 0.0)


def test_percentile_nearest_rank() -> None:
    values = [float(x) for x in range(1, 101)]
    assert percentile(values, 0.5) == 50.0 and percentile(values, 0.95) == 95.0
    assert percentile([], 0.5) is None
    assert math.isclose(percentile([3.0], 0.99) or 0, 3.0)


def _bootstrap_by_floats(base: list[float], other: list[float], seed: int,
                         resamples: int = 2000) -> tuple[float, float]:
    """bootstrap_diff as it was written before whole differences were summed as integers
    (every resample's mean in floats): the reference the faster one must equal exactly."""
    import numpy as np

    n = len(base)
    diff = np.asarray(other, dtype=float) - np.asarray(base, dtype=float)
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    chunk = max(1, min(resamples, 5_000_000 // n))
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        means[start:start + size] = diff[rng.integers(0, n, size=(size, n))].mean(axis=1)
    alpha = (1 - 0.95) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return float(low), float(high)


@pytest.mark.parametrize(("n", "resamples"), [(3, 2000), (100, 2000), (2_501, 2000),
                                              (60_000, 100)])  # (two chunks of resamples)
def test_bootstrap_gives_the_float_resampling_s_figures_exactly(n: int, resamples: int
                                                                ) -> None:
    import numpy as np

    rng = np.random.default_rng(n)
    binary_a = rng.integers(0, 2, n).astype(float).tolist()
    binary_b = rng.integers(0, 2, n).astype(float).tolist()
    graded = (rng.integers(0, 5, n) / 4).tolist()  # 0, 0.25 … 1: not whole differences
    for base, other in ((binary_a, binary_b), (graded, binary_b), (binary_a, graded)):
        assert bootstrap_diff(base, other, seed=3, resamples=resamples) == \
            _bootstrap_by_floats(base, other, 3, resamples)
    # every difference the same: no resampling, the same figure (0.1 × n summed in floats)
    same = [0.6] * n
    assert bootstrap_diff([0.5] * n, same, resamples=resamples) == \
        _bootstrap_by_floats([0.5] * n, same, 0, resamples)
    assert bootstrap_diff(binary_a, binary_a) == (0.0, 0.0)


def test_mcnemar_sums_the_binomial_tail_exactly() -> None:
    for b, c in ((3, 40), (400, 431), (2_000, 2_150), (7, 7)):
        n, k = b + c, min(b, c)
        exact = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
        assert mcnemar_exact(b, c) == min(1.0, 2 * exact)
    assert 0.0 < mcnemar_exact(24_000, 25_000) < 0.01  # 49,000 discordant pairs, at once
