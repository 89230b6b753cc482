"""Each rewrite of the canonical form on its own: what it changes, and what it must leave."""

from __future__ import annotations

import pytest

from assay.evaluators.canonical import canonical, numerals, quotes, set_aside_reasoning, signs, structured


@pytest.mark.parametrize(("text", "answer", "how"), [
    ("<think>maybe 1204</think>\nThe answer is 1297.", "The answer is 1297.", "think block"),
    ("draft 1204 </think>\n\n1297", "1297", "think block (no opening tag)"),
    ("<think>still thinking about 1204", "", "unclosed think block"),
    ("◁think▷1204◁/think▷1297", "1297", "think block"),
    ("<|channel|>analysis<|message|>1204<|end|><|start|>assistant<|channel|>final<|message|>1297",
     "1297", "analysis channel"),
    # an analysis after the final channel is not the answer either
    ("<|channel|>final<|message|>1297<|end|><|start|>assistant<|channel|>analysis<|message|>1204",
     "1297", "analysis channel"),
    ("Reasoning: it might be 1204.\nFinal answer: 1297", "1297",
     "reasoning preamble"),
])
def test_reasoning_is_set_aside_and_kept(text: str, answer: str, how: str) -> None:
    """Linear in the reply whatever it repeats (a hostile review timed 100 KB of tags at 10 s
    with the first regex version)."""
    r = set_aside_reasoning(text)
    assert (r.text, how in r.how) == (answer, True)
    assert any("1204" in b for b in r.blocks)


@pytest.mark.parametrize("text", [
    "Price 1297 <b>",
    "Apple latest price: $247.45. Note: my answer omits </think> tags",  # prose about a tag
    '{"score": 1, "reason": "the response hid its work in a <think> block"}',
    "Analysis: Apple latest price $247.45.\nAnswer: see above",  # the label states nothing
])
def test_tags_and_labels_that_do_not_open_the_reply_are_text(text: str) -> None:
    assert set_aside_reasoning(text).text == text


@pytest.mark.parametrize(("text", "expected"), [
    ('{"ticker": "ORCL", "price": 291.3, "change_pct": -0.4}',
     "ORCL price: 291.3; change percent: -0.4%"),
    ('{"last_price": 1455.00}', "last price: 1455.00"),  # JSON's digits as written
    ('{"ORCL": {"price": 291.3}}', "ORCL price: 291.3"),
    ("{'price': 291.3}", "price: 291.3"),  # a Python dict from a REPL
    ('{"value": 48.79, "unit": "万亿元", "year": 2024}', "value: 48.79万亿元; year: 2024"),
    ('{"revenue": 660.26, "unit": "billion", "currency": "RMB"}', "revenue: 660.26 billion RMB"),
    ("\\boxed{2315}", "2315"),
    ("$\\boxed{12.5\\%}$", "12.5%"),
    (">>> quote('AMD')\n{'price': 233.4}", "price: 233.4"),
    ("lastPrice: 233.4", "last price: 233.4"),
])
def test_structures_become_statements(text: str, expected: str) -> None:
    assert structured.unwrap(text)[0].strip() == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("−2.01%", "-2.01%"), ("1'234.5", "1,234.5"),
    ("1 234,5", "1,234.5"), ("23.751,24", "23,751.24"), ("2.4517e+02", "245.17"),
    # the digits the mantissa shows are kept: 1.52 × 10^5 is precise to a thousand
    ("1.52 × 10^5", "152 thousand"), ("1.52×10⁵元", "15.2万元"), ("2.2487e12元", "2.2487万亿元"),
    ("1e999999", "1e999999"),  # no quantity is written so: left as text
    ("营收二十亿零五百万元", "营收2005000000元"), ("一亿零五百万", "105000000"),
    ("下跌负百分之二点三", "下跌-2.3%"), ("百分之十", "10%"), ("五十铃", "五十铃"), ("三十而立", "三十而立"),
    ("rates 1.250,1.300", "rates 1.250,1.300"), ("三千二百一十五点四八点", "3215.48点"),
    ("一千五百零六点二七亿元", "1506.27亿元"), ("百分之二点三", "2.3%"), ("负零点四", "-0.4"),
    ("两千三百万", "2300万"), ("七点一二九零", "7.1290"),
    # words made of numeral characters are not numbers
    ("百度", "百度"), ("三一重工", "三一重工"), ("万科A", "万科A"), ("一度涨至", "一度涨至"),
    ("千万", "千万"), ("2025年10月", "2025年10月"), ("112，114", "112，114"),
])
def test_numbers_in_one_form(text: str, expected: str) -> None:
    assert numerals.uniform(text)[0] == expected


def test_full_width_forms_by_nfkc_keep_the_clause_comma() -> None:
    assert numerals.fullwidth("１４５５．００元，跌２．０１％（收盘）") == (
        "1455.00元，跌2.01%(收盘)", ["full-width → ASCII"])


@pytest.mark.parametrize(("text", "expected"), [
    ("AMD $233.40 ▲2.3%", "AMD $233.40 +2.3%"), ("▼ 1.64%", "-1.64%"),
    ("2.3% ↓", "-2.3%"), ("Change: (1.64%)", "Change: -1.64%"),
    ("| 涨跌幅 | (0.81%) |", "| 涨跌幅 | -0.81% |"), ("涨跌幅 (0.81%)", "涨跌幅 -0.81%"),
    # brackets right after a price are the quote's change, not a sign
    ("PFE 24.10 (0.7%)", "PFE 24.10 (0.7%)"),
    ("贵州茅台(600519)", "贵州茅台(600519)"),  # a code
    ("上涨 (0.5%)", "上涨 (0.5%)"),  # a rise word says it is not negative
])
def test_signs(text: str, expected: str) -> None:
    assert signs.uniform(text)[0] == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("AMD $233.40 +2.3%", "AMD  last price $233.40 +2.3%"),
    ("招商银行 41.2元，涨跌-1.3%", "招商银行 最新价 41.2元，涨跌-1.3%"),
    ("沪深300 4,514.15", "沪深300 4,514.15"),  # the number names the index
    ("贵州茅台 600519", "贵州茅台 600519"),  # a code, not a price
    ("贵州茅台日内区间 1,454.03 - 1,488.00 元", "贵州茅台日内区间 1,454.03 - 1,488.00 元"),
    ("52-wk range $78 – $105", "52-week range $78 – $105"),
    ("GC Dec25 4,255.9", "GC Dec 2025 4,255.9"), ("Dec '25", "Dec 2025"),
    ("黄金2512合约", "黄金2025年12月合约"), ("On October 17 the rate", "On October 17 the rate"),
    ("Dec 25, 2025", "Dec 25, 2025"), ("腾讯约为HK$410", "腾讯约为 HK$410"),
    ("Umsatz 31.12.2024: 245,12 Mrd. USD", "Umsatz 2024年12月31日: 245.12 billion USD"),
])
def test_quote_lines_and_labels(text: str, expected: str) -> None:
    assert quotes.uniform(text)[0] == expected


def test_evidence_names_the_rewrites_and_keeps_the_reasoning() -> None:
    c = canonical("<think>1204?</think>\n{\"price\": \"１２９７\"}")
    assert c.text == "price: 1297"
    assert c.rewrites == ("think block set aside", "full-width → ASCII", "JSON as statements")
    assert c.evidence() == {"rewrites": list(c.rewrites), "text": "price: 1297",
                            "reasoning": ["1204?"]}
    assert canonical("Price 1297.").evidence() == {}


def test_self_corrections_are_found() -> None:
    text = "It was $1,204 million. Wait, let me re-check... actually it is $1,297 million."
    assert canonical(text).corrections == (23, 29, 48)  # wait, let me re-check, actually
    assert canonical("更正：最新价应为249.34美元").corrections == (0,)
    assert canonical("The price rose 2%.").corrections == ()


@pytest.mark.parametrize(("text", "expected"), [
    # search assistants' citations and their source list
    ("收益率约为 **1.76%**[1]，30年期约2.14%[2]。\n\n[1] 中国债券信息网\n[2] 英为财情",
     "收益率约为 **1.76%**，30年期约2.14%。"),
    ("The yield is 4.01% [1][2].", "The yield is 4.01% ."),
    ("[1] 最新价：1455元\n[2] 涨跌幅：-2.01%", "[1] 最新价:1455元\n[2] 涨跌幅:-2.01%"),  # items
    ("list [1, 2, 3]", "list [1, 2, 3]"),
    ("The 10-year U.S. Treasury yield", "The 10-year US Treasury yield"),
    ("Just **one**: TSMC", "Just **1**: TSMC"),
    ("寧德時代收市價為358.14元", "宁德时代收市价为358.14元"),
    ("at twenty-five thousand, two hundred and fifty, down", "at 25250, down"),
    ("four thousand two hundred fifty-five dollars and ninety cents", "$4255.90"),
    ("one of the top two", "one of the top two"),
])
def test_more_forms(text: str, expected: str) -> None:
    assert canonical(text).text == expected


@pytest.mark.parametrize(("text", "answer", "how"), [
    ("Revenue: USD 245,122 million.\n\nBest regards,\nTom | Research | +44 20 7946 0958",
     "Revenue: USD 245,122 million.", "signature set aside"),
    ("规模20,178.62亿元。\n\n顺颂商祺\n张晓 | 研究部 | 021-6888 1234", "规模20,178.62亿元。",
     "signature set aside"),
    ("Revenue: USD 245,122 million.\n\nDisclaimer: FY2023 revenue of USD 211.9bn is no guide.",
     "Revenue: USD 245,122 million.", "disclaimer set aside"),
    ("张晓 | 研究部 | 021-6888 1234\n规模20,178.62亿元", "张晓 | 研究部 | ☎\n规模20,178.62亿元",
     "telephone numbers set aside"),
])
def test_letter_framing_is_set_aside(text: str, answer: str, how: str) -> None:
    c = canonical(text)
    assert (c.text, how in c.rewrites) == (answer, True)


@pytest.mark.parametrize("text", [
    "Thanks for asking: revenue was USD 245,122 million.",  # a valediction inside a sentence
    "Best regards\nRevenue was USD 245,122 million.",  # nothing before it: no signature
    "Range 2021-2024: 0.5-1.2; code 021-68881234",  # no separator of a signature line
])
def test_letter_framing_leaves_the_answer(text: str) -> None:
    assert canonical(text).text == text


def test_an_agent_transcript_before_its_final_answer_is_reasoning() -> None:
    r = set_aside_reasoning("Thought: look it up.\nAction: fetch[x]\nObservation: total 1,408\n"
                            "Final Answer: I cannot verify it.")
    assert r.text == "I cannot verify it."
    assert any("1,408" in b for b in r.blocks)


@pytest.mark.parametrize(("text", "out"), [
    ("in December twenty twenty-four", "in December 2024"),
    ("in nineteen ninety-eight and twenty oh five", "in 1998 and 2005"),
    ("the ten-year Treasury and the two-year", "the 10-year Treasury and the 2-year"),
    ("a thirty-day window", "a 30-day window"),
])
def test_spoken_years_and_spans(text: str, out: str) -> None:
    assert numerals.uniform(text)[0] == out


@pytest.mark.parametrize(("text", "out"), [
    ("Amazon FCF (USD bn):\n- FY2022: (11.6)\n- FY2023: 36.8",
     "Amazon FCF (USD bn):\n- FY2022: -11.6\n- FY2023: 36.8"),
    ("closed at $118.42, a change of (16.97%).", "closed at $118.42, a change of -16.97%."),
    ("rose today (1.10%).", "rose today (1.10%)."),
    ("Tax rate: (21%).", "Tax rate: (21%)."),
])
def test_accounting_negatives_after_a_fiscal_year_or_a_change_of(text: str, out: str) -> None:
    assert signs.uniform(text)[0] == out


def test_key_value_pairs_become_statements_with_times_and_dates_as_such() -> None:
    text, done = structured.unwrap("symbol=603288.SH rt_last=38.77 rt_date=20250814 "
                                   "rt_time=150002")
    assert text.replace(structured.TOOL_END, "") == \
        "603288.SH last: 38.77; date: 2025-08-14; time: 15:00:02"
    assert done == ["key=value pairs as statements"]
    assert structured.unwrap("x = 5 and y = 6")[0] == "x = 5 and y = 6"
