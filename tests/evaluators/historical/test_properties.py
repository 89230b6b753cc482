"""Property tests: the rounding and tolerance rules hold for any value, in any of the equivalent
ways an answer may write it."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import example, given, settings
from hypothesis import strategies as st

from assay.core.decimals import plain, round_half_up

from .helpers import ABSTAIN, decide

CENT = Decimal("0.01")
Q = "保利发展2024年经营活动现金流净额是多少亿元？（数值保留2位小数）"
# written with its two decimals ("4.30", not "4.3": the reference's own precision counts)
references = st.integers(min_value=1, max_value=9_999_999).map(
    lambda n: (Decimal(n) / 100).quantize(CENT))
offsets = st.integers(min_value=-3000, max_value=3000)
places = st.integers(min_value=0, max_value=4)


def _answer(r: Decimal, offset: int, k: int) -> Decimal:
    """r moved by `offset` ten-thousandths, written with `k` decimals (half-up)."""
    return round_half_up(r + Decimal(offset) / 10000, Decimal(1).scaleb(-k))


@settings(max_examples=150, deadline=None)
@given(references, offsets, places)
def test_rounding_to_two_decimals_in_any_scale(r: Decimal, offset: int, k: int) -> None:
    a = _answer(r, offset, k)
    expected = int(round_half_up(a, CENT) == r)
    ref = f"{plain(r)}亿元，答案允许四舍五入的误差"
    assert decide(ref, f"经营活动现金流净额为{plain(a)}亿元。", Q) == expected
    assert decide(ref, f"经营活动现金流净额为{plain(a * 10000)}万元。", Q) == expected
    assert decide(ref, f"经营活动现金流净额为{plain(a)}。", Q) == expected  # unit left out


@settings(max_examples=150, deadline=None)
@given(references, offsets, places)
def test_million_and_billion_are_one_value(r: Decimal, offset: int, k: int) -> None:
    a = _answer(r, offset, k)
    expected = int(round_half_up(a, CENT) == r)
    ref = f"${plain(r)} million. Rounding errors are allowed."
    q = "What was it? (in millions of USD, two decimal places)"
    assert decide(ref, f"It was ${plain(a)} million.", q) == expected
    assert decide(ref, f"It was ${plain(a / 1000)} billion.", q) == expected


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=50_000, max_value=150_000), st.integers(-300, 300),
       st.integers(min_value=3, max_value=6))
def test_absolute_tolerance_is_inclusive(r_int: int, offset: int, k: int) -> None:
    r = (Decimal(r_int) / 100000).quantize(Decimal("0.00001"))
    a = round_half_up(r + Decimal(offset) / 1000000, Decimal(1).scaleb(-k))
    expected = int(abs(a - r) <= Decimal("0.0001"))
    ref = f"{plain(r)}。评分要点：学生答案要和标准答案一致，允许有0.0001的误差"
    assert decide(ref, f"中间价为{plain(a)}。", "港币兑人民币中间价是多少？") == expected


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=9999), st.integers(-30, 30))
@example(r_int=1, offset=11)  # 0.00021 for 0.01%: 0.00021% passes, 0.021% does not
def test_percent_tolerance_in_points_and_as_a_fraction(r_int: int, offset: int) -> None:
    r = (Decimal(r_int) / 100).quantize(CENT)
    a = r + Decimal(offset) / 1000
    expected = int(abs(a - r) <= CENT)
    ref = f"{plain(r)}%。评分要点：学生答案数字允许0.01%的误差"
    assert decide(ref, f"涨幅为{plain(a)}%。", "涨幅是多少？") == expected
    # a bare number x is 100·x % (a fraction) or x % (the % left out): the reading within a
    # factor of ten of the reference counts; with none near, both do, and the reader abstains
    # when they decide differently — it never takes the kinder one
    x = a / 100
    got = decide(ref, f"涨幅为{plain(x)}。", "涨幅是多少？")
    as_fraction, as_percent = abs(100 * x - r) <= CENT, abs(x - r) <= CENT
    near = [ok for v, ok in ((100 * x, as_fraction), (x, as_percent))
            if v != 0 and Decimal("0.1") < abs(v / r) < 10] or [as_fraction, as_percent]
    assert got == (int(near[0]) if len(set(near)) == 1 else ABSTAIN)
