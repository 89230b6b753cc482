"""Property tests: any value written the ways people write it reads back exactly."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from assay.core.decimals import quantum_of, round_half_up
from assay.evaluators.rubric.numbers import normalise, read_numbers

values = st.decimals(min_value=Decimal("0.001"), max_value=Decimal("999999999"), places=3,
                     allow_nan=False, allow_infinity=False)
FULLWIDTH = str.maketrans("0123456789.", "０１２３４５６７８９．")


def _grouped(d: Decimal) -> str:
    whole, _, frac = format(d, "f").partition(".")
    return f"{int(whole):,}" + (f".{frac}" if frac else "")


@given(values, st.sampled_from(["最新价{}元", "price ${}", "收报{}点", "at {} USD", "{}"]))
def test_plain_and_grouped_numbers_read_back(d: Decimal, template: str) -> None:
    for text in (format(d, "f"), _grouped(d)):
        (m,) = read_numbers(normalise(template.format(text)))
        assert m.value == d
        assert m.quantum == quantum_of(d)


@given(values)
def test_fullwidth_digits_read_back(d: Decimal) -> None:
    (m,) = read_numbers(normalise("最新价" + format(d, "f").translate(FULLWIDTH) + "元"))
    assert m.value == d


@given(st.decimals(min_value=Decimal("0.01"), max_value=Decimal("99999"), places=2),
       st.sampled_from([("万", 4), ("亿", 8), ("万亿", 12), (" million", 6), (" billion", 9)]))
def test_magnitudes_scale_value_and_quantum(d: Decimal, mag: tuple[str, int]) -> None:
    word, exp = mag
    (m,) = read_numbers(normalise(f"成交额{d}{word}"))
    assert m.value == d * Decimal(10) ** exp
    assert m.quantum == quantum_of(d) * Decimal(10) ** exp


@given(st.decimals(min_value=Decimal("-99"), max_value=Decimal("99"), places=2))
def test_percent_and_sign(d: Decimal) -> None:
    (m,) = read_numbers(normalise(f"涨跌幅 {d}%"))
    assert m.percent and m.value == d


@given(st.integers(2000, 2030), st.integers(1, 12), st.integers(1, 28), st.integers(0, 23),
       st.integers(0, 59))
def test_dates_and_times_are_never_values(y: int, mo: int, d: int, h: int, mi: int) -> None:
    for text in (f"{y}年{mo}月{d}日 {h}:{mi:02d}", f"{y}-{mo:02d}-{d:02d}", f"{mo}月{d}日",
                 f"{y}{mo:02d}{d:02d}", f"October {d}, {y}", f"{d} Oct {y}"):
        assert read_numbers(normalise(text)) == []


@given(values, st.sampled_from([Decimal("0.01"), Decimal("0.1"), Decimal("1"), Decimal("100")]))
def test_round_half_up_properties(d: Decimal, q: Decimal) -> None:
    r = round_half_up(d, q)
    assert abs(r - d) <= q / 2
    assert (r / q) == (r / q).to_integral_value()
    assert round_half_up(r, q) == r
    # exactly half-way goes up, as people round
    half = round_half_up(d, q) + q / 2
    assert round_half_up(half, q) == round_half_up(d, q) + q


def test_round_half_up_examples() -> None:
    assert round_half_up(Decimal("112.905"), Decimal("0.01")) == Decimal("112.91")
    assert round_half_up(Decimal("12.256"), Decimal("0.01")) == Decimal("12.26")
    assert round_half_up(Decimal("-0.585"), Decimal("0.01")) == Decimal("-0.59")


def test_tickers_index_names_and_list_markers_are_not_values() -> None:
    text = normalise("1. 贵州茅台(600519)、00700、SH600519、600519.SH、105.AAPL、S&P 500、"
                     "沪深300、日经225、第3名：最新价1455元")
    assert [str(m.value) for m in read_numbers(text)] == ["1455"]


def test_unit_quote_is_not_a_value() -> None:
    text = normalise("中间价为1美元对人民币7.1729元")
    assert [str(m.value) for m in read_numbers(text)] == ["7.1729"]


@given(values, st.sampled_from(["", "$", "$ ", "HK$", "US$ ", "¥"]), st.sampled_from(["", "-", "+",
                                                                                      "- "]))
def test_spans_cover_exactly_the_value(d: Decimal, cur: str, sign: str) -> None:
    body = f"{sign}{cur}{d}"
    text = f"price is {body} today"
    (m,) = read_numbers(normalise(text))
    assert text[m.start:m.end] == body
    assert m.value == (-d if sign.startswith("-") else d)
    assert m.signed == bool(sign)
