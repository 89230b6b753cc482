"""The one ground-truth vocabulary: every stored payload shape users meet → one TruthSnapshot."""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from typing import Any

import pytest

from assay.truth.vocabulary import (
    Hints,
    code_core,
    normalise,
    number_text,
    origins,
    snapshot_from_payload,
    snapshot_of_item,
)
from tests.conftest import DATA

SHAPES = DATA / "akshare"


def rows(name: str) -> list[dict[str, Any]]:
    with (SHAPES / name).open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def snap(raw: Any, *codes: str, text: str = "") -> Any:
    return snapshot_from_payload(raw, hints=Hints(codes, text.lower()))


def test_wind_wsq_json_string_with_code_escaping() -> None:
    s = snap('{"SHAU___SGE": {"RT_TIME": "195500","RT_LAST": "775.51","RT_DATE": "20250814"}}')
    assert (s.provider, s.status, s.instrument) == ("stored", "ok", "SHAU.SGE")
    assert s.fields == {"last": "775.51", "time": "20250814 195500"}
    assert s.source_fields["RT_LAST"] == "775.51"
    assert origins(s.fields, s.source_fields)["last"] == "RT_LAST"


def test_wind_under_res_data_keeps_written_decimals() -> None:
    raw = ('{"res": {"request": "w.wsq(\\"GC.CMX\\",\\"rt_last\\")", "code": 0, "data": '
           '{"GC.CMX": {"RT_DATE": 20250619, "RT_TIME": 90628, "RT_LAST": 3383.2000}}}}')
    s = snap(raw)
    assert s.fields["last"] == "3383.2000" and s.instrument == "GC.CMX"


def test_judge_prompt_shapes_with_their_repairs() -> None:
    s = snap('"AAPL.O": {"RT_TIME": "200000", "RT_LAST": "214.05", "RT_DATE": "20250728"}')
    assert s.fields["last"] == "214.05" and s.message == "wrapped bare member in braces"
    cfets = ('{"currency_pair": "USD/CNY", "exchange_per": "-0.0403", "exchange_range": "-0.0029",'
             ' "exchange_rate": "7.1871", "exchange_rate_hi": "7.1934", "exchange_rate_lo": '
             '"7.1855", "open_exchange_rate": "7.1900", "pre_close_exchange_rate": "7.1900", '
             '"trading_date": "20250605",}')
    s = snap(cfets)
    assert s.message == "removed trailing comma"
    assert {k: s.fields[k] for k in ("last", "high", "low", "open", "prev_close", "change",
                                     "change_pct")} == {
        "last": "7.1871", "high": "7.1934", "low": "7.1855", "open": "7.1900",
        "prev_close": "7.1900", "change": "-0.0029", "change_pct": "-0.0403"}
    quote = {"data": {"symbol": "NVDA", "open": "112.905", "price": "113.820",
                      "previous_close": "114.500", "change_percent": "-0.59%"}}
    s = snap(quote)
    assert (s.fields["last"], s.fields["prev_close"], s.fields["change_pct"]) == \
        ("113.820", "114.500", "-0.59")


def test_akshare_spot_rows_of_every_market() -> None:
    cn = {"代码": "600519", "名称": "贵州茅台", "最新价": "1455.0", "今开": "1483.1", "最高": "1488.0",
          "最低": "1454.03", "昨收": "1484.91", "涨跌幅": "-2.01", "总市值": "1822053162825.0"}
    s = snap(json.dumps(cn, ensure_ascii=False))
    assert s.fields == {"last": "1455.0", "open": "1483.1", "high": "1488.0", "low": "1454.03",
                        "prev_close": "1484.91", "change_pct": "-2.01",
                        "market_cap": "1822053162825.0"}
    assert s.instrument == "600519"
    us = {"代码": "105.TSLA", "名称": "特斯拉", "最新价": 428.75, "开盘价": 434.73, "最高价": 436.0,
          "最低价": 425.0, "昨收价": 435.15}
    assert snap(us).fields["prev_close"] == "435.15"
    comex = rows("futures_foreign_commodity_realtime_GC.csv")[0]
    s = snap(comex)
    assert (s.fields["last"], s.fields["prev_close"], s.fields["bid"], s.fields["ask"]) == \
        ("4255.9", "4304.6", "4255.8", "4256.0")
    assert "人民币报价" in s.source_fields and "人民币报价" not in s.fields.values()


def test_a_whole_table_is_narrowed_to_the_items_row() -> None:
    quotes = rows("fx_spot_quote.csv")
    s = snap(quotes, "USDCNY.IB")
    assert (s.fields["bid"], s.fields["ask"], s.fields["last"]) == ("7.1290", "7.1300", "7.1295")
    assert origins(s.fields, s.source_fields)["last"] == "(买报价 + 卖报价) / 2"
    assert s.message == "picked row 货币对 == 'USD/CNY'"
    missing = snap(quotes)
    assert missing.status == "error" and "the item picks 0" in str(missing.message)


def test_sge_benchmark_table_newest_row_and_afternoon_fix() -> None:
    s = snap({"data": rows("spot_golden_benchmark_sge.csv")})
    assert (s.status, s.fields["time"], s.message) == ("ok", "2025-10-17",
                                                        "picked the newest row (2025-10-17)")
    newest = max(rows("spot_golden_benchmark_sge.csv"), key=lambda r: r["交易时间"])
    assert (s.fields["pm_fix"], s.fields["am_fix"]) == (newest["晚盘价"], newest["早盘价"])
    assert origins(s.fields, s.source_fields)["pm_fix"] == "晚盘价"


def test_sge_intraday_table_takes_the_last_minute() -> None:
    table = rows("spot_quotations_sge_Au99.99.csv")
    assert snap(table).fields["last"] == table[-1]["现价"]


def test_bond_zh_us_rate_row_picks_country_and_tenor() -> None:
    row = {"日期": "2025-10-17", "中国国债收益率2年": 1.41, "中国国债收益率5年": 1.56,
           "中国国债收益率10年": 1.7602, "中国国债收益率30年": 2.14, "中国国债收益率10年-2年": 0.35,
           "中国GDP年增率": 5.2, "美国国债收益率2年": 3.46, "美国国债收益率10年": 4.01,
           "美国国债收益率10年-2年": 0.55}
    s = snap(row, text="中国10年期国债收益率最新是多少")
    assert (s.fields["yield"], s.fields["last"]) == ("1.7602", "1.7602")
    assert s.message == "picked column 中国国债收益率10年"
    assert origins(s.fields, s.source_fields)["yield"] == "中国国债收益率10年"
    assert snap(row, text="US 10-year Treasury yield").fields["yield"] == "4.01"
    assert snap(row, text="美国2年期国债收益率").fields["yield"] == "3.46"
    vague = snap(row, text="国债收益率")
    assert vague.status == "error" and "does not say which" in str(vague.message)


def test_bond_china_yield_rows_pick_the_tenor_of_the_newest_day() -> None:
    s = snap(rows("bond_china_yield.csv"), text="十年期国债收益率")
    assert (s.fields["yield"], s.fields["time"]) == ("1.7602", "2025-10-17")


def test_yfinance_and_tushare_shapes() -> None:
    fast = json.loads((DATA / "yfinance_fast_info_AAPL.json").read_text())
    s = snap(fast)
    assert (s.fields["last"], s.fields["high"], s.fields["low"]) == (
        "247.4499969482422", "249.0399932861328", "245.1300048828125")
    daily = json.loads((DATA / "tushare_daily_600519.SH.json").read_text())
    s = snap(daily, "600519.SH")
    assert (s.fields["close"], s.fields["last"], s.fields["prev_close"], s.fields["time"]) == (
        "1455.0", "1455.0", "1484.91", "20251017")
    assert origins(s.fields, s.source_fields)["last"] == "close"


@pytest.mark.parametrize("raw", ["", None, "{}", '{"SHAU___SGE": {"RT_DATE": "20251017"}}',
                                 {"data": {"symbol": "NVDA", "latest_trading_day": "20250426"}}])
def test_payloads_without_a_number_are_empty(raw: Any) -> None:
    assert snap(raw).status == "empty"


@pytest.mark.parametrize(("raw", "message"), [
    ('{"GC___CMX": {"RT_LAST": 42', "ground_truth is not valid JSON"),
    ('{"A___N": {"RT_LAST": "1"}, "B___N": {"RT_LAST": "2"}}', "holds 2 instruments"),
    ("[1, 2]", "rows that are not records"),
])
def test_unreadable_payloads_are_errors_with_the_reason(raw: str, message: str) -> None:
    s = snap(raw)
    assert s.status == "error" and message in str(s.message)


def test_two_wind_codes_are_picked_by_the_items_ticker() -> None:
    s = snap('{"A___N": {"RT_LAST": "1"}, "B___N": {"RT_LAST": "2"}}', "B.N")
    assert s.fields["last"] == "2" and s.instrument == "B.N"


def test_snapshot_of_item_uses_tickers_and_is_reused() -> None:
    item = {"prompt": "x", "wind_ticker": "600519.SH", "time": "2025-10-17 10:35:05",
            "ground_truth": '{"600519___SH": {"RT_LAST": "1455.0"}}'}
    a, b = snapshot_of_item(item), snapshot_of_item(dict(item))
    assert a is b and a.fields["last"] == "1455.0"
    assert a.fetched_at.isoformat() == "2025-10-17T10:35:05+00:00"


@pytest.mark.parametrize(("code", "core"), [
    ("600519.SH", "600519"), ("600519___SH", "600519"), ("0700.HK", "700"), ("00700", "700"),
    ("105.AAPL", "AAPL"), ("AAPL.O", "AAPL"), ("USD/CNY", "USDCNY"), ("SHAU.SGE", "SHAU"),
])
def test_code_core(code: str, core: str) -> None:
    assert code_core(code) == core


def test_number_text_is_exact() -> None:
    assert [number_text(v) for v in ("1,455.0", "-0.59%", 3383.2, Decimal("3383.2000"), True,
                                     float("nan"), "--", None)] == [
        "1455.0", "-0.59", "3383.2", "3383.2000", None, None, None, None]


def test_normalised_payload_reads_back_unchanged() -> None:
    fields = {"last": "1.0", "prev_close": "2.0", "change_pct": "-0.5", "am_fix": "3"}
    assert normalise(fields) == fields
