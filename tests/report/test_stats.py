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
