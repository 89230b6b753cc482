"""Each rule, each ground-truth shape, each edge of the T1 rubric."""

from __future__ import annotations

import json

import pytest

from assay.core.types import Answer, Item, ScoreStatus
from assay.evaluators.rubric.evaluator import FinanceRubric

RUBRIC = FinanceRubric()
AKSHARE_ROW = json.dumps({"代码": "600519", "名称": "贵州茅台", "最新价": "1455.0", "今开": "1483.1",
                          "最高": "1488.0", "最低": "1454.03", "昨收": "1484.91", "涨跌幅": "-2.01",
                          "涨跌额": "-29.91"}, ensure_ascii=False)


def run(answer: str, required: str, rule: str, truth: object = AKSHARE_ROW,
        prompt: str = "贵州茅台最新股价") -> tuple[float | None, ScoreStatus, dict, str]:
    zh = any("\u4e00" <= ch <= "\u9fff" for ch in rule)
    ref = (f"必答点：{required}\n精度要求：{rule}" if zh else
           f"Required Content: {required}\nAccuracy Requirements: {rule}")
    item = Item("x", {"prompt": prompt, "response_reference": ref, "ground_truth": truth})
    s = RUBRIC.check(item, Answer(answer))
    return s.value, s.status, s.evidence, s.reason


# --- order of the rules --------------------------------------------------------------------

def test_empty_answer_scores_zero_even_without_truth() -> None:
    value, status, _, reason = run("  \n ", "最新股价", "仅允许四舍五入误差", truth="")
    assert (value, status) == (0.0, ScoreStatus.SCORED)
    assert "回复为空" in reason


@pytest.mark.parametrize("truth", [
    "", "{}", '{"SHAU___SGE": {"RT_DATE": "20250814", "RT_TIME": "195500"}}',
    {"data": {"symbol": "NVDA", "latest_trading_day": "20250426"}}, None,
])
def test_truth_without_numbers_is_null(truth: object) -> None:
    value, status, _, reason = run("最新价1455元", "最新股价", "仅允许四舍五入误差", truth=truth)
    assert (value, status) == (None, ScoreStatus.NULL)
    assert "null" in reason


def test_invalid_truth_json_is_error_with_reason() -> None:
    value, status, _, reason = run("最新价1455元", "最新股价", "仅允许四舍五入误差",
                                   truth='{"RT_LAST": 12.3')
    assert (value, status) == (None, ScoreStatus.ERROR)
    assert reason.startswith("ground_truth is not valid JSON")


def test_missing_required_point_scores_zero() -> None:
    value, status, ev, reason = run("今日开盘价1483.10元", "贵州茅台最新股价", "仅允许四舍五入误差")
    assert (value, status) == (0.0, ScoreStatus.SCORED)
    assert ev["missing"] == ["last"]
    assert "缺少必答点：最新价" in reason


def test_required_field_absent_from_truth_is_null() -> None:
    truth = json.dumps({"PM___N": {"RT_LAST": "165.88", "RT_DATE": "20250813"}})
    value, status, _, _ = run("opened at $160.00", "The latest opening price", "Only rounding "
                              "errors are allowed", truth=truth)
    assert (value, status) == (None, ScoreStatus.NULL)


# --- the four precision rules --------------------------------------------------------------

@pytest.mark.parametrize(("answer", "expected"), [
    ("最新价1455.00元", 1), ("最新价1455元", 1), ("最新价1455.004元", 1), ("最新价1455.1元", 0),
    ("最新价1,455.00元", 1), ("最新价１４５５．００元", 1), ("最新价1454.94元", 0),
])
def test_rounding_rule(answer: str, expected: int) -> None:
    assert run(answer, "最新股价", "仅允许四舍五入误差")[0] == expected


def test_rounding_compares_at_the_coarser_precision() -> None:
    # The truth "1455.0" is written to one decimal, so a finer answer that rounds to it is a
    # rounding difference, as "12.26 vs 12.256" is the other way round.
    assert run("最新价1454.99元", "最新股价", "仅允许四舍五入误差")[0] == 1
    assert run("最新价1455.04元", "最新股价", "仅允许四舍五入误差")[0] == 1
    assert run("最新价1455.05元", "最新股价", "仅允许四舍五入误差")[0] == 0  # half-up → 1455.1


def test_rounding_is_half_up_both_ways() -> None:
    truth = json.dumps({"data": {"open": "112.905", "price": "12.256"}})
    assert run("开盘价112.91", "开盘价", "仅允许四舍五入误差", truth)[0] == 1  # 112.905 → 112.91
    assert run("开盘价112.90", "开盘价", "仅允许四舍五入误差", truth)[0] == 0
    assert run("最新价12.26", "最新价", "仅允许四舍五入误差", truth)[0] == 1  # 12.256 ≈ 12.26


def test_range_rule_with_rounding() -> None:
    truth = json.dumps({"data": {"price": "12.2", "high": "12.256", "low": "12.152"}})
    rule = "答案落在最高价最低价区间即可"
    assert run("最新价12.26", "最新价", rule, truth)[0] == 1
    assert run("最新价12.27", "最新价", rule, truth)[0] == 0
    assert run("最新价12.15", "最新价", rule, truth)[0] == 1
    assert run("最新价12.14", "最新价", rule, truth)[0] == 0


def test_range_rule_on_a_lone_quote_uses_min_and_max_of_what_is_there() -> None:
    truth = json.dumps({"X___N": {"RT_LAST": "50.00", "RT_OPEN": "49.00"}})
    _, _, ev, _ = run("最新价49.5", "最新价", "答案落在最高价最低价区间即可", truth)
    assert ev["values"][0]["accepted"] == ["49.0", "50.0"]
    assert ev["values"][0]["pass"] is True


def test_absolute_rule_in_percentage_points() -> None:
    truth = json.dumps({"data": {"change_percent": "13.56%"}})
    rule = "允许误差范围绝对数值±0.01%"
    assert run("涨幅13.55%", "涨跌幅", rule, truth)[0] == 1
    assert run("涨幅13.57%", "涨跌幅", rule, truth)[0] == 1
    assert run("涨幅13.58%", "涨跌幅", rule, truth)[0] == 0
    assert run("跌幅13.56%", "涨跌幅", rule, truth)[0] == 0  # wrong direction


def test_absolute_rule_on_price() -> None:
    truth = {"res": {"code": 0, "data": {"GC.CMX": {"RT_DATE": 20250619, "RT_LAST": 3383.2}}}}
    rule = "允许误差范围绝对数值±0.6"
    assert run("价格为3382.6美元", "comex黄金最新价格", rule, truth)[0] == 1
    assert run("价格为3382.5美元", "comex黄金最新价格", rule, truth)[0] == 0


def test_expanded_range_rule() -> None:
    truth = json.dumps({"data": {"price": "100", "high": "101", "low": "99"}})
    rule = "Expand the high-low price range by an absolute value of 0.5"
    assert run("price is $101.5", "latest price", rule, truth, "x price")[0] == 1
    assert run("price is $98.5", "latest price", rule, truth, "x price")[0] == 1
    assert run("price is $101.6", "latest price", rule, truth, "x price")[0] == 0


def test_percent_tolerance_on_a_price_is_an_error_not_a_guess() -> None:
    value, status, _, reason = run("最新价1455元", "最新股价", "允许误差范围绝对数值±1%")
    assert (value, status) == (None, ScoreStatus.ERROR)
    assert "允许误差范围绝对数值±1%" in reason


def test_unknown_precision_wording_is_error_quoting_it() -> None:
    value, status, _, reason = run("最新价1455元", "最新股价", "差不多就行")
    assert (value, status) == (None, ScoreStatus.ERROR)
    assert "«差不多就行»" in reason


def test_rubric_without_labels_is_error() -> None:
    item = Item("x", {"prompt": "p", "response_reference": "$1408 million, rounding errors are "
                      "allowed.", "ground_truth": AKSHARE_ROW})
    s = RUBRIC.check(item, Answer("1408"))
    assert s.status == ScoreStatus.ERROR
    assert "Required Content" in s.reason


# --- ground-truth shapes -------------------------------------------------------------------

@pytest.mark.parametrize("truth", [
    AKSHARE_ROW,
    json.loads(AKSHARE_ROW),
    json.dumps({"600519___SH": {"RT_LAST": "1455.0", "RT_OPEN": "1483.1", "RT_HIGH": "1488.0",
                                "RT_LOW": "1454.03", "RT_PRE_CLOSE": "1484.91"}}),
    json.dumps({"data": {"open": "1483.1", "high": "1488.0", "low": "1454.03", "price": "1455.0",
                         "previous_close": "1484.91"}}),
    [json.loads(AKSHARE_ROW)],
    '"600519.SH": {"RT_LAST": "1455.0", "RT_PRE_CLOSE": "1484.91"}',
])
def test_truth_shapes(truth: object) -> None:
    assert run("最新价1455.00元", "最新股价", "仅允许四舍五入误差", truth)[0] == 1
    assert run("最新价1484.91元", "最新股价", "仅允许四舍五入误差", truth)[0] == 0


def test_fx_shape() -> None:
    truth = json.dumps({"currency_pair": "USD/CNY", "exchange_rate": "7.1871",
                        "exchange_rate_hi": "7.1934", "exchange_rate_lo": "7.1855",
                        "pre_close_exchange_rate": "7.1900"})
    rule = "答案落在最高价最低价区间即可"
    assert run("在岸汇率7.19", "人民币兑美元最新在岸汇率", rule, truth)[0] == 1
    assert run("在岸汇率7.20", "人民币兑美元最新在岸汇率", rule, truth)[0] == 0


def test_two_instruments_in_truth_is_error() -> None:
    truth = json.dumps({"A___N": {"RT_LAST": "1"}, "B___N": {"RT_LAST": "2"}})
    assert run("最新价1", "最新价", "仅允许四舍五入误差", truth)[1] == ScoreStatus.ERROR


# --- reading the answer --------------------------------------------------------------------

def test_previous_close_is_not_the_close() -> None:
    assert run("今日收盘价1455.00元", "昨收", "仅允许四舍五入误差")[0] == 0
    assert run("昨收1484.91元，收盘价1455.00元", "昨收", "仅允许四舍五入误差")[0] == 1


def test_extra_information_is_not_penalised() -> None:
    answer = ("贵州茅台最新价1455.00元，开盘价1400元，最高1500元，成交额55.9亿元，"
              "离岸价格无意义，市盈率20.07。")
    value, _, ev, _ = run(answer, "最新股价", "仅允许四舍五入误差")
    assert value == 1
    assert {i["field"] for i in ev["ignored"]} >= {"open", "high", "turnover", "other"}


def test_dates_times_and_tickers_are_not_values() -> None:
    answer = "截至2025年10月17日15:00，贵州茅台（600519.SH）最新价1455.00元。"
    _, _, ev, _ = run(answer, "最新股价", "仅允许四舍五入误差")
    assert [v["value"] for v in ev["values"]] == ["1455.00"]


def test_chinese_magnitudes() -> None:
    truth = json.dumps({"总市值": "1822053162825.0"}, ensure_ascii=False)
    assert run("总市值18220.53亿元", "总市值", "仅允许四舍五入误差", truth)[0] == 1
    assert run("总市值1.82万亿元", "总市值", "仅允许四舍五入误差", truth)[0] == 1
    assert run("总市值1.83万亿元", "总市值", "仅允许四舍五入误差", truth)[0] == 0


def test_english_magnitudes() -> None:
    truth = json.dumps({"data": {"market_cap": "3672254505500"}})
    assert run("market cap of $3.67 trillion", "market value", "Only rounding errors are "
               "allowed", truth, "x")[0] == 1
    assert run("market cap of $3,672.25 billion", "market value", "Only rounding errors are "
               "allowed", truth, "x")[0] == 1


def test_reasons_follow_the_item_language() -> None:
    truth = json.dumps({"data": {"price": "10.00"}})
    _, _, _, en = run("The latest price is $10.00", "latest price",
                      "Only rounding errors are allowed", truth, "latest price?")
    assert en.startswith("Under «Only rounding errors are allowed»") and en.endswith("score 1.")
    _, _, _, zh = run("最新价10.00", "最新价", "仅允许四舍五入误差", truth)
    assert zh.startswith("按「仅允许四舍五入误差」") and zh.endswith("得1分。")


def test_evidence_ties_span_to_field_and_interval() -> None:
    answer = "贵州茅台最新价1455.00元。"
    _, _, ev, _ = run(answer, "最新股价", "仅允许四舍五入误差")
    (v,) = ev["values"]
    assert answer[v["span"][0]:v["span"][1]] == "1455.00"
    assert v["field"] == "last" and v["via"] == "最新价"
    # the truth "1455.0" has one decimal, so both are compared at 0.1
    assert v["accepted"] == ["1454.95", "1455.05"]
    assert v["compared"] == "最新价 rounded to 0.1"
    assert ev["rule"] == {"kind": "rounding", "text": "仅允许四舍五入误差"}
    assert ev["truth"]["values"]["last"] == {"value": "1455.0", "key": "最新价"}


# --- values for earlier days ---------------------------------------------------------------

FX_TRUTH = json.dumps({"currency_pair": "USD/CNY", "exchange_rate": "7.1871",
                       "exchange_rate_hi": "7.1934", "exchange_rate_lo": "7.1855"})
FX_RULE = "答案落在最高价最低价区间即可"
FX_REQ = "美元兑人民币最新在岸汇率"


@pytest.mark.parametrize(("answer", "expected"), [
    # the current value is right; an earlier day's value is extra information
    ("10月17日在岸汇率收报7.1900；10月15日在岸汇率为7.1200。", 1),
    ("在岸汇率最新报7.1900。前几天（10月15日）在岸汇率为7.1200。", 1),
    ("收盘价为7.1200（10月15日），最新价7.1900（10月17日）。", 1),
    ("On October 17 the onshore rate was 7.1900; on October 15 it was 7.1200.", 1),
    # a value given only with a date is the answer, judged on its number
    ("10月15日在岸汇率为7.1900。", 1),
    ("10月15日在岸汇率为7.1200。", 0),
    # the latest day's values must all hold
    ("10月17日在岸汇率7.1900，另一来源显示10月17日在岸汇率7.2100。", 0),
    # the earlier day's value does not rescue a wrong current value
    ("10月17日在岸汇率7.2100；10月15日在岸汇率为7.1900。", 0),
])
def test_earlier_days_values_are_not_penalised(answer: str, expected: int) -> None:
    value, status, ev, _ = run(answer, FX_REQ, FX_RULE, FX_TRUTH, "在岸汇率")
    assert (value, status) == (expected, ScoreStatus.SCORED)
    if expected == 1 and "7.12" in answer:
        assert [i["text"] for i in ev["ignored"] if "why" in i] == ["7.1200"]


@pytest.mark.parametrize("ground_truth", ["null", "[]", '""', "--", "N/A", "暂无数据",
                                          "Error: no data for 600519", None])
def test_a_ground_truth_with_no_number_in_any_shape_is_null(ground_truth: object) -> None:
    """The rules: no number in the ground truth → null, whatever its shape (issue 24)."""
    from assay.evaluators.finance import FinanceRubricEvaluator
    item = Item("x", {"prompt": "贵州茅台最新股价", "ground_truth": ground_truth,
                      "response_reference": "必答点：贵州茅台最新股价\n精度要求：仅允许四舍五入误差"})
    assert FinanceRubricEvaluator().check(item, Answer("贵州茅台最新价1455元"), None).status == \
        ScoreStatus.NULL


@pytest.mark.parametrize("ground_truth", ['{"最新价": 1455', "最新价 1455"])
def test_an_unreadable_ground_truth_with_numbers_stays_an_error(ground_truth: str) -> None:
    from assay.evaluators.finance import FinanceRubricEvaluator
    item = Item("x", {"prompt": "贵州茅台最新股价", "ground_truth": ground_truth,
                      "response_reference": "必答点：贵州茅台最新股价\n精度要求：仅允许四舍五入误差"})
    assert FinanceRubricEvaluator().check(item, Answer("贵州茅台最新价1455元"), None).status == \
        ScoreStatus.ERROR
