"""Properties of name resolution on the sample's recorded tables (examples/data): it never
raises, its three statuses keep their shape, and a table's name between punctuation is found
whatever surrounds it."""

from __future__ import annotations

import csv
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.truth.name_index import NameIndex
from assay.truth.names import NAMED_MARKETS, decide
from tests.conftest import ROOT

SNAPSHOTS = ROOT / "examples" / "data" / "market_snapshots"


@cache
def index() -> NameIndex:
    tables = {}
    for market in NAMED_MARKETS:
        path = next(SNAPSHOTS.glob(f"{market}_*.csv"), None)
        if path is not None:
            with path.open(encoding="utf-8") as fh:
                tables[market] = list(csv.DictReader(fh))
    return NameIndex.build(tables, {m: "代码" for m in tables})


NAMES = [("贵州茅台", "600519"), ("腾讯控股", "00700"), ("宁德时代", "300750"),
         ("英伟达", "105.NVDA"), ("上证指数", "000001"), ("恒生指数", "HSI"),
         ("美元兑离岸人民币", "USDCNH")]
GAP = st.text(alphabet=" \t,.;:!?()[]\"'，。？！：；、（）【】“”", max_size=6)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_text_gets_one_of_three_shapes(question: str) -> None:
    r = decide(question, index())
    assert r.status in ("resolved", "ambiguous", "none")
    assert r.message and "\n" not in r.message
    if r.status == "resolved":
        code = r.candidates[0]["code"]  # SHAU → wind_ticker SHAU.SGE, the rest akshare_ticker
        assert len(r.candidates) == 1 and r.fields.get("akshare_ticker", code) == code
        assert code in r.fields.get("wind_ticker", code) and r.fields["tags"]
    elif r.status == "ambiguous":
        assert r.candidates and r.fields == {}
    else:
        assert r.fields == {}


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(NAMES), GAP, GAP)
def test_a_name_between_punctuation_is_found(name_code: tuple[str, str], before: str,
                                             after: str) -> None:
    name, code = name_code
    r = decide(before + name + after, index())
    assert r.status == "resolved", r.message
    assert r.fields["akshare_ticker"] == code and r.candidates[0]["matched"] == name
