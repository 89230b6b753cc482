"""The statement reader on answers as real agents write them: each class of issue 11, decided by
the written judge rules (extra information never counts; a contradiction needs two values for
the same instrument and field; a tolerance in % on a quantity in % is percentage points), and
abstention where two readings decide differently."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from typing import Any

import pytest

from assay.core.types import Answer, Item, Score, ScoreStatus, TruthSnapshot
from assay.evaluators.rubric.evaluator import FinanceRubric

RUBRIC = FinanceRubric()
ROUND = "仅允许四舍五入误差"
ROUND_EN = "Only rounding errors are allowed"

MOUTAI = json.dumps({"代码": "600519", "名称": "贵州茅台", "最新价": "1455.0", "今开": "1483.1",
                     "最高": "1488.0", "最低": "1454.03", "昨收": "1484.91", "涨跌幅": "-2.01",
                     "涨跌额": "-29.91", "总市值": "1822053162825.0"}, ensure_ascii=False)
MSFT = json.dumps({"data": {"symbol": "MSFT", "open": "512.58", "high": "516.85",
                            "low": "508.13", "price": "512.30", "change_percent": "-0.42%"}})


def score(answer: str, required: str, rule: str = ROUND, truth: Any = MOUTAI,
          prompt: str = "贵州茅台最新股价", **fields: Any) -> Score:
    zh = any("\u4e00" <= ch <= "\u9fff" for ch in rule)
    ref = (f"必答点：{required}\n精度要求：{rule}" if zh else
           f"Required Content: {required}\nAccuracy Requirements: {rule}")
    item = Item("x", {"prompt": prompt, "response_reference": ref, "ground_truth": truth,
                      **fields})
    return RUBRIC.check(item, Answer(answer), None)


def decided(s: Score) -> float | None:
    assert s.status in (ScoreStatus.SCORED, ScoreStatus.NULL), (s.status, s.reason)
    return s.value


# --- 1. a change beside a price -------------------------------------------------------------

@pytest.mark.parametrize(("required", "expected"), [
    ("Microsoft's latest stock price", 1), ("Microsoft's latest change percentage", 1)])
def test_a_change_beside_a_price_is_the_change(required: str, expected: int) -> None:
    s = score("MSFT closed at $512.30 (−0.42%)", required, ROUND_EN, MSFT,
              "Microsoft", yfinance_ticker="MSFT")
    assert decided(s) == expected
    fields = {v["field"] for v in s.evidence["values"]}
    assert fields == ({"last"} if "price" in required else {"change_pct"})


def test_a_wrong_change_beside_a_right_price_fails_the_change_point() -> None:
    s = score("MSFT closed at $512.30 (−0.52%)", "Microsoft's latest change percentage",
              ROUND_EN, MSFT, "Microsoft", yfinance_ticker="MSFT")
    assert decided(s) == 0


# --- 2. numbers that carry another meaning --------------------------------------------------

@pytest.mark.parametrize("answer", [
    "贵州茅台最新价1455.00元，股息率约2.8%，市盈率20.07倍。",
    "贵州茅台最新价1455元，52周区间1210.00 - 1800.00元。",
    "贵州茅台最新价1455元，总股本12.56亿股，总市值约1.82万亿元。",
    "Moutai last at CNY 1,455.00; its 52-week range is CNY 1,210.00 – 1,800.00.",
    "贵州茅台最新价1455元（约合204.5美元）。",
])
def test_other_meanings_are_extra_information(answer: str) -> None:
    s = score(answer, "贵州茅台最新股价")
    assert decided(s) == 1
    assert [v["value"] for v in s.evidence["values"]] == [
        v["value"] for v in s.evidence["values"] if v["field"] == "last"]
    assert all(v["pass"] for v in s.evidence["values"])


def test_a_52_week_range_end_is_not_read_as_a_negative_number() -> None:
    s = score("Moutai: CNY 1,455.00. 52-week range CNY 1,210.00 - 1,800.00.", "贵州茅台最新股价")
    texts = {i["text"]: i["why"] for i in s.evidence["ignored"]}
    assert all(not t.startswith("-") for t in texts)
    assert decided(s) == 1


def test_an_intraday_range_gives_the_low_and_the_high() -> None:
    s = score("Microsoft opened at $512.58 and traded in a range of $508.13 - $516.85.",
              "Microsoft's latest opening price, high price and low price", ROUND_EN, MSFT,
              "Microsoft", yfinance_ticker="MSFT")
    assert decided(s) == 1
    assert {v["field"]: v["value"] for v in s.evidence["values"]} == {
        "open": "512.58", "low": "508.13", "high": "516.85"}


def test_a_conversion_ratio_is_not_a_price() -> None:
    s = score("1 A share converts into 1,500 B shares; BRK.B last at $488.81.",
              "The latest price of Berkshire Hathaway Class B (BRK.B)", ROUND_EN,
              json.dumps({"data": {"price": "488.81"}}), "BRK.B", yfinance_ticker="BRK-B")
    assert decided(s) == 1


def test_a_driver_in_the_commentary_is_not_the_rate() -> None:
    truth = json.dumps({"currency_pair": "USD/CNY", "exchange_rate": "7.1871",
                        "exchange_rate_hi": "7.1934", "exchange_rate_lo": "7.1855"})
    s = score("在岸人民币收报7.1890，美元指数回落至98.3附近。", "美元兑人民币最新在岸汇率",
              "答案落在最高价最低价区间即可", truth, "美元兑人民币汇率", tags="汇率")
    assert decided(s) == 1
    assert [v["value"] for v in s.evidence["values"]] == ["7.1890"]


# --- 3. typography --------------------------------------------------------------------------

@pytest.mark.parametrize("answer", [
    "最新价１，４５５．００元", "最新价1 455.00元", "最新价1'455.00元", "最新价1455,00元",
    "最新价0.1455万元", "Latest: CNY 1,455.00",
])
def test_typography_reads_the_number_written(answer: str) -> None:
    assert decided(score(answer, "贵州茅台最新股价")) == 1


@pytest.mark.parametrize(("answer", "expected"), [
    ("招行今日−0.81%", 1), ("招行今日涨跌幅 －０．８１％", 1), ("招行跌0.81%", 1),
    ("招行涨0.81%", 0), ("招行下跌−0.81%", 1),
])
def test_signs_in_every_style(answer: str, expected: int) -> None:
    truth = json.dumps({"代码": "600036", "最新价": "41.59", "涨跌幅": "-0.81"})
    assert decided(score(answer, "招商银行最新涨跌幅（百分比）", "允许误差范围绝对数值±0.01%",
                         truth, "招商银行涨跌幅")) == expected


def test_scales_in_chinese_and_english() -> None:
    assert decided(score("总市值18220.53亿元", "贵州茅台最新总市值")) == 1
    assert decided(score("market cap CNY 1.82205 trillion", "贵州茅台最新总市值")) == 1
    assert decided(score("market cap CNY 1.82206 trillion", "贵州茅台最新总市值")) == 0


# --- 4. several instruments or listings -----------------------------------------------------

PINGAN = json.dumps({"代码": "601318", "名称": "中国平安", "最新价": "57.28", "最高": "58.48",
                     "最低": "57.17"}, ensure_ascii=False)


@pytest.mark.parametrize("answer", [
    "中国平安A股报57.28元，H股报52.10港元。",
    "中国平安H股报52.10港元；A股报57.28元。",
    "| 市场 | 最新价 |\n|---|---|\n| A股 | 57.28元 |\n| H股 | 52.10港元 |",
])
def test_the_other_listing_is_another_instrument(answer: str) -> None:
    s = score(answer, "中国平安A股（601318）最新股价", "答案落在最高价最低价区间即可", PINGAN,
              "中国平安A股最新股价", akshare_ticker="601318", wind_ticker="601318.SH")
    assert decided(s) == 1
    assert [v["value"] for v in s.evidence["values"]] == ["57.28"]


def test_other_listed_companies_in_one_sentence_are_extra() -> None:
    s = score("白酒股今日普跌：贵州茅台1455.00元（-2.01%），五粮液121.07元，山西汾酒182.50元。",
              "贵州茅台最新股价", akshare_ticker="600519")
    assert decided(s) == 1


def test_five_indices_in_one_list() -> None:
    truth = json.dumps({"代码": "399001", "名称": "深证成指", "最新价": "12688.94",
                        "涨跌幅": "-3.04"}, ensure_ascii=False)
    answer = ("今日主要指数：\n- 上证指数 3839.76（-1.95%）\n- 深证成指 12688.94（-3.04%）\n"
              "- 创业板指 2935.37（-3.36%）\n- 沪深300 4514.23（-2.26%）\n- 科创50 1380.12（-3.10%）")
    s = score(answer, "深证成指最新涨跌幅", "允许误差范围绝对数值±0.01%", truth, "深证成指涨跌幅",
              tags="Index")
    assert decided(s) == 1
    assert [v["value"] for v in s.evidence["values"]] == ["-3.04"]


def test_gold_and_silver_in_one_table() -> None:
    truth = json.dumps({"SHAU___SGE": {"RT_LAST": "985.60"}})
    answer = "| 品种 | 基准价 |\n|---|---|\n| 上海金 | 985.60元/克 |\n| 上海银 | 11590元/千克 |"
    s = score(answer, "上海金SHAU.SGE午盘的最新基准价格（即最新交易日午盘收盘价）",
              "允许误差范围绝对数值±15", truth, "上海金午盘的最新基准价", wind_ticker="SHAU.SGE")
    assert decided(s) == 1


# --- 5. markdown tables ---------------------------------------------------------------------

def test_a_table_row_is_read_with_its_header() -> None:
    answer = ("| 股票 | 代码 | 最新价 | 涨跌幅 |\n|---|---|---|---|\n"
              "| 贵州茅台 | 600519 | 1455.00 | -2.01% |\n| 五粮液 | 000858 | 121.07 | -1.36% |")
    s = score(answer, "贵州茅台最新股价", akshare_ticker="600519")
    assert decided(s) == 1
    (v,) = s.evidence["values"]
    assert (v["value"], v["via"]) == ("1455.00", "header «最新价»")


def test_a_transposed_table_and_a_table_of_days() -> None:
    answer = "| 指标 | 数值 |\n|---|---|\n| 最新价 | 1455.00元 |\n| 昨收 | 1484.91元 |"
    assert decided(score(answer, "贵州茅台最新股价")) == 1
    answer = "| 日期 | 收盘价 |\n|---|---|\n| 2025-10-17 | 1455.00 |\n| 2025-10-16 | 1484.91 |"
    assert decided(score(answer, "贵州茅台最新股价")) == 1


# --- 6. SGE benchmark -----------------------------------------------------------------------

SGE_TABLE = [{"交易时间": "2025-10-16", "晚盘价": "983.55", "早盘价": "977.30"},
             {"交易时间": "2025-10-17", "晚盘价": "985.60", "早盘价": "991.02"}]


@pytest.mark.parametrize(("answer", "expected"), [
    ("上海金午盘基准价为985.60元/克。", 1),
    ("上海金今日早盘991.02元/克，午盘985.60元/克。", 1),
    ("上海金早盘基准价991.02元/克。", 0),  # the morning fix does not answer the afternoon point
])
def test_the_afternoon_fix_answers_the_latest_benchmark(answer: str, expected: int) -> None:
    s = score(answer, "上海金SHAU.SGE午盘的最新基准价格（即最新交易日午盘收盘价）", "仅允许四舍五入误差",
              json.dumps(SGE_TABLE, ensure_ascii=False), "上海金午盘的最新基准价",
              wind_ticker="SHAU.SGE")
    assert decided(s) == expected
    assert s.evidence["truth"]["values"]["pm_fix"] == {"value": "985.60", "key": "晚盘价"}


# --- 7. bond yields -------------------------------------------------------------------------

BOND_ROW = json.dumps({"日期": "2025-10-17", "中国国债收益率2年": 1.41, "中国国债收益率10年": 1.7602,
                       "中国国债收益率30年": 2.1395, "美国国债收益率10年": 4.01},
                      ensure_ascii=False)


@pytest.mark.parametrize(("answer", "expected"), [
    ("中国10年期国债收益率1.76%。", 1), ("中国10年期国债收益率1.7502%。", 1),
    ("中国10年期国债收益率1.75%。", 0), ("10年期国债收益率报1.7602，30年期2.14%，美债10年期4.01%。", 1),
])
def test_a_percent_tolerance_on_a_yield_is_percentage_points(answer: str,
                                                             expected: int) -> None:
    s = score(answer, "中国10年期国债最新收益率", "允许误差范围绝对数值±0.01%", BOND_ROW,
              "中国10年期国债收益率", tags="债券")
    assert decided(s) == expected
    assert s.evidence["truth"]["values"]["last"]["key"] == "中国国债收益率10年"


# --- 8. FX ----------------------------------------------------------------------------------

def test_cfets_quote_and_the_offshore_rate_beside_it() -> None:
    truth = json.dumps({"currency_pair": "USD/CNY", "exchange_rate": "7.1871",
                        "exchange_rate_hi": "7.1934", "exchange_rate_lo": "7.1855"})
    s = score("在岸人民币收报7.1905，离岸人民币报7.2150，中间价7.1729。", "人民币兑美元最新在岸汇率",
              "答案落在最高价最低价区间即可", truth, "在岸汇率", tags="汇率")
    assert decided(s) == 1
    assert {i["field"] for i in s.evidence["ignored"]} >= {"offshore", "central_parity"}


def test_fx_spot_quote_rows_bid_and_ask_answer_the_rate() -> None:
    rows = [{"货币对": "USD/CNY", "买报价": "7.1290", "卖报价": "7.1300"},
            {"货币对": "EUR/CNY", "买报价": "8.3041", "卖报价": "8.3061"}]
    s = score("美元兑人民币即期：买入7.1290，卖出7.1300。", "美元兑人民币最新在岸即期汇率",
              "答案落在最高价最低价区间即可", json.dumps(rows, ensure_ascii=False), "在岸汇率",
              tags="汇率", akshare_ticker="USD/CNY")
    assert decided(s) == 1


# --- after hours, earlier days, hedges ------------------------------------------------------

def test_after_hours_price_is_extra_but_its_change_competes() -> None:
    ohl = "Microsoft's latest opening price, high price, low price and change percentage"
    base = "Microsoft opened at $512.58, high $516.85, low $508.13, down 0.42%."
    assert decided(score(base + " After hours it traded at $515.00.", ohl, ROUND_EN, MSFT,
                         "Microsoft", yfinance_ticker="MSFT")) == 1
    # the judge's example 1: an after-hours change % is a second value for the change point
    assert decided(score(base + " After hours it fell a further 0.50%.", ohl, ROUND_EN, MSFT,
                         "Microsoft", yfinance_ticker="MSFT")) == 0


def test_a_bound_is_not_a_value_and_a_hedge_is() -> None:
    assert decided(score("贵州茅台约1455元。", "贵州茅台最新股价")) == 1
    assert decided(score("贵州茅台股价超过1400元，最新报1455元。", "贵州茅台最新股价")) == 1


# --- abstention and evidence ----------------------------------------------------------------

def test_two_readings_that_decide_differently_abstain_with_the_candidates() -> None:
    s = score("最新价1455元；Foo Holdings最新价1400元。", "贵州茅台最新股价")
    assert (s.status, s.value) == (ScoreStatus.ABSTAINED, None)
    (c,) = s.evidence["candidates"]
    assert (c["value"], c["pass"]) == ("1400", False)
    assert "Foo Holdings" in c["doubt"]


def test_a_doubt_that_does_not_change_the_decision_does_not_abstain() -> None:
    s = score("最新价1455元；Foo Holdings最新价1455.00元。", "贵州茅台最新股价")
    assert decided(s) == 1


def test_evidence_lists_every_value_with_its_binding_or_why_it_was_ignored() -> None:
    s = score("贵州茅台最新价1455元，跌2.01%，成交额55.9亿元，五粮液121.07元。", "贵州茅台最新股价")
    listed = {v["text"] for v in s.evidence["values"]} | {
        i["text"] for i in s.evidence["ignored"]}
    assert listed == {"1455", "2.01%", "55.9亿", "121.07"}
    why = {i["text"]: i["why"] for i in s.evidence["ignored"]}
    assert why["121.07"] == "speaks of 五粮液"
    assert why["55.9亿"] == "not a required point"


# --- the interface the pipeline calls -------------------------------------------------------

def test_check_reads_a_given_snapshot_not_the_items_stored_truth() -> None:
    item = Item("x", {"prompt": "贵州茅台最新股价", "response_reference":
                      f"必答点：贵州茅台最新股价\n精度要求：{ROUND}", "ground_truth": MOUTAI})
    live = TruthSnapshot("akshare", "600519", "ak.stock_zh_a_spot_em()",
                         datetime(2025, 10, 17, tzinfo=UTC), "ok", {"last": "1460.5"},
                         {"最新价": "1460.5"}, market="cn_stock")
    assert RUBRIC.check(item, Answer("最新价1460.50元"), live).value == 1
    assert RUBRIC.check(item, Answer("最新价1460.50元"), None).value == 0
    assert asyncio.run(RUBRIC.evaluate(item, Answer("最新价1455.00元"))).value == 1
    s = RUBRIC.check(item, Answer("最新价1460.50元"), live)
    assert s.evidence["truth"]["values"]["last"] == {"value": "1460.5", "key": "最新价"}
    assert s.evidence["truth"]["provider"] == "akshare"


def test_a_failed_or_empty_snapshot_is_an_error_or_null() -> None:
    item = Item("x", {"prompt": "p", "response_reference": f"必答点：最新价\n精度要求：{ROUND}"})
    when = datetime(2025, 10, 17, tzinfo=UTC)
    failed = TruthSnapshot("akshare", "600519", "q", when, "error", message="timeout after 60 s")
    empty = TruthSnapshot("akshare", "600519", "q", when, "empty")
    assert RUBRIC.check(item, Answer("1455"), failed).status == ScoreStatus.ERROR
    assert RUBRIC.check(item, Answer("1455"), empty).status == ScoreStatus.NULL


# --- a range after numbers the reader drops (codes, digits in names, date cells) ------------

TABLE = ("| 股票 | 代码 | 最新价 | 涨跌幅 |\n|---|---|---|---|\n"
         "| 贵州茅台 | 600519 | {last} | -2.01% |\n| 五粮液 | 000858 | 121.07 | -1.36% |\n\n")


@pytest.mark.parametrize(("answer", "expected"), [
    # the codes in the table are dropped before the range is read; the range's two ends must
    # still find each other (this raised IndexError: the link indexed the undropped list)
    (TABLE.format(last="1455.00") + "日内区间 1,454.03 - 1,488.00 元。", 1),
    (TABLE.format(last="1458.20") + "日内区间 1,454.03 - 1,488.00 元。", 0),
    ("贵州茅台(600519) 最新 1455.00元，日内区间 1454.03-1488.00元。", 1),
    ("600519 贵州茅台：现价1,458.20元；今日波动区间 1454.03 ~ 1488.00 元。", 0),
])
def test_a_range_after_a_dropped_code_is_the_days_range(answer: str, expected: int) -> None:
    s = score(answer, "贵州茅台最新股价（即最新收盘价）", akshare_ticker="600519")
    assert decided(s) == expected
    ends = {v["text"]: v["field"] for v in s.evidence["ignored"]
            if v["text"] in ("1454.03", "1488.00", "1,454.03", "1,488.00")}
    assert sorted(ends.values()) == ["high", "low"]


# --- after the sixth blind set (issue 24, set F) ----------------------------------------------

@pytest.mark.parametrize(("answer", "expected"), [
    ("贵州茅台 −201bp，报1455.0", 1),  # basis points of a price's move: -2.01 %
    ("Moutai is down 201 bp on the day, last at ¥1455.0", 1),
    ("贵州茅台 −210bp，报1455.0", 0),
])
def test_basis_points_of_a_price_move_are_hundredths_of_a_percent(answer: str,
                                                                   expected: int) -> None:
    assert decided(score(answer, "涨跌幅")) == expected


def test_basis_points_of_a_yield_stay_a_move_of_the_level() -> None:
    """For a yield, "-5bp" moves the level; it is never the level's percent change."""
    s = score("中国10年期国债收益率1.7602%，较前一日-5bp。", "中国10年期国债最新收益率",
              "允许误差范围绝对数值±0.01%", BOND_ROW, "中国10年期国债收益率", tags="债券")
    assert decided(s) == 1
    assert [v["text"] for v in s.evidence["values"]] == ["1.7602%"]


def test_prev_alone_is_the_previous_close() -> None:
    s = score("贵州茅台 close ¥1455.0, −201bp d/d (prev 1484.91)", "最新价")
    assert decided(s) == 1
    assert {v["field"] for v in s.evidence["values"]} == {"last"}


def test_a_momentary_high_is_the_day_high() -> None:
    """"盘中一度冲高至1488.00": 一度 (at one point) is what a day's high is, not extra."""
    s = score("贵州茅台今日开于1483.10元，盘中一度冲高至1488.00元，最低下探1454.03元。",
              "开盘价、最高价、最低价")
    assert decided(s) == 1


def test_a_pasted_key_value_line_reads_its_keys() -> None:
    s = score("tool> get_quote('600519')\nsymbol=600519 rt_last=1455.0 rt_date=20251017 "
              "rt_time=150002\n\n贵州茅台最新价1455.0元。", "最新价")
    assert decided(s) == 1
    assert "key=value pairs as statements" in s.evidence["read"]["rewrites"]


def test_a_spelled_tenor_names_another_bond() -> None:
    s = score("The ten-year is yielding about one point seven six percent, with the two-year at "
              "one point four one.", "中国10年期国债最新收益率", "允许误差范围绝对数值±0.01%",
              BOND_ROW, "中国10年期国债收益率", tags="债券")
    assert decided(s) == 1


# --- after the seventh blind set (issue 24, set G) --------------------------------------------

def test_a_small_models_spaced_number_is_one_number() -> None:
    s = score("贵州茅台（600519）最新股价为 1 455 . 0 元 ，较昨日下跌 2 . 01 % 。", "最新价、涨跌幅")
    assert decided(s) == 1
    assert "spaced digits" in s.evidence["read"]["rewrites"]


UST = json.dumps({"日期": "2025-10-17", "美国国债收益率2年": 3.46, "美国国债收益率10年": 4.01,
                  "美国国债收益率30年": 4.60}, ensure_ascii=False)


@pytest.mark.parametrize(("answer", "expected"), [
    # a country before the tenor is part of the bond's name, on a heading line too
    ("### US 10-Year Treasury\n- **Latest yield:** 4.02%\n- 2-year: 3.46% | 30-year: 4.60%", 1),
    ("### US 10-Year Treasury\n- **Latest yield:** 4.05%", 0),
    # a spread of two tenors is another quantity, not the yield
    ('{"instrument": "US10Y", "yield_pct": 4.01, "curve_2s10s_pct": 0.55}', 1),
    ("美债10年期收益率4.01%，10Y-2Y利差0.55%", 1),
])
def test_a_bond_named_with_its_country_and_a_spread_beside_it(answer: str,
                                                               expected: int) -> None:
    s = score(answer, "The latest 10-year US Treasury yield", "The allowable error range is an "
              "absolute value of ±0.02%", UST, "What is the latest 10-year US Treasury yield?",
              tags="Bond")
    assert decided(s) == expected


GBP = json.dumps({"symbol": "GBPUSD", "price": 1.3433, "high": 1.3472, "low": 1.3412})


@pytest.mark.parametrize(("answer", "expected"), [
    ("GBP/USD 1.3433 (bid 1.3432 / ask 1.3434)", 1),
    ("GBP/USD 1.3433 (bid/ask 1.3432/1.3434)", 1),
    ("GBP/USD 1.3433 (bid)", 0),  # the bid is not the latest price
])
def test_a_bid_in_brackets_labels_its_own_number(answer: str, expected: int) -> None:
    s = score(answer, "latest GBP/USD exchange rate", "Any answer between the high and low price "
              "is considered correct", GBP, "GBP/USD latest rate", tags="Forex")
    assert decided(s) == expected


# --- after the eighth blind set (issue 24, set H: the styles its writers thought hardest) ------

@pytest.mark.parametrize(("answer", "expected"), [
    ("茅台今天没能守住1460元：它并没有停在1460元上方，而是报1455元，跌2.01%。", 1),
    ("贵州茅台最新价不是1484.91元（那是昨收），而是1455.0元。", 1),
    ("贵州茅台最新价不是1455.0元，而是1460.0元。", 0),
    ("贵州茅台跌破1460元，最新报1455元。", 1),
    ("Moutai is not at ¥1,484.91 but ¥1,455.0 now.", 1),
])
def test_a_denied_value_or_a_level_crossed_is_not_the_answer(answer: str, expected: int) -> None:
    assert decided(score(answer, "最新价")) == expected


def test_the_value_after_not_but_takes_the_denied_values_field() -> None:
    s = score("贵州茅台昨收不是1483.10元（那是今日开盘价），而是1484.91元；现报1455.0元。", "昨收")
    assert decided(s) == 1
    assert [(v["field"], v["text"]) for v in s.evidence["values"]] == [("prev_close", "1484.91")]


@pytest.mark.parametrize(("answer", "required", "expected"), [
    ("贵州茅台由前一日1484.91元下跌至1455.0元。", "最新价", 1),
    ("Moutai closed at ¥1,455.0, down from ¥1,484.91 the prior session.", "昨收", 1),
    ("Moutai closed at ¥1,455.0, down from ¥1,480.00 the prior session.", "昨收", 0),
])
def test_where_a_move_started(answer: str, required: str, expected: int) -> None:
    assert decided(score(answer, required)) == expected


def test_a_signed_changes_bracketed_percent_moves_the_same_way() -> None:
    s = score("MSFT: O 512.58 | H 516.85 | L 508.13 | Chg −1.82 (0.42%)",
              "Microsoft's latest change percentage", ROUND_EN, MSFT, "Microsoft",
              yfinance_ticker="MSFT")
    assert decided(s) == 1
