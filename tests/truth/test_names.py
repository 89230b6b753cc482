"""Resolving the instrument a production question names, on the recorded AKShare tables (the
full 2025-10-17 tables of shared/, AKShare patched at its boundary only): names, codes in their
spellings, A+H ambiguity, currency pairs, SGE, bond tenors, names inside names; and the fields
it returns fetch the right row through the real routing and provider."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from assay.core.types import Item
from assay.truth import names
from assay.truth.capture import Capture, TruthConfig
from assay.truth.name_index import NameIndex
from assay.truth.names import Resolution, decide, resolve_question, use_tables
from assay.truth.routing import route
from assay.truth.tables import AkshareProvider
from tests.conftest import SAMPLE
from tests.truth.conftest import Akshare, frame

# the full tables are kept in tests/data (with their attribution); shared/ beside the checkout
# is the same data
FULL = next((f for f in [Path(__file__).resolve().parents[1] / "data" / "market_snapshots_full",
                         *(p / "shared/data/finsearchcomp/market_snapshots"
                           for p in Path(__file__).parents)] if f.is_dir()),
            Path("/nonexistent"))
FULL_TABLES = {"stock_zh_a_spot_em": "cn_stock", "stock_hk_spot_em": "hk_stock",
               "stock_us_spot_em": "us_stock", "stock_zh_index_spot_em": "cn_index",
               "stock_hk_index_spot_em": "h_index", "index_global_spot_em": "global_idx",
               "forex_spot_em": "fx"}


_FRAMES: dict[str, Any] = {}  # each recorded table read once per session
_PROVIDER: list[AkshareProvider] = []  # and its index built once: the tables do not change


def full_tables(akshare: Akshare) -> None:
    if not FULL.is_dir():
        pytest.skip("shared/ (the full recorded tables) is not beside the project")
    for function, market in FULL_TABLES.items():
        if function not in _FRAMES:
            _FRAMES[function] = frame(next(FULL.glob(f"{market}_*.csv")))
        akshare.set(function, lambda function=function, **kw: _FRAMES[function])


@pytest.fixture()
def tables(akshare_recorded: Akshare) -> AkshareProvider:
    """AKShare answering from the full recorded tables; one provider for names and truth."""
    full_tables(akshare_recorded)
    if not _PROVIDER:
        _PROVIDER.append(AkshareProvider(min_interval_s=0, cache_s=3600))
    use_tables("akshare", _PROVIDER[0])
    return _PROVIDER[0]


@pytest.fixture()
def fresh(akshare_recorded: Akshare) -> AkshareProvider:
    """A provider of its own, for tests that count fetches or break a table."""
    full_tables(akshare_recorded)
    provider = AkshareProvider(min_interval_s=0, cache_s=3600)
    use_tables("akshare", provider)
    return provider


def resolve(question: str, provider: str = "akshare") -> Resolution:
    return asyncio.run(resolve_question(question, provider=provider))


def picked(r: Resolution) -> tuple[str, str]:
    assert r.status == "resolved", r.message
    assert len(r.candidates) == 1
    return r.candidates[0]["market"], r.candidates[0]["code"]


@pytest.mark.parametrize(("question", "market", "code", "name"), [
    ("贵州茅台最新股价", "cn_stock", "600519", "贵州茅台"),
    ("腾讯控股最新股价是多少？", "hk_stock", "00700", "腾讯控股"),
    ("最新苹果股价", "us_stock", "105.AAPL", "苹果"),
    ("比亚迪昨收价", "cn_stock", "002594", "比亚迪"),
    ("比亚迪股份今天收盘价", "hk_stock", "01211", "比亚迪股份"),  # the longer name wins
    ("五粮液最新总市值", "cn_stock", "000858", "五 粮 液"),  # the table writes it spaced
    ("小米集团今日开盘价", "hk_stock", "01810", "小米集团-W"),  # listing marker -W
    ("What is Praxis Precision Medicines trading at?", "us_stock", "105.PRAX",
     "Praxis Precision Medicines Inc"),
    ("How is Vimeo's stock doing?", "us_stock", "105.VMEO", "Vimeo Inc"),  # as the table spells
    ("上证指数最新点位", "cn_index", "000001", "上证指数"),
    ("恒生指数最新点位", "h_index", "HSI", "恒生指数"),  # also listed in global_idx
    ("沪深300指数最新点位", "cn_index", "000300", "沪深300"),
    ("道琼斯指数最新点位", "global_idx", "DJIA", "道琼斯"),
    ("纳斯达克指数最新点位", "global_idx", "NDX", "纳斯达克"),  # not Nasdaq Inc. 105.NDAQ
    ("美元兑离岸人民币最新汇率", "fx", "USDCNH", "美元兑离岸人民币"),
])
def test_names_of_the_tables(tables: AkshareProvider, question: str, market: str, code: str,
                             name: str) -> None:
    r = resolve(question)
    assert picked(r) == (market, code)
    assert r.candidates[0]["name"] == name
    assert r.fields["akshare_ticker"] == code
    assert route("akshare", r.fields).market in (market, "index")


@pytest.mark.parametrize(("question", "code"), [
    ("600519最新价", "600519"), ("600519.SH 股价", "600519"), ("SH600519", "600519"),
    ("sh600519 latest", "600519"), ("600519.SS price", "600519"),
    ("00700 股价", "00700"), ("0700.HK price", "00700"), ("700.HK", "00700"),
    ("HK00700", "00700"), ("AAPL latest price", "105.AAPL"), ("105.AAPL", "105.AAPL"),
    ("AAPL.O close", "105.AAPL"), ("NASDAQ:AAPL", "105.AAPL"), ("$AAPL today", "105.AAPL"),
    ("106.PM 收盘价", "106.PM"), ("HSI latest level", "HSI"), ("SPX latest", "SPX"),
    ("000001.SH 最新点位", "000001"), ("CGB10Y", "CGB10Y"),
])
def test_codes_in_their_spellings(tables: AkshareProvider, question: str, code: str) -> None:
    assert picked(resolve(question))[1] == code


def test_six_digits_shared_by_a_stock_and_an_index_need_the_exchange(
        tables: AkshareProvider) -> None:
    r = resolve("000001 最新价")
    assert r.status == "ambiguous" and r.fields == {}
    assert {(c["market"], c["name"]) for c in r.candidates} == {("cn_stock", "平安银行"),
                                                                ("cn_index", "上证指数")}
    assert picked(resolve("000001.SZ 最新价")) == ("cn_stock", "000001")
    assert picked(resolve("000001.SH 最新价")) == ("cn_index", "000001")


def test_a_and_h_listing_is_ambiguous_until_the_question_says_which(
        tables: AkshareProvider) -> None:
    r = resolve("招商银行最新涨跌幅是多少？")
    assert r.status == "ambiguous" and r.fields == {}
    assert r.candidates == [
        {"name": "招商银行", "code": "600036", "market": "cn_stock", "matched": "招商银行"},
        {"name": "招商银行", "code": "03968", "market": "hk_stock", "matched": "招商银行"}]
    assert "A股/港股" in r.message and "600036" in r.message and "03968" in r.message
    assert picked(resolve("招商银行A股最新涨跌幅")) == ("cn_stock", "600036")
    assert picked(resolve("招商银行港股最新价")) == ("hk_stock", "03968")
    assert picked(resolve("招商银行H股收盘价")) == ("hk_stock", "03968")
    assert picked(resolve("What is 中国平安's latest price in Hong Kong?")) == \
        ("hk_stock", "02318")
    both = resolve("招商银行A股和H股的价差")
    assert both.status == "ambiguous" and len(both.candidates) == 2


def test_fx_pairs_both_ways(tables: AkshareProvider) -> None:
    for q in ("USD/CNY 最新汇率", "美元兑人民币最新汇率", "usd / cny spot", "美元对人民币"):
        r = resolve(q)
        assert picked(r) == ("cny_onshore", "USD/CNY"), q
        assert r.fields == {"akshare_ticker": "USD/CNY", "tags": "汇率"}
    assert picked(resolve("EUR/USD latest exchange rate")) == ("fx", "EURUSD")
    assert picked(resolve("欧元兑美元")) == ("fx", "EURUSD")
    assert picked(resolve("欧元兑人民币")) == ("cny_onshore", "EUR/CNY")
    # the inverse is another number (1/x): never taken for the pair asked
    r = resolve("人民币兑美元最新汇率")
    assert r.status == "none" and "CNY/USD is not quoted" in r.message \
        and "USD/CNY is, the inverse rate" in r.message
    assert picked(resolve("USD/CNY central parity today")) == ("fx", "USDCNYC")
    assert picked(resolve("美元兑人民币中间价")) == ("fx", "USDCNYC")
    # East Money quotes yen per 100: one yen is not what the table holds
    assert resolve("日元兑人民币").status == "none"
    assert picked(resolve("100日元兑离岸人民币")) == ("fx", "JPYCNH")


def test_sge_and_comex(tables: AkshareProvider) -> None:
    r = resolve("上海金午盘的最新基准价")
    assert picked(r) == ("sge_benchmark", "SHAU")
    assert r.fields == {"wind_ticker": "SHAU.SGE", "tags": "贵金属"}
    assert route("akshare", r.fields).market == "sge_benchmark"
    for q in ("Au99.99最新价", "AU9999 现价", "黄金9999现在多少钱"):
        r = resolve(q)
        assert picked(r) == ("sge_spot", "Au99.99"), q
        assert route("akshare", r.fields).market == "sge_spot"
    assert picked(resolve("黄金T+D 收盘")) == ("sge_spot", "Au(T+D)")
    assert resolve("上海金融中心的新闻").status == "none"
    assert picked(resolve("COMEX黄金最新价格")) == ("comex", "GC")


def test_bond_tenors(tables: AkshareProvider) -> None:
    for q in ("10年期国债收益率", "十年期国债最新收益率", "中国国债10年期收益率",
              "What is the 10-year China government bond yield?"):
        r = resolve(q)
        assert picked(r) == ("cn_bond", "CGB10Y"), q
        assert r.fields == {"akshare_ticker": "CGB10Y", "tags": "国债"}
    assert picked(resolve("3个月期国债收益率")) == ("cn_bond", "CGB3M")
    us = resolve("美国10年期国债收益率")
    assert us.status == "none" and "US Treasury" in us.message
    two = resolve("2年期国债收益率")
    assert two.status == "none" and "2年" in two.message
    for q in ("10年期国债和30年期国债", "10年期和30年期国债的利差"):
        both = resolve(q)
        assert both.status == "ambiguous" and {c["code"] for c in both.candidates} == \
            {"CGB10Y", "CGB30Y"}, q
    spread = resolve("中美10年期国债利差")
    assert spread.status == "none" and "China–US" in spread.message
    # a bond the tables have beside one they have not: not taken for the question's
    both = resolve("中国10年期国债和美国10年期国债的利差")
    assert both.status == "ambiguous" and [c["code"] for c in both.candidates] == ["CGB10Y"]
    assert "and also '美国10年期国债': no provider table has US Treasury yields" in both.message


def test_a_name_inside_a_longer_name() -> None:
    keys = {"cn_stock": "代码"}
    rows = [{"代码": "601318", "名称": "中国平安"}, {"代码": "900001", "名称": "中国平安银行"},
            {"代码": "000001", "名称": "平安银行"}]
    index = NameIndex.build({"cn_stock": rows}, keys)
    r = decide("中国平安银行的股价", index)
    assert r.status == "resolved" and r.fields["akshare_ticker"] == "900001"
    assert decide("中国平安的股价", index).fields["akshare_ticker"] == "601318"
    # two names overlapping, neither holding the other: both kept, so ambiguous
    index = NameIndex.build({"cn_stock": rows[:1] + rows[2:]}, keys)
    r = decide("中国平安银行", index)
    assert r.status == "ambiguous" and {c["code"] for c in r.candidates} == {"601318", "000001"}


def test_nothing_and_not_codes(tables: AkshareProvider) -> None:
    for q in ("今天天气怎么样？", "What is the CEO's name?", "投资600000元能买多少股",
              "3 PM close of the market", "2025年10月17日", "NVIDIA latest stock price",
              "比特币价格",  # *ST比特 is not 比特
              "中国石油化工最新股价",  # Sinopec's full name, not 中国石油 601857
              "太阳能板块今天涨了吗", "机器人概念股有哪些",  # sectors, not 000591 / 300024
              "Is now a good time to invest?", "I guess the pool team did well"):  # NOW Inc …
        r = resolve(q)
        assert r.status == "none" and r.fields == {} and r.candidates == [], (q, r.message)
    assert "no instrument name or code" in resolve("今天天气怎么样？").message


def test_two_instruments_in_one_question(tables: AkshareProvider) -> None:
    r = resolve("贵州茅台和腾讯控股哪个涨得多？")
    assert r.status == "ambiguous" and r.fields == {}
    assert [(c["code"], c["matched"]) for c in r.candidates] == [("600519", "贵州茅台"),
                                                                  ("00700", "腾讯控股")]
    # a name a company and an index share: ambiguous unless 指数 follows it
    nasdaq = resolve("纳斯达克最新")
    assert nasdaq.status == "ambiguous" and {c["code"] for c in nasdaq.candidates} == \
        {"105.NDAQ", "NDX"}
    # the same instrument by name and code is one instrument
    assert picked(resolve("贵州茅台(600519)最新价")) == ("cn_stock", "600519")


def test_other_providers_get_their_own_codes(tables: AkshareProvider) -> None:
    assert resolve("贵州茅台", "yfinance").fields["yfinance_ticker"] == "600519.SS"
    assert resolve("贵州茅台", "wind").fields["wind_ticker"] == "600519.SH"
    assert resolve("腾讯控股", "yfinance").fields["yfinance_ticker"] == "0700.HK"
    assert resolve("苹果股价", "wind").fields["wind_ticker"] == "AAPL.O"
    assert resolve("腾讯控股", "tushare").status == "none"  # Tushare serves A-shares only
    r = resolve("10年期国债", "yfinance")
    assert r.status == "none" and "yfinance provider has no code" in r.message


@pytest.mark.parametrize(("question", "field", "value"), [
    ("贵州茅台最新股价", "last", "1455.0"),
    ("恒生指数最新点位", "last", "25247.1"),
    ("USD/CNY 最新汇率", "bid", "7.129"),
    ("欧元兑人民币", "ask", "8.3061"),
    ("10年期国债收益率", "yield", "1.7602"),
    ("上海金午盘基准价", "pm_fix", "985.6"),
    ("Au99.99 现价", "last", "981.02"),
])
def test_resolved_fields_fetch_the_truth(tables: AkshareProvider, question: str, field: str,
                                         value: str) -> None:
    """The fields route through the real routing to the row the provider serves."""
    r = resolve(question)
    cap = Capture(TruthConfig(mode="live", provider="akshare"))
    cap.provider = tables  # one provider: the names' tables are the truth's tables
    snap = asyncio.run(cap.fetch(Item("q", {"prompt": question, **r.fields})))
    assert snap.status == "ok", snap.message
    assert snap.fields[field] == value


def test_the_index_is_built_once_per_table(fresh: AkshareProvider,
                                           akshare_recorded: Akshare) -> None:
    resolver = names.resolver_for("akshare")
    assert resolver is not None
    assert picked(resolve("贵州茅台")) == ("cn_stock", "600519")
    first = asyncio.run(resolver.index())[0]
    calls = len(akshare_recorded.calls)
    for q in ("腾讯控股", "USD/CNY", "10年期国债"):
        resolve(q)
    assert asyncio.run(resolver.index())[0] is first and resolver.builds == 1
    assert calls == 8  # one bulk fetch per named table, for every question of the window
    # the window has passed: the tables are fetched again; same names, so the same index
    fresh.cache_s = 0
    assert resolve("贵州茅台").status == "resolved"
    assert len(akshare_recorded.calls) == 16
    assert asyncio.run(resolver.index())[0] is first and resolver.builds == 1
    # a new listing in the next window: the index is rebuilt and knows it
    import pandas as pd

    hk = pd.concat([_FRAMES["stock_hk_spot_em"],
                    pd.DataFrame([{"代码": "09999", "名称": "试金石控股", "最新价": 1.0}])])
    akshare_recorded.set("stock_hk_spot_em", lambda **kw: hk)
    assert picked(resolve("试金石控股")) == ("hk_stock", "09999")
    assert resolver.builds == 2


def test_an_unreadable_table_narrows_the_search_and_says_so(
        fresh: AkshareProvider, akshare_recorded: Akshare) -> None:
    def down(**kwargs: Any) -> Any:
        raise ConnectionError("stock_hk_spot_em is down")
    akshare_recorded.set("stock_hk_spot_em", down)
    r = resolve("贵州茅台")
    assert picked(r) == ("cn_stock", "600519")
    assert "tables not read: hk_stock" in r.message


def test_the_finsearchcomp_questions_never_resolve_to_another_instrument(
        tables: AkshareProvider) -> None:
    """Every T1 sample question: its own instrument, or no truth — never another one."""
    items = {x["question_id"]: x for x in json.loads(SAMPLE.read_text("utf-8"))}
    outcome: dict[str, list[str]] = {"resolved": [], "ambiguous": [], "none": []}
    for qid, item in items.items():
        r = resolve(item["prompt"])
        outcome[r.status].append(qid)
        own = item["akshare_ticker"] or item["wind_ticker"]
        if r.status == "resolved":
            assert own in (r.fields.get("akshare_ticker"), r.fields.get("wind_ticker")), qid
        if r.status == "ambiguous":
            assert own in {c["code"] for c in r.candidates}, qid
    assert outcome["ambiguous"] == ["S02", "S03", "S04"]  # 宁德时代, 招商银行, 中国平安: A and H
    assert len(outcome["resolved"]) == 19
    # English names the tables write in Chinese only (NVIDIA is 英伟达, HSBC Holdings 汇丰控股)
    assert outcome["none"] == ["S08", "S09", "S10", "S11", "S12", "S14", "S15", "S16", "S17",
                               "S23", "S25", "S26"]


def test_recorded_tables_are_those_a_capture_gives(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    monkeypatch.setattr(names, "_RESOLVERS", {})
    r = resolve("贵州茅台最新股价", "snapshot")
    assert r.status == "none" and "no recorded tables to resolve names against" in r.message
    folder = Path(__file__).resolve().parents[2] / "examples" / "data" / "market_snapshots"
    cap = Capture(TruthConfig(mode="snapshot", provider="snapshot", snapshots=folder))
    assert names.resolver_for("snapshot") is not None
    assert names.resolver_for("snapshot").tables is cap.provider  # type: ignore[union-attr]
    r = resolve("贵州茅台最新股价", "snapshot")
    assert r.fields == {"akshare_ticker": "600519", "tags": "Stock"}
    # the recorded folder has no CFETS table: said, not hidden
    assert r.message == "'贵州茅台' → 贵州茅台 600519 (cn_stock); tables not read: cny_onshore"
    snap = asyncio.run(cap.fetch(Item("q", {"prompt": "贵州茅台最新股价", **r.fields})))
    assert (snap.status, snap.fields["last"]) == ("ok", "1455.0")


def test_refresh_s_asks_the_provider_at_most_that_often(fresh: AkshareProvider,
                                                        akshare_recorded: Akshare) -> None:
    fresh.cache_s = 0  # the provider would fetch again on every call
    resolver = use_tables("akshare", fresh, refresh_s=3600)
    assert picked(resolve("贵州茅台")) == ("cn_stock", "600519")
    assert picked(resolve("腾讯控股")) == ("hk_stock", "00700")
    assert len(akshare_recorded.calls) == 8 and resolver.builds == 1
    resolver.refresh_s = None  # follow the provider's window: every call asks again
    resolve("贵州茅台")
    assert len(akshare_recorded.calls) == 16 and resolver.builds == 1


def test_global_index_repeats_yield_to_the_home_table_and_cfets_pairs_route(
        akshare_recorded: Akshare) -> None:
    import pandas as pd

    repeat = pd.DataFrame([{"代码": "HSI", "名称": "恒生指数", "最新价": 1.0},
                           {"代码": "SPX", "名称": "标普500", "最新价": 6664.01}])
    akshare_recorded.set("index_global_spot_em", lambda **kw: repeat)
    provider = AkshareProvider(min_interval_s=0)
    hsi = asyncio.run(provider.fetch("HSI", "index"))
    assert (hsi.status, hsi.market, hsi.fields["last"]) == ("ok", "h_index", "25247.1")
    assert asyncio.run(provider.fetch("SPX", "index")).market == "global_idx"
    assert route("akshare", {"akshare_ticker": "EUR/CNY", "tags": "汇率"}).market == \
        "cny_onshore"
    assert route("akshare", {"akshare_ticker": "EURUSD", "tags": "汇率"}).market == "fx"
