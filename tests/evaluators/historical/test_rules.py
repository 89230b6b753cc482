"""The T2/T3 rules as the items' judge prompts write them, one tolerance form at a time, in
Chinese and English. Each case: the reference (with its note), the question, an answer, and
what the rules say: 1, 0 or abstain (the reader cannot bind a key point with confidence)."""

from __future__ import annotations

import pytest

from assay.core.errors import ConfigError
from assay.core.types import Answer, Item, ScoreStatus

from .helpers import ABSTAIN, decide

# ---------------------------------------------------------------- rounding, two decimals
Q_POLY = "截至2024 年12月31日，保利发展经营活动现金流净额预计多少亿元？（数值保留2位小数）"
R_POLY = "62.57亿元，答案允许四舍五入的误差"


@pytest.mark.parametrize("answer, expected", [
    ("保利发展2024年经营活动现金流净额为62.57亿元。", 1),
    # the release's judge accepted this; the question asks for two decimals
    ("截至2024年12月31日，保利发展经营活动现金流净额为63亿元人民币。", 0),
    ("经营活动现金流净额为62.5712亿元", 1),  # more precise, rounds to 62.57
    ("经营活动现金流净额为62.566亿元", 1),
    ("经营活动现金流净额为62.564亿元", 0),
    ("经营活动现金流净额约为62.6亿元", 0),  # coarser than asked
    ("经营活动现金流净额为6,257,000,000元", 1),  # another scale, same value
    ("经营活动现金流净额为6257.00百万元", 1),
    ("62.57", 1),  # a missing unit is accepted
    ("经营活动现金流净额为62.57万元", 0),  # a wrong scale is wrong
    ("经营活动现金流净额为62.57亿美元", 0),  # a wrong currency is wrong
    ("", 0),
    ("抱歉，我无法获取保利发展2024年的现金流数据。", 0),
])
def test_rounding_to_the_decimals_asked(answer: str, expected: object) -> None:
    assert decide(R_POLY, answer, Q_POLY) == expected


@pytest.mark.parametrize("answer, expected", [
    # figures in the reasoning do not count; the conclusion does
    ("根据年报，2023年经营活动现金流净额为58.10亿元，2024年一季度为-12.30亿元。\n"
     "因此，保利发展2024年经营活动现金流净额为62.57亿元。", 1),
    ("初步检索得到62.57亿元，但核对年报后修正：\n综上，2024年经营活动现金流净额为61.20亿元。", 0),
    ("保利发展2024年经营活动现金流净额为62.57亿元。2023年为58.10亿元，同比增长7.7%。", 1),
    ("最终答案：62.57亿元（约63亿元）。", 1),  # a rounded restatement of the precise value
    ("综上，保利发展经营活动现金流净额为62.57亿元，约合8.63亿美元。", 1),  # a conversion
    ("保利发展2024年经营活动现金流净额为62.57亿元，投资活动现金流净额为-30.50亿元。", 1),
    ("保利发展2024年经营活动现金流净额为63亿元。公司2024年营业收入3117亿元，归母净利润50亿元。", 0),
])
def test_the_final_statement_counts(answer: str, expected: object) -> None:
    assert decide(R_POLY, answer, Q_POLY) == expected


# ---------------------------------------------------------------- a range with rounding
Q_DEBT = "2024年年末，中国一共有多少亿美元外债？（数值保留1位小数）"
R_DEBT = "答案在24198亿美元到24200亿美元即可，答案允许四舍五入的误差。"


@pytest.mark.parametrize("answer, expected", [
    ("因此，2024年年末，中国一共有24198.0亿美元外债。", 1),
    ("24199.3亿美元", 1),
    ("2.4199万亿美元", 1),  # 万亿 = 10000亿
    ("24200亿美元", 1),
    ("24197.96亿美元", 1),  # rounds into the range at the precision of its ends
    ("24210.0亿美元", 0),
    ("24198.0亿元", 0),  # yuan, not dollars
    ("24200.4亿美元", ABSTAIN),  # in the range at whole 亿, outside at the asked 0.1
])
def test_range(answer: str, expected: object) -> None:
    assert decide(R_DEBT, answer, Q_DEBT) == expected


@pytest.mark.parametrize("answer, expected", [
    ("The yield ended the year at 2.6%.", 1),
    ("It was 2.45%.", 0),
    ("0.027", 1),
])
def test_range_in_english(answer: str, expected: object) -> None:
    assert decide("Between 2.5% and 2.7% is acceptable.", answer) == expected


# ------------------------------------------------- percent tolerance on % quantities (pp)
Q_B027 = ("2024年全年，在沪深300、科创50和中证500三个指数中，年涨幅最高的指数是哪个，涨幅多大？"
          "年最高价相比年最低价上涨的振幅最高的指数是哪个，比例是多少？保留2位小数（请给出xx.xx%的形式）")
R_B027 = "年涨跌幅最高：科创50 16.07%；\n年波动率最高：科创50 70.62%；\n评分要点：学生答案数字允许0.01%的误差"


@pytest.mark.parametrize("answer, expected", [
    ("2024年涨幅最高的是科创50，涨幅16.07%；振幅最高的也是科创50，振幅为70.62%。", 1),
    ("涨幅最高：科创50，16.08%；振幅最高：科创50，70.61%。", 1),  # within 0.01 points
    ("涨幅最高：科创50，16.09%；振幅最高：科创50，70.62%。", 0),
    ("涨幅最高：科创50，涨幅0.1607；振幅最高：科创50，比例0.7062。", 1),  # decimals = percents
    ("科创50全年上涨16.07%，为三者最高。振幅数据暂无法获取。", 0),  # a key point missing
    ("涨幅最高的是沪深300，涨幅14.68%；振幅最高的是科创50，振幅70.62%。", 0),
])
def test_percent_tolerance_is_points_on_a_percent(answer: str, expected: object) -> None:
    assert decide(R_B027, answer, Q_B027) == expected


@pytest.mark.parametrize("answer, expected", [
    ("188,000 TJ", 1),  # |188000 − 188864| = 864 ≤ 1% of 188864
    ("186,900 TJ", 0),
    ("188.9 PJ", 1),
])
def test_percent_tolerance_is_relative_on_other_quantities(answer: str, expected: object
                                                           ) -> None:
    assert decide("188864.0 TJ, an error within 1% is allowed", answer) == expected


# ------------------------------------------------------------- absolute, keyed by month
Q_HKD = ("2024 年每月中国人民银行授权中国外汇交易中心公布的港币兑人民币汇率中间价的算数平均值是多少？"
         "要求列表格按月度顺序从前到后展示结果。要求以1港币为基准，保留5位小数。")
R_HKD = ("1月：0.90911，2月：0.90836，3月：0.90733，4月：0.90674，5月：0.90976，6月：0.91118，"
         "7月：0.91321，8月：0.91521，9月：0.90854，10月：0.91442，11月：0.92206，12月：0.92474.\n"
         "评分要点：学生答案要和标准答案一致，允许有0.0001的误差")
HKD = ["0.90911", "0.90836", "0.90733", "0.90674", "0.90976", "0.91118", "0.91321", "0.91521",
       "0.90854", "0.91442", "0.92206", "0.92474"]


def table(values: list[str], first: int = 1) -> str:
    rows = "\n".join(f"| 2024年{i + first}月 | {v} |" for i, v in enumerate(values))
    return "经计算，各月平均值如下：\n\n| 月份 | 平均中间价 |\n|---|---|\n" + rows


@pytest.mark.parametrize("values, expected", [
    (HKD, 1),
    ([*HKD[:4], "0.90996", *HKD[5:]], 0),  # May off by 0.0002
    ([*HKD[:4], "0.90981", *HKD[5:]], 1),  # off by 0.00005
    ([*HKD[:4], "0.90990", *HKD[5:]], 0),  # off by 0.00014
    ([HKD[1], HKD[0], *HKD[2:]], 0),  # January and February swapped
    ([v[:-1] for v in HKD], 1),  # four decimals, each within 0.0001
])
def test_absolute_tolerance_by_month(values: list[str], expected: int) -> None:
    assert decide(R_HKD, table(values), Q_HKD) == expected


def test_keyed_list_in_prose_and_with_a_month_missing() -> None:
    prose = "，".join(f"{i + 1}月：{v}" for i, v in enumerate(HKD))
    assert decide(R_HKD, "结果如下：" + prose + "。", Q_HKD) == 1
    assert decide(R_HKD, table(HKD[:11]), Q_HKD) == 0
    english = "; ".join(f"{m}: {v}" for m, v in zip(
        ["January", "February", "March", "April", "May", "June", "July", "August",
         "September", "October", "November", "December"], HKD, strict=True))
    assert decide(R_HKD, english, Q_HKD) == 1


def test_a_reasoning_table_then_the_final_table() -> None:
    draft = table(["0.91000"] * 12).replace("经计算，各月平均值如下：", "初步数据：")
    final = table(HKD).replace("经计算，各月平均值如下：", "最终结果：")
    assert decide(R_HKD, draft + "\n\n" + final, Q_HKD) == 1
    assert decide(R_HKD, final + "\n\n" + draft.replace("初步数据", "更正后的最终数据"), Q_HKD) == 0


# ------------------------------------------------------------------------- strict names
Q_CITY = "2023年胡润百富榜前三名所经营企业的总部所在省的省会城市或直辖市，哪个2022年的GDP最高？"
R_CITY = "\"上海\" 。评分要点：学生答案必须和标准答案严格一致"


@pytest.mark.parametrize("answer, expected", [
    ("上海", 1),
    ("通过对比可知，**上海市**在2022年的GDP最高，达到44652.80亿元。", 1),
    ("北京", 0),
    ("上海2022年GDP为44652.80亿元，杭州为18753亿元，深圳为32387.68亿元。\n因此，答案是深圳。", 0),
    ("可能是上海或者深圳。", 0),  # two answers where one is asked for
    ("上海和广州的GDP都很高，答案是上海和广州。", 0),
    ("结论：深圳。", 0),
    ("Shanghai", 1),
])
def test_strict_name(answer: str, expected: object) -> None:
    assert decide(R_CITY, answer, Q_CITY) == expected


# ---------------------------------------------------- a name and numbers, in English
Q_TSLA = ("What was the Nasdaq stock with the highest trading value for the week of May 19-23, "
          "2025, and what were its weekly trading value (in billions of USD, to 2 decimal "
          "places) and weekly turnover rate (to 2 decimal places)?")
R_TSLA = ("Tesla\nWeekly trading value: 172.67 billion USD\nWeekly turnover rate: 15.67%\n"
          "Rounding errors are allowed.")


@pytest.mark.parametrize("answer, expected", [
    ("Tesla (TSLA) had the highest trading value, $172.67 billion, with a weekly turnover "
     "rate of 15.67%.", 1),
    ("Tesla: weekly trading value 172.67, turnover rate 15.67", 1),  # units left out
    ("Tesla had the highest trading value ($172,670 million), turnover 0.1567.", 1),
    ("Tesla had the highest trading value, $172.7 billion, turnover 15.67%.", 0),
    ("NVIDIA had the highest trading value, $172.67 billion, turnover 15.67%.", 0),
    ("Tesla had the highest trading value, $172.67 billion.", 0),  # turnover missing
    ("I cannot provide information about future market performance.", 0),
])
def test_name_and_numbers(answer: str, expected: object) -> None:
    assert decide(R_TSLA, answer, Q_TSLA) == expected


# ---------------------------------------------------------------- signs and directions
Q_NVDA = ("What is the percentage change (unweighted) on the day with the highest single-day "
          "trading volume for NVIDIA (NVDA) between January 1, 2025, and March 31, 2025? Please "
          "provide the result rounded to two decimal places.")
R_NVDA = "-16.97%\nRounding errors are allowed."


@pytest.mark.parametrize("answer, expected", [
    ("The percentage change that day was -16.97%.", 1),
    ("On January 27, 2025, NVDA fell 16.97%.", 1),
    ("The stock posted a decline of 16.97% on that day.", 1),
    ("The change was -0.1697.", 1),
    ("−16.97%", 1),  # a typographic minus
    ("The change was 16.97%.", ABSTAIN),  # the size of the fall, without its sign
    ("The stock rose 16.97% that day.", 0),
    ("-16.9%", 0),
    ("-17%", 0),
    ("The day with the highest volume was January 27, 2025, when NVDA fell about 17%. "
     "Precisely, the change was -16.97%.", 1),
])
def test_signs(answer: str, expected: object) -> None:
    assert decide(R_NVDA, answer, Q_NVDA) == expected


# ------------------------------------------------------------------ units and scales
@pytest.mark.parametrize("answer, expected", [
    ("NVIDIA's total deferred tax assets were $1,408 million.", 1),
    ("$1.408 billion", 1),
    ("1408", 1),
    ("$1,407.6 million", 1),  # rounds to the integer asked for
    ("$1.41 billion", 0),
    ("1,408,000,000 dollars", 1),
    ("The deferred tax assets in fiscal year 2022 were $1,222 million.", 0),
])
def test_million_dollars(answer: str, expected: object) -> None:
    q = ("In the fiscal year 2022, what was NVIDIA's total deferred tax assets? (answer in "
         "million dollars, rounded to the nearest integer)")
    assert decide("\"$1408 million, rounding errors are allowed.\"", answer, q) == expected


@pytest.mark.parametrize("answer, expected", [
    ("In 2020, the total coal supply in Israel was 188,864.0 terajoules.", 1),
    ("188864 TJ", 1),
    ("188,864.04 TJ", 1),
    ("188,864.06 TJ", 0),
    ("In 2020 the total coal supply in Israel was 181,692.0 terajoules, derived from 50.47 "
     "TWh.", 0),
])
def test_terajoules(answer: str, expected: object) -> None:
    q = ("In 2020, what was the total coal supply in Israel? (answer in terajoules, rounded to "
         "one decimal place)")
    assert decide("\"188864.0 TJ, rounding errors are allowed.\"", answer, q) == expected


@pytest.mark.parametrize("reference, answer, expected", [
    ("1.2万亿元", "12000亿元", 1),
    ("12000亿元", "1.2万亿元", 1),
    ("25个基点", "下调了0.25个百分点", 0),  # a cut, against a reference without a sign
    ("25个基点", "0.25个百分点", 1),
    ("25个基点", "25bp", 1),
    ("12.45%", "0.1245", 1),
    ("0.1245", "12.45%", 1),
    ("12.5元/股", "每股12.5元", 1),
])
def test_equivalent_formats(reference: str, answer: str, expected: object) -> None:
    assert decide(reference, answer) == expected


# ------------------------------------------------- strict numbers, and no note at all
@pytest.mark.parametrize("reference, answer, expected", [
    ("27.9年\n评分要点：\n学生答案中的数字必须与标准答案中的数字严格一致。", "平均约为27.9年。", 1),
    ("27.9年\n评分要点：\n学生答案中的数字必须与标准答案中的数字严格一致。",
     "246 ÷ 9 ≈ 27.3年。因此，平均时间约为27.3年。", 0),
    ("27.9年\n评分要点：\n学生答案中的数字必须与标准答案中的数字严格一致。", "27.93年", 0),
    ("27.9 years\nScoring Criteria: The number must be strictly identical.", "27.90 years", 1),
    ("27.9年", "27.9年", 1),
    ("27.9年", "27.3年", 0),
    ("27.9年", "27.93年", ABSTAIN),  # no note: more precise and rounding to it is not ruled
    ("27.9年", "28年", 0),
])
def test_strict_and_plain(reference: str, answer: str, expected: object) -> None:
    assert decide(reference, answer) == expected


@pytest.mark.parametrize("answer, expected", [
    ("有1家，即Benu。", 1),
    ("旧金山主营亚洲菜的米其林三星餐厅有一家，是Benu。", 1),
    ("有2家：Benu和Quince。", 0),
    ("只有1家，是Atelier Crenn。", 0),
])
def test_count_and_name(answer: str, expected: object) -> None:
    assert decide("1个，Benu", answer, "目前旧金山米其林三星餐厅中主营亚洲菜的餐厅有几个？餐厅的名字是什么？"
                  ) == expected


R_PROV = ("河北省、辽宁省、江苏省、山东省、广东省\n评分要点：\n"
          "学生答案必须答出标准答案中的所有省，同时不能出现其他省。")


@pytest.mark.parametrize("answer, expected", [
    ("符合条件的省份有：河北省、辽宁省、江苏省、山东省、广东省。", 1),
    ("包括：河北、辽宁、黑龙江、江苏、福建、山东、广东。", 0),  # two provinces too many
    ("包括：河北、辽宁、江苏、山东。", 0),  # one missing
])
def test_exclusive_list(answer: str, expected: object) -> None:
    assert decide(R_PROV, answer) == expected


@pytest.mark.parametrize("answer, expected", [
    ("和昆明最接近，两者相差22100-20273=1827平方公里。", 0),  # the number is wrong
    ("和昆明最接近，相差约740平方公里。", ABSTAIN),  # "和昆明最接近" is prose: not checkable
])
def test_prose_in_the_reference(answer: str, expected: object) -> None:
    assert decide("和昆明最接近，相差约740平方公里", answer) == expected


@pytest.mark.parametrize("answer, expected", [
    ("62.5亿元", 1),
    ("62.46亿元", 0),
])
def test_absolute_tolerance_with_a_unit(answer: str, expected: object) -> None:
    assert decide("62.57亿元，允许0.1亿元的误差", answer) == expected


def test_a_note_it_cannot_read_abstains() -> None:
    assert decide("62.57亿元，评分要点：答案需说明主要原因且逻辑合理", "62.57亿元") == ABSTAIN


# ------------------------------------------------- which of several values is the answer
@pytest.mark.parametrize("reference, question, answer, expected", [
    # another month than the one asked about
    ("答案在32020亿美元到32040亿美元之间即可", "2024年末，中国外汇储备规模是多少亿美元？",
     "2024年11月末外汇储备为32659亿美元；12月末降至32024亿美元。", 1),
    # a year written after the value
    ("188864.0 TJ, rounding errors are allowed.", "In 2020, what was the total coal supply in "
     "Israel?", "211,302.0 TJ in 2019, dropping to 188,864.0 TJ in 2020.", 1),
    # the parts of a sum stated beside it
    ("1286.6万辆，答案允许四舍五入的误差", "2024年中国新能源汽车销量是多少万辆？",
     "纯电动汽车销量771.9万辆，插电式混合动力汽车销量514.7万辆，合计1286.6万辆。", 1),
    # a forecast is not the figure
    ("256 thousand. Rounding errors are allowed.", "How many jobs did US nonfarm payrolls add "
     "in December 2024?", "Payrolls rose by 256,000, well above the consensus forecast of "
     "165,000.", 1),
    # the day asked about
    ("1.0389. An error of up to 0.0001 is allowed.", "What was the ECB reference rate on "
     "December 31, 2024?", "On December 30 the rate was 1.0444; on December 31, 2024 it was "
     "1.0389.", 1),
    # a conversion into another currency
    ("NT$2.89 trillion. Rounding errors are allowed.", "What was TSMC's 2024 revenue?",
     "Revenue rose to NT$2.89 trillion (about US$90.0 billion).", 1),
    ("NT$2.89 trillion. Rounding errors are allowed.", "What was TSMC's 2024 revenue?",
     "US$2.89 trillion", 0),
    # a value in basis points beside rate levels in %
    ("25个基点（0.25个百分点）", "2024年10月，1年期LPR下调了多少个基点？",
     "下调了25个基点，由3.35%降至3.10%。", 1),
])
def test_which_value_is_the_answer(reference: str, question: str, answer: str,
                                   expected: int) -> None:
    assert decide(reference, answer, question) == expected


@pytest.mark.parametrize("answer, expected", [
    ("工商银行48.82万亿元，建设银行40.57万亿元，农业银行43.24万亿元，中国银行35.06万亿元。", 1),
    ("工商银行48.82万亿元，建设银行43.24万亿元，农业银行40.57万亿元，中国银行35.06万亿元。", 0),  # swapped
    ("| 银行 | 总资产（万亿元） |\n|---|---|\n| 中国银行 | 35.06 |\n| 农业银行 | 43.24 |\n"
     "| 建设银行 | 40.57 |\n| 工商银行 | 48.82 |", 1),  # another order, right keys
])
def test_list_keyed_by_name(answer: str, expected: int) -> None:
    ref = ("工商银行：48.82万亿元；建设银行：40.57万亿元；农业银行：43.24万亿元；中国银行：35.06万亿元。"
           "答案允许四舍五入的误差")
    q = "截至2024年末，工商银行、建设银行、农业银行、中国银行的总资产分别是多少万亿元？（保留2位小数）"
    assert decide(ref, answer, q) == expected


@pytest.mark.parametrize("answer, expected", [
    ("2022: -$11.6 billion; 2023: $36.8 billion; 2024: $38.2 billion.", 1),
    ("In 2022 Amazon had negative free cash flow of $11.6 billion; it recovered to $36.8 "
     "billion in 2023 and $38.2 billion in 2024.", 1),
    ("2022: $11.6 billion; 2023: $36.8 billion; 2024: $38.2 billion.", 0),  # an amount's sign
    ("2022: -$11.6 billion; 2023: $38.2 billion; 2024: $36.8 billion.", 0),  # swapped years
])
def test_list_keyed_by_year(answer: str, expected: int) -> None:
    ref = ("2022: -11.6 billion USD; 2023: 36.8 billion USD; 2024: 38.2 billion USD. Rounding "
           "errors are allowed.")
    q = ("What was Amazon's free cash flow in each of 2022, 2023 and 2024? (billions of USD, "
         "one decimal place)")
    assert decide(ref, answer, q) == expected


@pytest.mark.parametrize("reference, answer, expected", [
    ("0.95%，答案允许四舍五入的误差", "不良贷款率为9.5‰。", 1),  # per mille
    ("0.95%，答案允许四舍五入的误差", "不良贷款率为0.95‰。", 0),
    ("1286.6万辆，答案允许四舍五入的误差", "销量为1286.6辆。", 0),  # a unit without its 万
    ("7.1884。评分要点：学生答案要和标准答案一致，允许有0.0001的误差", "1美元对人民币7.1884元。", 1),
    ("1, Taiwan Semiconductor Manufacturing Company (TSMC)", "Just one — TSMC.", 1),
    ("1, Taiwan Semiconductor Manufacturing Company (TSMC)", "1", 0),  # the company missing
    ("Tesla\nWeekly trading value: 172.67 billion USD\nRounding errors are allowed.",
     "Tesla — $0.17267 trillion traded.", 1),  # an em dash is not a minus sign
])
def test_units_written_other_ways(reference: str, answer: str, expected: int) -> None:
    assert decide(reference, answer) == expected


def test_half_a_point_cut_when_asked_about_the_cut() -> None:
    q = "By how many basis points did the Fed cut rates on September 18, 2024?"
    assert decide("50 basis points (0.50 percentage points).", "It cut by half a percentage "
                  "point.", q) == 1


R_SET = ("中国神华、长江电力、工商银行、农业银行\n"
         "评分要点：学生答案必须答出标准答案中的所有公司，同时不能出现其他公司。")


@pytest.mark.parametrize("answer, expected", [
    ("农业银行（+52.1%）、工商银行（+50.8%）、长江电力（+51.3%）、中国神华（+50.2%）。", 1),
    ("中国神华、长江电力、工商银行、农业银行、中国石油。", 0),
    ("| 公司 | 涨幅 |\n|---|---|\n| 中国神华 | 50.2% |\n| 长江电力 | 51.3% |\n| 工商银行 | 50.8% |\n"
     "| 农业银行 | 52.1% |", 1),
])
def test_a_list_with_no_others(answer: str, expected: int) -> None:
    assert decide(R_SET, answer) == expected


R_MIDEA = "\"美的集团\"。评分要点：学生答案必须和标准答案严格一致"
R_APPLE = "Apple. The student's answer must match the reference answer exactly."
R_BUFFETT = "Warren Buffett. The student's answer must match the reference answer exactly."
R_CMB = "\"招商银行\"。评分要点：学生答案必须和标准答案严格一致"


@pytest.mark.parametrize("reference, answer, expected", [
    (R_MIDEA, "美的集团于2024年9月在港股上市，募资约310亿港元。\n结论：地平线机器人。", 0),
    (R_MIDEA, "美的集团或顺丰控股，两者都是2024年港股的大型IPO。", 0),
    (R_APPLE, "Either Apple or NVIDIA, depending on the data source.", 0),
    (R_APPLE, "Top weights: Apple 7.6%, NVIDIA 6.6%.\n\n**Final answer:** Apple", 1),
    (R_BUFFETT, "Greg Abel is the designated successor, but at the end of 2024 the CEO was "
     "still Warren Buffett.", 1),
    (R_CMB, "中国银行", 0),  # shares only the word 银行 with 招商银行
])
def test_names_in_conclusions(reference: str, answer: str, expected: int) -> None:
    assert decide(reference, answer) == expected


@pytest.mark.parametrize("answer, expected", [
    ("答案：62.57亿元。\n\n注：2023年该指标为58.10亿元，2022年为45.38亿元。", 1),
    ("| 指标 | 2024年 | 2023年 |\n|---|---|---|\n| 经营活动现金流净额（亿元） | 62.57 | 58.10 |", 1),
    ("| 指标 | 2023年 | 2024年 |\n|---|---|---|\n| 经营活动现金流净额（亿元） | 62.57 | 58.10 |", 0),
    ("经营活动现金流净额：0.6257百亿元", 1),
    ("我无法确认，但可能是62.57亿元。", ABSTAIN),  # a guess under a refusal: the rules do not say
    # a self-correction: the last stated figure is the answer (issue 24), here a wrong one
    ("保利发展2024年经营活动现金流净额为62.57亿元？不对，应为61.57亿元。", 0),
    ("保利发展2024年经营活动现金流净额为61.57亿元。等一下，61.57亿元是2023年的数据；2024年为62.57亿元。", 1),
])
def test_more_final_statements(answer: str, expected: object) -> None:
    assert decide(R_POLY, answer, Q_POLY) == expected


@pytest.mark.parametrize("answer, expected", [
    ("工行为13.10%，建行为13.48%，工行低0.38个百分点。", 1),
    ("工行为13.10%，建行为13.48%，差0.4个百分点。", 0),
    # a difference is not a sum: 13.48 = 13.10 + 0.38 does not make 13.48 the answer
    ("工行为13.10%，建行为13.48%，工行低0.38%。", ABSTAIN),
])
def test_a_difference_in_points(answer: str, expected: object) -> None:
    assert decide("0.38个百分点，答案允许四舍五入的误差", answer,
                  "2024年末，工商银行核心一级资本充足率比建设银行低多少个百分点？（保留2位小数）") == expected


# The benchmark reading of "rounding errors are allowed" (the default, issue 24): both values
# rounded half-up at the coarser of the two precisions shown, the answer's in its own unit.
@pytest.mark.parametrize(("reference", "answer", "expected"), [
    ("62.57亿元，答案允许四舍五入的误差", "约63亿元", 1),
    ("62.57亿元，答案允许四舍五入的误差", "62.6亿元", 1),
    ("62.57亿元，答案允许四舍五入的误差", "62.5亿元", 0),
    ("62.57亿元，答案允许四舍五入的误差", "RMB 6.26 billion", 1),
    ("62.57亿元，答案允许四舍五入的误差", "RMB 6.25 billion", 0),
    ("$48,306 million. Rounding errors are allowed.", "$48.31 billion", 1),
    ("$48,306 million. Rounding errors are allowed.", "$48.30 billion", 0),
    ("318.36万辆，答案允许四舍五入的误差", "约318万辆", 1),
    ("2417.05亿元，答案允许四舍五入的误差", "2417.1亿元", 1),
    ("1210207亿元，答案允许四舍五入的误差", "121.0207万亿元", 1),
    ("0.95%, rounding errors are allowed", "1.0%", 1),
    ("0.95%, rounding errors are allowed", "0.9%", 0),
])
def test_benchmark_rounding(reference: str, answer: str, expected: int) -> None:
    from .helpers import BENCHMARK
    item = Item("(T2)x", {"prompt_id": "(T2)x", "prompt": "", "response_reference": reference})
    s = BENCHMARK.check(item, Answer(answer))
    assert (s.status, s.value) == (ScoreStatus.SCORED, float(expected)), s.reason
    assert s.evidence["rounding"] == "benchmark"


def test_strict_rounding_is_an_option_and_rejects_coarser_answers() -> None:
    from assay.evaluators.finance import FinanceRubricEvaluator
    item = Item("(T2)x", {"prompt_id": "(T2)x", "prompt": "（数值保留2位小数）",
                          "response_reference": "62.57亿元，答案允许四舍五入的误差"})
    strict = FinanceRubricEvaluator(rounding="strict").check(item, Answer("约63亿元"))
    default = FinanceRubricEvaluator().check(item, Answer("约63亿元"))
    assert (strict.value, default.value) == (0.0, 1.0)
    with pytest.raises(ConfigError, match="rounding must be one of benchmark, strict"):
        FinanceRubricEvaluator(rounding="loose")


# Readings added after the fresh blind sets (issue 24), each on answers of its own
@pytest.mark.parametrize(("reference", "question", "answer", "expected"), [
    # a range of keys, then the values in order
    ("2020年：2.2%；2021年：8.4%；2022年：3.1%", "2020—2022年GDP实际增速分别是多少？",
     "GDP实际增速 2020–2022：2.2% / 8.4% / 3.1%", 1),
    ("2020年：2.2%；2021年：8.4%；2022年：3.1%", "2020—2022年GDP实际增速分别是多少？",
     "GDP实际增速 2020–2022：8.4% / 2.2% / 3.1%", 0),
    # "how much was it cut?" answered with a signed cut: the size of the cut
    ("25个基点", "1年期LPR较上月下调了多少个基点？", "1Y LPR: ↓0.25pp (3.35% → 3.10%)", 1),
    # "how much lower?" answered "higher": the other way round
    ("0.38个百分点", "工商银行核心一级资本充足率比建设银行低多少个百分点？", "工行比建行高0.38个百分点", 0),
    ("0.38个百分点", "工商银行核心一级资本充足率比建设银行低多少个百分点？", "工行比建行低0.38个百分点", 1),
])
def test_keyed_ranges_and_directions(reference: str, question: str, answer: str,
                                     expected: int) -> None:
    assert decide(reference, answer, question) == expected


@pytest.mark.parametrize(("reference", "answer", "expected"), [
    ("Warren Buffett", "Warren E. Buffett was the CEO at the end of 2024.", 1),
    ("Taiwan Semiconductor Manufacturing Company (TSMC)",
     "Taiwan Semiconductor Manufacturing Co. (Hsinchu)", 1),
    # a correction that names another answer, and one that restates a figure, not the name
    ("美的集团", "美的集团。\n\n不对，更正一下：募资规模最大的是宁德时代。", 0),
    ("Warren Buffett", "Warren Buffett — actually, Greg Abel had already taken over as CEO.", 0),
])
def test_names_with_variants_and_corrections(reference: str, answer: str, expected: int) -> None:
    assert decide(reference, answer) == expected


def test_labelled_points_bound_only_by_value_abstain() -> None:
    """"ICBC 48.82 | CCB 43.24 | ABC 40.57": labels the reader does not know, values that match
    the reference's set — the labels may be swapped, so no 1 (it was a false accept)."""
    ref = "工商银行：48.82万亿元；建设银行：40.57万亿元；农业银行：43.24万亿元"
    assert decide(ref, "Bank1 48.82 | Bank2 43.24 | Bank3 40.57 (万亿元)") == ABSTAIN
    # with the banks' short names known (ICBC, CCB, ABC), the swap is seen
    assert decide(ref, "ICBC 48.82 | CCB 43.24 | ABC 40.57 (万亿元)") == 0
    assert decide(ref, "工行48.82万亿元，建行40.57万亿元，农行43.24万亿元") == 1  # 工行 = 工商银行


def test_a_right_number_said_of_a_sibling_name_fails() -> None:
    ref = "年涨跌幅最高：科创50 16.07%；\n年波动率最高：科创50 70.62%"
    assert decide(ref, "涨幅最高的是科创50，涨幅16.07%；振幅最高的是中证500，振幅70.62%。") == 0


# --- after the sixth blind set (issue 24, set F) ----------------------------------------------

@pytest.mark.parametrize(("reference", "question", "answer", "expected"), [
    # a research note: the value said in the question's words, among others said of other things
    ("62.57亿元，答案允许四舍五入的误差", "截至2024年12月31日，保利发展经营活动现金流净额是多少亿元？",
     "【保利发展2024年报点评】公司实现营业总收入3,116.66亿元；归母净利润50.01亿元；经营活动产生的"
     "现金流量净额62.57亿元；投资活动现金流净额-11.94亿元。", 1),
    ("62.57亿元，答案允许四舍五入的误差", "截至2024年12月31日，保利发展经营活动现金流净额是多少亿元？",
     "【保利发展2024年报点评】公司实现营业总收入3,116.66亿元；经营活动产生的现金流量净额60.57亿元；"
     "投资活动现金流净额62.57亿元。", 0),
    # the reference's name tells the values apart, though the question names every candidate
    ("中国联通，4.56%，答案允许四舍五入的误差",
     "2024年，中国移动、中国电信、中国联通三家中营业收入同比增速最高的是哪家？增速是多少？",
     "三大运营商营收增速：中国移动+3.1%，中国电信+3.06%，中国联通+4.56%。增速最高的是中国联通。", 1),
    ("JPMorgan Chase; total assets of 4,002.81 billion USD. Rounding errors are allowed.",
     "Which US bank had the largest total assets at December 31, 2024, and what was the amount?",
     "JPMorgan Chase & Co. — total assets $4,002.81bn (BofA $3,261.5bn, Citi $2,352.9bn).", 1),
    ("2.9%. Rounding errors are allowed.",
     "What was the US CPI year-over-year inflation rate for December 2024?",
     "US consumer prices rose two point nine percent from a year earlier in December twenty "
     "twenty-four, up from two point seven percent in November.", 1),
    # a value with no words of its own is never set aside: "分别为a和b" stays undecided
    ("1286.6万辆", "2024年我国新能源汽车销量是多少万辆？",
     "2024年，我国新能源汽车产量和销量分别为1288.8万辆和1286.6万辆。", ABSTAIN),
])
def test_values_told_apart_by_their_own_words(reference: str, question: str, answer: str,
                                              expected: object) -> None:
    assert decide(reference, answer, question) == expected


@pytest.mark.parametrize(("reference", "question", "answer", "expected"), [
    # parts after 其中 / of which: the whole before them is the answer
    ("438468.24亿元。评分要点：学生答案数字允许0.01%的误差", "2024年中国货物贸易进出口总值是多少亿元？",
     "2024年我国货物贸易进出口总值43.85万亿元，其中出口25.45万亿元，进口18.39万亿元。", 1),
    ("35.46 trillion USD. The student's numbers may deviate by up to 0.01%.",
     "What was total US federal debt outstanding at the end of fiscal year 2024?",
     "Total public debt outstanding at FY2024 end (Sept 30, 2024): $35,462 billion, of which "
     "debt held by the public ≈ $28.3 trillion.", 1),
    # the release asked about, not a later revision; a release date is no period
    ("256 thousand.", "How many nonfarm payroll jobs did the US add in December 2024, according "
     "to the initial BLS release?", "Initial BLS print (Jan 10, 2025): +256K nonfarm payrolls for "
     "December 2024. (Later revised to +307K.)", 1),
    ("256 thousand.", "How many nonfarm payroll jobs did the US add in December 2024, according "
     "to the initial BLS release?", "Initial BLS print (Jan 10, 2025): +307K nonfarm payrolls for "
     "December 2024. (Later revised to +256K.)", 0),
    # a total of the labelled points is none of them
    ("工商银行：48.82万亿元；建设银行：40.57万亿元", "工商银行、建设银行的总资产分别是多少万亿元？",
     "| 银行 | 总资产（万亿元） |\n|---|---|\n| 工商银行 | 48.82 |\n| 建设银行 | 40.57 |\n\n"
     "两行合计约89.39万亿元。", 1),
    # a level in basis points; a change in basis points beside it is not the level
    ("0.95%，答案允许四舍五入的误差", "招商银行2024年末不良贷款率是多少？",
     "招行2024年末不良贷款率95bp，与上年末持平；拨备覆盖率411.98%，较上年末下降25.16个百分点。", 1),
    ("0.95%，答案允许四舍五入的误差", "招商银行2024年末不良贷款率是多少？",
     "招行2024年末不良贷款率0.95%，较上年末下降5bp。", 1),
    # how the value is written is no value
    ("7.1884。评分要点：允许有0.0001的误差", "2024年12月31日美元兑人民币中间价是多少？",
     "2024年12月31日美元兑人民币中间价为7.1884（以1美元为基准，保留4位小数）。", 1),
])
def test_parts_releases_totals_and_writing(reference: str, question: str, answer: str,
                                           expected: object) -> None:
    assert decide(reference, answer, question) == expected


@pytest.mark.parametrize(("answer", "expected"), [
    ("Hi Sarah,\n\nMicrosoft FY2024 total revenue: USD 245,122 million (+16% y/y).\n\n"
     "Best regards,\nTom Hughes | Equity Research | +44 20 7946 0958\n\nDisclaimer: figures "
     "from the 10-K; past performance (e.g. FY2023 revenue of USD 211.9bn) is no guarantee.", 1),
    ("Thought: look up the 10-K.\nAction: fetch[msft 10-K]\nObservation: Total revenue 245,122\n"
     "Final Answer: I'm unable to verify Microsoft's fiscal 2024 revenue.", 0),
])
def test_letters_and_agent_transcripts(answer: str, expected: int) -> None:
    assert decide("$245.12 billion. Rounding errors are allowed.", answer,
                  "What was Microsoft's total revenue for fiscal year 2024? (billions of USD)"
                  ) == expected


def test_accounting_negative_in_a_fiscal_year_list() -> None:
    ref = "FY2022: -11.6 billion USD; FY2023: 36.8 billion USD"
    q = "What was Amazon's free cash flow in FY2022 and FY2023 (USD bn)?"
    assert decide(ref, "Amazon FCF (USD bn):\n- FY2022: (11.6)\n- FY2023: 36.8", q) == 1
    assert decide(ref, "Amazon FCF (USD bn):\n- FY2022: 11.6\n- FY2023: 36.8", q) == 0


def test_a_listed_extra_name_is_seen_whatever_precedes_the_list() -> None:
    """"1. 中国神华 … 5. 中国银行" after a self-correction: the fifth item is another name (a
    rewrite of the sixth blind set's answer was accepted before)."""
    ref = ("中国神华、长江电力、工商银行、农业银行\n"
           "评分要点：学生答案必须答出标准答案中的所有公司，同时不能出现其他公司。")
    listed = "涨幅超过50%的公司：\n1. 中国神华\n2. 长江电力\n3. 工商银行\n4. 农业银行\n5. 中国银行"
    retry = "初步查询得到5,432.10，等等，让我重新核对。\n"
    assert decide(ref, retry + listed) == ABSTAIN  # it was 1: 中国银行 went unseen
    assert decide(ref, retry + listed.removesuffix("\n5. 中国银行")) == 1


def test_a_short_last_line_after_a_list_is_its_conclusion_not_a_courtesy() -> None:
    ref = '"美的集团"。评分要点：学生答案必须和标准答案严格一致'
    q = "2024年港股IPO募资规模最大的公司是哪家？"
    answer = ("2024年港股IPO募资额前三：\n1. 美的集团 约310亿港元\n2. 顺丰控股 约58亿港元\n\n"
              "最大的是美的集团。")
    assert decide(ref, answer, q) == 1
    # another name concluded
    assert decide(ref, answer.replace("最大的是美的集团。", "最大的是顺丰控股。"), q) == 0
    assert decide(ref, answer + "\n\n如需更多信息，请告诉我。", q) == 1


# --- after the seventh blind set (issue 24, set G) --------------------------------------------

def test_json_keys_that_are_months_key_the_values() -> None:
    ref = "1月：49.1，2月：49.1，3月：50.8。评分要点：学生答案必须和标准答案严格一致"
    q = "2024年1—3月中国制造业PMI分别是多少？"
    assert decide(ref, '{"2024-01": 49.1, "2024-02": 49.1, "2024-03": 50.8}', q) == 1
    assert decide(ref, '{"2024-01": 49.1, "2024-02": 49.2, "2024-03": 50.8}', q) == 0


@pytest.mark.parametrize(("answer", "expected"), [
    ("宁德时代2024年研发投入：186.07亿元（≈ RMB 1.86 billion）。", 0),  # another amount
    ("宁德时代2024年研发投入：186.07亿元（≈ RMB 18.61 billion）。", 1),  # the same, rounded
    ("宁德时代2024年研发投入：186.07亿元（≈ US$25.6 billion）。", 1),  # a conversion
])
def test_a_restatement_that_is_another_amount_contradicts(answer: str, expected: int) -> None:
    assert decide("186.07亿元，答案允许四舍五入的误差", answer, "宁德时代2024年研发投入是多少亿元？") \
        == expected


def test_the_words_before_a_bracketed_value_are_its_own() -> None:
    ref = "Alphabet, $100.12 billion. Rounding errors are allowed."
    q = "Which of Apple, Microsoft and Alphabet had the highest net income in 2024, and how much?"
    assert decide(ref, "GOOGL: $100.12B net income in 2024, ahead of AAPL ($93.74B) and MSFT "
                  "($88.14B). The highest is Alphabet.", q) == 1


def test_a_conclusion_that_names_another_index_fails() -> None:
    q = "Which of these indices had the highest 2024 price return: S&P 500, FTSE 100, DAX?"
    listed = "2024 price returns: FTSE 100 +5.7%, DAX +18.8%, S&P 500 +23.3%.\n\n"
    assert decide("S&P 500", listed + "**Highest: FTSE 100**", q) == 0
    assert decide("S&P 500", listed + "**Highest: S&P 500**", q) == 1
    assert decide("沪深300", "2024年：中证500 +5.4%，沪深300 +14.7%。\n\n**最高：中证500**",
                  "2024年沪深300和中证500哪个涨幅更高？") == 0


# --- after the eighth blind set (issue 24, set H) ---------------------------------------------

def test_a_superlative_that_picks_another_name_fails() -> None:
    ref = '"招商银行"。评分要点：学生答案必须和标准答案严格一致'
    q = "2024年末A股总市值前五的银行中，不良贷款率最低的是哪家银行？"
    assert decide(ref, "不良率最低的是邮储银行（0.90%），其次是招商银行（0.95%）。", q) == 0
    assert decide(ref, "不良率最低的是招商银行（0.95%），其次是邮储银行（0.98%）。", q) == 1
    # a correction that names another answer, whatever else its sentence names (招行 = 招商银行)
    assert decide(ref, "最低的是招商银行。不对，招行不在市值前五，应该是农业银行。", q) == 0
    # a denied name is no answer
    assert decide(ref, "初步查询得到5,432.10，等等，让我重新核对。\n不是农业银行——最低的是招商银行。", q) == 1


@pytest.mark.parametrize(("reference", "question", "answer", "expected"), [
    # the short names banks, carriers and companies go by
    ("工商银行，2.25万亿元，答案允许四舍五入的误差", "2024年末A股总市值最大的银行是哪家？市值多少万亿元？",
     "工行（601398.SH），2024年末A股总市值约2.25万亿元。", 1),
    ("中国联通，4.56%，答案允许四舍五入的误差", "2024年三大运营商中营收增速最高的是哪家？增速多少？",
     "China Unicom: revenue +4.56% YoY — ahead of China Mobile (+3.1%) and China Telecom (+3.1%).",
     1),
    # a bound beside the value it bounds
    ("543.45亿元，答案允许四舍五入的误差", "贵州茅台2024年末存货账面价值是多少亿元？",
     "贵州茅台2024年末存货略高于543亿元，约为543.4亿元。", 0),
    ("35.46 trillion USD. The student's numbers may deviate by up to 0.01%.",
     "What was total US federal debt at the end of fiscal year 2024?",
     "Just under $35.5 trillion — $35,462 billion at FY2024 end.", 1),
    # where a move started, and where it ended
    ("6602.57亿元，答案允许四舍五入的误差", "腾讯控股2024年全年总收入是多少亿元人民币？",
     "Tencent's 2024 total revenue rose 8% from 2023's RMB 609,015 million to RMB 660,257 "
     "million.", 1),
    # a quote for 100 units; 兆 in Taiwan's money; 元 after another currency's name
    ("7.1884。评分要点：允许有0.0001的误差", "2024年12月31日美元兑人民币中间价是多少？",
     "2024年12月31日人民币汇率中间价：100美元对人民币718.84元。", 1),
    ("NT$2.89 trillion. Rounding errors are allowed.", "What was TSMC's 2024 revenue?",
     "台積電2024年合併營收為新台幣2兆8,943億元，年增33.9%。", 1),
    ("NT$2.89 trillion. Rounding errors are allowed.", "What was TSMC's 2024 revenue?",
     "台积电2024年营收为新台币28,943亿元。", 1),
    # a fall in a verb
    ("-16.97%. Rounding errors are allowed.", "NVDA's change on its highest-volume day in Q1 2025?",
     "NVDA plunged 16.97% on Jan 27, 2025.", 1),
    # a month stated after the value is its period
    ("2.9%. Rounding errors are allowed.", "What was the US CPI inflation rate for December 2024?",
     "US CPI inflation was 2.9% y/y in November 2024, edging up to 3.0% in December.", 0),
])
def test_set_h_readings(reference: str, question: str, answer: str, expected: object) -> None:
    assert decide(reference, answer, question) == expected
