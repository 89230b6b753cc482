"""The AKShare provider's real code path on recorded tables: routing, exact lookup, one bulk
fetch per market, politeness, and every failure as a snapshot status."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from assay.core.errors import ConfigError
from assay.core.types import Item
from assay.truth.base import require
from assay.truth.capture import Capture, TruthConfig
from assay.truth.tables import AkshareProvider
from tests.conftest import SAMPLE
from tests.truth.conftest import Akshare

ITEMS = json.loads(SAMPLE.read_text("utf-8"))
QUESTIONS = {x["question_id"]: x for x in ITEMS}


def capture(**options: Any) -> Capture:
    cap = Capture(TruthConfig(mode="live", provider="akshare"))
    cap.provider = AkshareProvider(**{"min_interval_s": 0, **options})
    return cap


def fetch_all(cap: Capture, rows: list[dict[str, Any]]) -> list[Any]:
    async def go() -> list[Any]:
        return list(await asyncio.gather(*(cap.fetch(Item(r["prompt_id"], r)) for r in rows)))
    return asyncio.run(go())


def test_every_sample_instrument_matches_its_recorded_ground_truth(
        akshare_recorded: Akshare) -> None:
    snaps = fetch_all(capture(), list(QUESTIONS.values()))
    by_q = dict(zip(QUESTIONS, snaps, strict=True))
    for qid, snap in by_q.items():
        if qid in ("S33", "S34"):
            continue  # SGE benchmark and COMEX: shape fixtures below, not the sample's values
        assert snap.status == "ok", (qid, snap.message)
        truth = json.loads(QUESTIONS[qid]["ground_truth"])
        inner = next(iter(truth.values())) if len(truth) == 1 else truth
        for key in ("最新价", "RT_LAST", "price"):
            if key in inner:
                assert float(snap.fields["last"]) == float(inner[key]), qid
    aapl = by_q["S13"]
    assert aapl.provider == "akshare" and aapl.market == "us_stock"
    assert aapl.query == "ak.stock_us_spot_em() → 代码 == '105.AAPL'"
    assert aapl.fields["prev_close"] == "249.34" and aapl.source_fields["名称"] == "苹果"
    assert aapl.payload["最新价"] == 247.45  # evaluators get AKShare's own row
    hsi = by_q["S23"]
    assert hsi.market == "h_index" and hsi.fields["last"] == "25247.1"
    assert by_q["S01"].source_fields["代码"] == "600519"
    sge = by_q["S33"]
    assert (sge.market, sge.fields["pm_fix"], sge.fields["am_fix"]) == \
        ("sge_benchmark", "985.6", "991.02")
    assert by_q["S34"].fields["last"] == "4255.9" and by_q["S34"].market == "comex"


def test_one_bulk_fetch_per_market_serves_every_item(akshare_recorded: Akshare) -> None:
    cn = [x for x in ITEMS if x["tags"] == "Stock" and x["akshare_ticker"].isdigit()
          and len(x["akshare_ticker"]) == 6]
    assert len(cn) > 10
    fetch_all(capture(), cn)
    assert [c[0] for c in akshare_recorded.calls] == ["stock_zh_a_spot_em"]
    # index items look in the three index tables, each fetched once
    idx = [x for x in ITEMS if x["tags"] == "Index"]
    fetch_all(capture(), idx)
    assert sorted(c[0] for c in akshare_recorded.calls[1:]) == [
        "index_global_spot_em", "stock_hk_index_spot_em", "stock_zh_index_spot_em"]
    assert ("stock_zh_index_spot_em", {"symbol": "沪深重要指数"}) in akshare_recorded.calls


def test_cache_expires_and_calls_are_spaced(akshare_recorded: Akshare) -> None:
    cap = capture(cache_s=0.2, min_interval_s=0.3)
    row = QUESTIONS["S01"]
    start = time.monotonic()
    fetch_all(cap, [row])
    fetch_all(cap, [row])  # cached
    assert len(akshare_recorded.calls) == 1
    time.sleep(0.25)
    fetch_all(cap, [row])
    assert len(akshare_recorded.calls) == 2
    assert time.monotonic() - start >= 0.3  # the second call waited for the interval


def test_release_shapes_and_exact_codes(akshare_recorded: Akshare) -> None:
    cap = capture()
    pm = dict(QUESTIONS["S17"], akshare_ticker="106.PM.USA")  # the release's own spelling
    snap, = fetch_all(cap, [pm])
    assert snap.status == "ok" and snap.instrument == "106.PM.USA"
    assert snap.query.endswith("代码 == '106.PM'")
    unknown = dict(QUESTIONS["S01"], akshare_ticker="600520")
    snap, = fetch_all(cap, [unknown])
    assert snap.status == "error"
    assert snap.message == "instrument '600520' is not in the cn_stock table (6 rows; exact " \
        "codes only)"
    nameless = dict(QUESTIONS["S13"], akshare_ticker="AAPL")  # no exchange prefix: no guess
    snap, = fetch_all(cap, [nameless])
    assert snap.status == "error" and "cannot tell the market of 'AAPL'" in str(snap.message)
    untagged = dict(QUESTIONS["S01"], tags="Option")
    snap, = fetch_all(cap, [untagged])
    assert snap.status == "error" and snap.query == "routing"


@pytest.mark.parametrize(("behaviour", "status", "message"), [
    ("raise", "error", "ConnectionError: eastmoney unreachable"),
    ("empty", "empty", "the source returned an empty table"),
    ("slow", "error", "timeout after 0.2 s"),
    ("malformed", "empty", "the row has no numeric value"),
])
def test_failures_are_snapshot_statuses(akshare_recorded: Akshare, behaviour: str, status: str,
                                        message: str) -> None:
    import pandas as pd

    def broken(**kw: Any) -> Any:
        if behaviour == "raise":
            raise ConnectionError("eastmoney unreachable")
        if behaviour == "empty":
            return pd.DataFrame()
        if behaviour == "slow":
            time.sleep(1.0)
        return pd.DataFrame([{"代码": "600519", "名称": "贵州茅台", "最新价": "-",
                              "今开": "-", "最高": None}])

    akshare_recorded.set("stock_zh_a_spot_em", broken)
    snap, = fetch_all(capture(timeout_s=0.2), [QUESTIONS["S01"]])
    assert (snap.status, snap.message) == (status, message)
    assert snap.instrument == "600519" and snap.provider == "akshare"


def test_a_missing_package_names_its_extra() -> None:
    with pytest.raises(ConfigError, match=r"pip install '\.\[wind\]' in Assay's checkout"):
        require("no_such_data_package_zz", "wind")


def test_sge_spot_and_bond_yields(akshare_recorded: Akshare) -> None:
    cap = capture()
    spot, bond, bad = fetch_all(cap, [
        {"prompt_id": "g", "akshare_ticker": "Au99.99", "tags": "黄金"},
        {"prompt_id": "b", "akshare_ticker": "CGB10Y", "tags": "国债"},
        {"prompt_id": "x", "akshare_ticker": "CGB2Y", "tags": "Bond"}])
    assert (spot.status, spot.market, spot.fields["last"]) == ("ok", "sge_spot", "981.02")
    assert ("spot_quotations_sge", {"symbol": "Au99.99"}) in akshare_recorded.calls
    assert (bond.status, bond.fields["last"], bond.fields["time"]) == ("ok", "1.7602",
                                                                       "2025-10-17")
    assert bond.payload == {"收益率": "1.7602", "日期": "2025-10-17",
                            "曲线名称": "中债国债收益率曲线", "期限": "10年"}
    _, kwargs = next(c for c in akshare_recorded.calls if c[0] == "bond_china_yield")
    assert set(kwargs) == {"start_date", "end_date"}
    assert bad.status == "error" and "not a bond yield code" in str(bad.message)
