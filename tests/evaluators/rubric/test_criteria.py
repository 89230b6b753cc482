from __future__ import annotations

from decimal import Decimal

import pytest

from assay.evaluators.rubric.criteria import (
    ABSOLUTE,
    EXPANDED_RANGE,
    RANGE,
    ROUNDING,
    RubricError,
    parse_criteria,
    parse_rule,
)


@pytest.mark.parametrize(("text", "kind", "amount", "pct"), [
    ("仅允许四舍五入误差", ROUNDING, None, False),
    ("Only rounding errors are allowed", ROUNDING, None, False),
    ("答案落在最高价最低价区间即可", RANGE, None, False),
    ("Any answer between the high and low price is considered correct", RANGE, None, False),
    ("允许误差范围绝对数值±15", ABSOLUTE, Decimal("15"), False),
    ("允许误差范围绝对数值±0.01%", ABSOLUTE, Decimal("0.01"), True),
    ("The allowable error range is an absolute value of ±0.6", ABSOLUTE, Decimal("0.6"), False),
    ("在最高价最低价区间基础上扩大范围绝对数值0.5", EXPANDED_RANGE, Decimal("0.5"), False),
    ("Expand the high-low price range by an absolute value of 2", EXPANDED_RANGE, Decimal("2"),
     False),
])
def test_rules(text: str, kind: str, amount: Decimal | None, pct: bool) -> None:
    rule = parse_rule(text)
    assert (rule.kind, rule.amount, rule.amount_is_percent) == (kind, amount, pct)


@pytest.mark.parametrize(("required", "fields"), [
    ("英伟达最新的开盘价、最高价、最低价、涨跌幅度（百分比）", ("open", "high", "low", "change_pct")),
    ("上海金SHAU.SGE午盘的最新基准价格（即最新交易日午盘收盘价）", ("last",)),
    ("苹果最新股价（即最新收盘价）", ("last",)),
    ("The latest opening price of Disney", ("open",)),
    ("恒生科技指数最新的最高点位、最低点位", ("high", "low")),
    ("比亚迪昨收价（前一交易日收盘价）", ("prev_close",)),
    ("美元兑离岸人民币最新汇率", ("last",)),
    ("The latest USD/CNY central parity rate", ("last",)),
])
def test_required_fields(required: str, fields: tuple[str, ...]) -> None:
    c = parse_criteria(f"必答点：{required}\n精度要求：仅允许四舍五入误差")
    assert c.required == fields


def test_session_and_aliases() -> None:
    c = parse_criteria("必答点：上海金午盘基准价\n精度要求：允许误差范围绝对数值±15")
    assert c.session == "pm"
    assert dict(c.aliases)["pm_fix"] == "last"  # the answer's "午盘基准价" answers it
    c = parse_criteria("必答点：美元兑离岸人民币最新汇率\n精度要求：仅允许四舍五入误差")
    assert c.aliases == (("offshore", "last"), ("pm_fix", "last"))
    # a plain exchange rate is the onshore one; the offshore quote stays extra information
    c = parse_criteria("必答点：美元兑人民币最新汇率\n精度要求：仅允许四舍五入误差")
    assert dict(c.aliases) == {"onshore": "last", "pm_fix": "last"}
    c = parse_criteria("必答点：中国10年期国债收益率\n精度要求：允许误差范围绝对数值±0.01%")
    assert c.percent_point and c.required == ("last",)


@pytest.mark.parametrize("text", [
    "必答点：最新价",
    "精度要求：仅允许四舍五入误差",
    "必答点：天气\n精度要求：仅允许四舍五入误差",
    "必答点：最新价\n精度要求：大概就行",
])
def test_unmappable_rubrics_are_errors(text: str) -> None:
    with pytest.raises(RubricError):
        parse_criteria(text)
