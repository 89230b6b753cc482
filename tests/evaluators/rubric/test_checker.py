"""The rounding rule compares a value with the interval of values that round to the truth;
that comparison must decide exactly as rounding the value half-up does, ties and signs
included, and the per-item interval cache must not mix precisions that show differently."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from assay.core.decimals import round_half_up
from assay.core.types import TruthSnapshot
from assay.evaluators.rubric.checks import Checker, check
from assay.evaluators.rubric.criteria import ROUNDING, Rule
from assay.evaluators.rubric.truth import view

RULE = Rule(ROUNDING, "仅允许四舍五入误差")
QUANTA = [Decimal(1).scaleb(-n) for n in range(5)] + [Decimal("1E+4"), Decimal("0.5")]


def _truth(value: str):  # type: ignore[no-untyped-def]
    return view(TruthSnapshot("test", "X", "", datetime(2025, 1, 1, tzinfo=UTC), "ok",
                              fields={"last": value}))


@given(st.decimals(min_value=Decimal("-9999"), max_value=Decimal("9999"), places=4),
       st.decimals(min_value=Decimal("-9999"), max_value=Decimal("9999"), places=3),
       st.sampled_from(QUANTA), st.integers(min_value=-1, max_value=1))
def test_interval_decides_as_half_up_rounding(truth: Decimal, value: Decimal, quantum: Decimal,
                                              nudge: int) -> None:
    tv = _truth(format(truth, "f"))
    c = check("last", value, quantum, RULE, tv)
    q = max(quantum, tv.values["last"].quantum)
    assert c.passed == (round_half_up(value, q) == round_half_up(truth, q))
    # the ends of the interval themselves, and a hair either side of them
    for end in (c.low, c.high):
        probe = end + nudge * Decimal("1E-9")
        assert check("last", probe, quantum, RULE, tv).passed == (
            round_half_up(probe, q) == round_half_up(truth, q))


def test_ties_round_away_from_zero() -> None:
    tv = _truth("-2.5")
    assert check("last", Decimal("-2.5"), Decimal(1), RULE, _truth("-3")).passed
    assert not check("last", Decimal("-2.5"), Decimal(1), RULE, _truth("-2")).passed
    assert check("last", Decimal("2.5"), Decimal(1), RULE, _truth("3")).passed
    assert not check("last", Decimal("-0.5"), Decimal(1), RULE, _truth("0")).passed
    assert check("last", Decimal("-0.49"), Decimal(1), RULE, _truth("0")).passed
    assert check("last", Decimal("-2.5"), Decimal("0.1"), RULE, tv).passed


def test_checker_keeps_equal_quanta_apart_when_they_show_differently() -> None:
    checker = Checker(RULE, _truth("1455.000"))
    a = checker.check("last", Decimal("1455"), Decimal("0.01"))
    b = checker.check("last", Decimal("1455"), Decimal("0.010"))
    assert a.how == "last rounded to 0.01"
    assert b.how == "last rounded to 0.010"
    assert checker.check("last", Decimal("1455.0004"), Decimal("0.0001")).passed is True
    assert checker.check("last", Decimal("1455.0005"), Decimal("0.0001")).passed is False
