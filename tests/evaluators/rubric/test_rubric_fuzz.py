"""Whatever the answer, rubric or ground truth, the rubric returns a Score — never raises."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.core.types import Answer, Item, ScoreStatus
from assay.evaluators.rubric.evaluator import FinanceRubric

RUBRIC = FinanceRubric()
PIECES = ["最新价", "开盘价", "最高", "最低", "昨收", "涨跌幅", "下跌", "上涨", "分别为", "、", "，", "。",
          "收报", "点", "元", "美元", "%", "％", "亿", "万", "年", "月", "日", ":", "(", ")", "（", "）",
          "$", "-", "+", ".", ",", " ", "\n", "1.", "price", "fell", "respectively", "open", "high",
          "to", "S&P", "沪深", "Oct", "第", "#", "离岸", "中间价", "1美元兑", "０", "１２"]
answer_text = st.lists(st.one_of(st.sampled_from(PIECES), st.decimals(
    min_value=-10**7, max_value=10**7, allow_nan=False, allow_infinity=False).map(str),
    st.text(max_size=5)), max_size=25).map("".join)
rubric_text = st.sampled_from([
    "必答点：最新价\n精度要求：仅允许四舍五入误差",
    "必答点：开盘价、最高价\n精度要求：答案落在最高价最低价区间即可",
    "必答点：涨跌幅\n精度要求：允许误差范围绝对数值±0.01%",
    "必答点：最新价\n精度要求：允许误差范围绝对数值±1%",
    "Required Content: latest price\nAccuracy Requirements: Expand the high-low price range by an "
    "absolute value of 2", "必答点：\n精度要求：", "", "必答点：最新价"])
truth_value = st.one_of(st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str),
                        st.integers(), st.text(max_size=6), st.none(), st.floats(allow_nan=True))
truth = st.one_of(
    st.dictionaries(st.sampled_from(["最新价", "最高", "最低", "RT_LAST", "price", "high", "low",
                                     "change_percent", "exchange_rate", "RT_DATE", "x"]),
                    truth_value, max_size=6).map(lambda d: json.dumps(d, default=str)),
    st.dictionaries(st.sampled_from(["A___N", "data", "res"]), st.dictionaries(
        st.sampled_from(["RT_LAST", "RT_HIGH", "price"]), truth_value, max_size=3), max_size=2),
    st.text(max_size=30), st.none(), st.lists(st.integers(), max_size=3))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answer_text, rubric_text, truth)
def test_rubric_never_raises(answer: str, reference: str, gt: object) -> None:
    item = Item("x", {"prompt": "p", "response_reference": reference, "ground_truth": gt})
    score = RUBRIC.check(item, Answer(answer))
    assert score.status in set(ScoreStatus)
    assert score.reason
    if score.status == ScoreStatus.SCORED:
        assert score.value in (0.0, 1.0)
    else:
        assert score.value is None
    json.dumps(score.evidence)  # evidence is always plain JSON


# Answers built of the shapes agents write (table rows with codes and dates, names holding
# digits, ranges in several spellings) against the corpus's real questions: the reader sets
# codes, names and date cells aside before it pairs a range's two ends, which once crashed.
_CORPUS_ITEMS = [json.loads(x) for x in (Path(__file__).resolve().parents[2] / "data" /
                 "rubric_corpus" / "t1" / "items.jsonl").read_text("utf-8").splitlines()
                 if x.strip()]
SHAPES = ["| 股票 | 代码 | 最新价 | 涨跌幅 |\n|---|---|---|---|\n", "| 日期 | 收盘价 |\n|---|---|\n",
          "| 贵州茅台 | 600519 | ", "| 2025-10-17 | ", "| 10-16 | ", " |\n", " | ", "600519 ",
          "(600519.SH)", "0700.HK ", "沪深300 ", "Au99.99 ", "黄金9999", "S&P 500 ", "日内区间 ",
          "区间：", "between ", " and ", " - ", " ~ ", "—", "至", "52周区间 ", "Range: ", "最新价 ",
          "收盘 ", "最高/最低 ", "/", "元", "点", "%", "，", "。", "\n", "- ", "**", "10年期 "]
_price = st.decimals(min_value=0, max_value=10**5, places=2, allow_nan=False,
                    allow_infinity=False).map(str)
_range = st.tuples(_price, st.sampled_from([" - ", "-", " ~ ", "至", "—", " to "]), _price).map(
    "".join)
shaped_answer = st.lists(st.one_of(st.sampled_from(SHAPES), _price, _range),
                         max_size=30).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_CORPUS_ITEMS), shaped_answer)
def test_rubric_never_raises_on_tables_codes_and_ranges(fields: dict[str, object],
                                                        answer: str) -> None:
    score = RUBRIC.check(Item(str(fields["id"]), fields), Answer(answer))
    assert score.status in set(ScoreStatus) - {ScoreStatus.ERROR}, score.reason
    if score.status == ScoreStatus.SCORED:
        assert score.value in (0.0, 1.0)
    json.dumps(score.evidence)
