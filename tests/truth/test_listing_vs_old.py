"""Temporary: the market of a code (`markets.listing`) and each provider's own routing against
the classifiers and provider switches they replace (verbatim in old_classifiers.py), on every
code of the sample datasets and the recorded tables and on generated ones; removed with them,
the answers pinned in test_markets.py."""

from __future__ import annotations

import csv
import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.evaluators.rubric.instruments import _listing
from assay.truth.markets import listing
from assay.truth.name_index import Instrument
from assay.truth.names import provider_fields
from assay.truth.routing import route, table_market
from tests.conftest import ROOT
from tests.truth import old_classifiers as old

PROVIDERS = ("akshare", "snapshot", "yfinance", "tushare", "wind")
TAGS = ("Stock", "stock", "A股", "Index", "指数", "国债", "bond", "黄金", "黄金 spot", "汇率", "FX",
        "", "贵金属", ["Stock", "A股"])
MARKETS = ("cn_stock", "hk_stock", "us_stock", "cn_index", "h_index", "global_idx", "fx",
           "cny_onshore", "cn_bond", "sge_spot", "sge_benchmark", "comex")
EXTRA = ["600519.SS", "700.HK", "0700.hk", "106___PM", "brk.b", "BRK.B.N", "６００５１９",
         "600519.sh", "", " 600519", "AAPL.OQ", "AAPL.US", "Au99.99", "USD/CNY", "USDCNY",
         "SHAU.SGE", "GC.CMX", "USDCNY.IB", "shau.sge", "CGB10Y", "900901", "430047", "830799",
         "920001", "000001", "399001", "105.BRK_B", "153.XYZ", "00005", "0005.HK"]


def corpus() -> list[str]:
    codes: set[str] = set(EXTRA)
    for f in ("finsearch_t1_sample.json", "finsearch_t23_sample.json"):
        data = json.loads((ROOT / "examples" / f).read_text("utf-8"))
        rows = data if isinstance(data, list) else next(iter(data.values()))
        for r in rows:
            if isinstance(r, dict):
                codes.update(str(r[k]) for k in ("akshare_ticker", "wind_ticker",
                                                  "yfinance_ticker") if r.get(k))
    for f in (ROOT / "tests" / "data" / "market_snapshots_full").glob("*.csv"):
        with f.open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                codes.add(row.get("代码") or row.get("货币对") or "")
    return sorted(codes)


def check_code(code: str) -> None:
    found = listing(code)
    for tags in TAGS:
        text = " ".join(tags) if isinstance(tags, list) else tags
        assert table_market(code, text) == old.table_market(code, text), (code, tags)
    assert _listing((code,), "", "") == old.listing_letter((code,), ""), code
    assert _listing(("", code), code, "") == old.listing_letter(("", code), code), code
    if re.fullmatch(r"\d{6}", code):
        assert found is not None and found.exchange == old.exchange_of_stock(code), code


def check_route(code: str, wind: str = "") -> None:
    for provider in PROVIDERS:
        for tags in TAGS[:4] + TAGS[9:11] + TAGS[13:]:
            for name in ("akshare_ticker", "wind_ticker", "yfinance_ticker"):
                fields = {name: code, "tags": tags, **({"wind_ticker": wind} if wind else {})}
                for kw in ({}, {"market": "hk_stock"}, {"field": "code"},
                           {"field": name, "market": "fx"}):
                    new = route(provider, fields, **kw)  # type: ignore[arg-type]
                    assert (new.instrument, new.market, new.error) == old.route(
                        provider, fields, **kw), (provider, fields, kw)  # type: ignore[arg-type]


def check_fields(market: str, code: str) -> None:
    for provider in PROVIDERS:
        new = provider_fields(Instrument(market, code, "名"), provider)
        assert new == old.provider_fields(market, code, provider), (market, code, provider)
        if new is not None:  # and the same order of keys, as items record them
            assert list(new) == list(old.provider_fields(market, code, provider) or {})


def test_every_known_code() -> None:
    codes = corpus()
    assert len(codes) > 20000
    for code in codes:
        check_code(code)


def test_routes_and_fields_of_every_known_code() -> None:
    tables = {}
    for f in (ROOT / "tests" / "data" / "market_snapshots_full").glob("*.csv"):
        with f.open(encoding="utf-8") as fh:
            tables[f.name.rsplit("_", 1)[0]] = [row.get("代码") or "" for row in
                                               csv.DictReader(fh)]
    for market, codes in tables.items():
        for code in codes:
            check_fields(market, code)
    for market in MARKETS:
        for code in EXTRA:
            check_fields(market, code)
    for code in corpus()[::50] + EXTRA:
        check_route(code)
        for wind in ("SHAU.SGE", "gc.cmx", "USDCNY.IB", "600519.SH"):
            check_route(code, wind)


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="0123456789６.ABHKNOSUZabhkz_-/ ", max_size=12))
def test_generated_codes(code: str) -> None:
    check_code(code)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789.ABHKNOSUZ_-/ ", max_size=10),
       st.sampled_from(["", "SHAU.SGE", "GC.CMX", "USDCNY.IB"]), st.sampled_from(MARKETS))
def test_generated_routes_and_fields(code: str, wind: str, market: str) -> None:
    check_route(code, wind)
    check_fields(market, code)
