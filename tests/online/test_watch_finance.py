"""The finance online test: a quote agent's traces (posted OTLP protobuf) reach `assay watch`;
each question names its instrument in words, which is resolved against the AKShare tables
(recorded, AKShare patched at its boundary only); live truth is fetched for the answer, and
finance-rubric scores it with the spec's required point and precision rule."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from assay.store import repo
from tests.online.otlp_send import agent_trace, send
from tests.online.watching import Watching
from tests.truth.conftest import Akshare

pytestmark = pytest.mark.server  # the watch listens
SPEC = """name: quote-online
source: {otlp: "127.0.0.1:0"}
quiet_s: 0.1
evaluators: [finance-rubric]
rubric: {required: latest price, precision: rounding}
ground_truth: live
truth: {provider: akshare, min_interval_s: 0}
"""


def test_quote_agent_traces_resolved_by_name_and_scored_on_live_truth(
        tmp_path: Path, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    akshare = Akshare(monkeypatch)  # the recorded tables of 2025-10-17
    spec = tmp_path / "watch.yaml"
    spec.write_text(SPEC, "utf-8")
    w = Watching(db_url, spec).start()
    answered_ns = time.time_ns() - 2_000_000_000  # the agent answered two seconds ago
    traces = {
        "moutai": agent_trace("贵州茅台最新股价是多少？", "贵州茅台最新股价为1455.00元",
                              end_ns=answered_ns),
        "tencent": agent_trace("腾讯控股现在多少钱一股？", "腾讯控股最新价612.00港元",
                               end_ns=answered_ns),
        "usdcny": agent_trace("USD/CNY 最新汇率", "美元兑人民币最新报价7.13",
                              end_ns=answered_ns),
        "two": agent_trace("贵州茅台和腾讯控股哪个价格更高？", "贵州茅台1455元更高",
                           end_ns=answered_ns),
        "none": agent_trace("今天天气怎么样？", "晴", end_ns=answered_ns),
    }
    for spans in traces.values():
        send(w.endpoint, spans)
    w.wait_evaluated(len(traces))
    w.stop()
    ids = {name: spans[0].trace_id for name, spans in traces.items()}
    items = repo.get_items(w.engine, f"online:{w.run_id}")
    res = {r["item_id"]: r for r in repo.list_results(w.engine, w.run_id)}
    truth = {t["item_id"]: t for t in repo.list_truth(w.engine, w.run_id)}

    # the instrument comes from the question's name, as fields the provider routes
    moutai = items[ids["moutai"]].fields
    assert (moutai["akshare_ticker"], moutai["tags"]) == ("600519", "Stock")
    assert moutai["instrument_resolution"]["status"] == "resolved"
    assert moutai["instrument_resolution"]["candidates"] == [
        {"name": "贵州茅台", "code": "600519", "market": "cn_stock", "matched": "贵州茅台"}]
    assert moutai["response_reference"] == "必答点：latest price\n精度要求：仅允许四舍五入误差"
    # live truth for that instrument, fetched after the answer, its time the trace's
    t = truth[ids["moutai"]]
    assert (t["provider"], t["instrument"], t["status"]) == ("akshare", "600519", "ok")
    assert t["answered_at"].timestamp() == pytest.approx(answered_ns / 1e9, abs=1e-3)
    assert 0 <= t["fetched_at"].timestamp() - answered_ns / 1e9 < 60
    assert t["query"] == "ak.stock_zh_a_spot_em() → 代码 == '600519'"
    # scored by finance-rubric against it: 1455.00 is the price, 612 is not (608.0)
    assert (res[ids["moutai"]]["status"], res[ids["moutai"]]["score"]) == ("scored", 1.0)
    assert truth[ids["tencent"]]["instrument"] == "00700"
    assert (res[ids["tencent"]]["status"], res[ids["tencent"]]["score"]) == ("scored", 0.0)
    # the CFETS onshore quote (bid 7.1290, ask 7.1300): 7.13 is its mid 7.1295 rounded
    assert truth[ids["usdcny"]]["instrument"] == "USD/CNY"
    assert (res[ids["usdcny"]]["status"], res[ids["usdcny"]]["score"]) == ("scored", 1.0)

    # two instruments: no truth, the candidates recorded and the reason on the result
    two = items[ids["two"]].fields
    assert "akshare_ticker" not in two
    assert two["instrument_resolution"]["status"] == "ambiguous"
    assert [c["code"] for c in two["instrument_resolution"]["candidates"]] == ["600519",
                                                                              "00700"]
    # no one instrument in the question: no ground truth, so null (not an error to retry)
    assert (res[ids["two"]]["status"], res[ids["two"]]["score"]) == ("null", None)
    assert "2 instruments match: 贵州茅台 600519" in res[ids["two"]]["reason"]
    nothing = items[ids["none"]].fields["instrument_resolution"]
    assert (nothing["status"], nothing["candidates"]) == ("none", [])
    assert (res[ids["none"]]["status"], res[ids["none"]]["score"]) == ("null", None)
    assert "no instrument name or code" in res[ids["none"]]["reason"]

    # one bulk fetch per table served both the names and the truth
    fetched = [name for name, _ in akshare.calls]
    assert fetched.count("stock_zh_a_spot_em") == 1 and fetched.count("stock_hk_spot_em") == 1
    assert fetched.count("fx_spot_quote") == 1

    # issue 28: the traces as a dataset — question, answer, the truth captured beside it with
    # its provenance — scored again later from the store, with no fetch and the same decisions
    import asyncio

    from assay.datasets.from_run import add_from_run
    from assay.runner.score import score, score_spec

    done = add_from_run(w.engine, "prod-regress", w.run_id)
    assert (done.new, done.items, done.skipped, done.version.ref) == (True, 5, 0,
                                                                       "prod-regress@1")
    kept = repo.get_items(w.engine, done.version.dataset_id)
    m = kept[ids["moutai"]].fields
    assert m["response"] == "贵州茅台最新股价为1455.00元"
    assert m["ground_truth"] == t["payload"]
    assert m["truth_provenance"]["query"] == "ak.stock_zh_a_spot_em() → 代码 == '600519'"
    assert m["from_run"] == {"run": w.run_id, "target": "agent", "item": ids["moutai"]}
    assert "ground_truth" not in kept[ids["two"]].fields  # nothing was captured for it
    again = add_from_run(w.engine, "prod-regress", w.run_id)
    assert (again.new, again.version.ref) == (False, "prod-regress@1")  # same content
    calls = len(akshare.calls)
    rescored = asyncio.run(score(w.engine, score_spec(Path("prod-regress@1"),
                                                      ["finance-rubric"])))
    rows = {r["item_id"]: r for r in repo.list_results(w.engine, rescored.run_id)}
    assert {k: (rows[v]["status"], rows[v]["score"]) for k, v in ids.items()
            if k in ("moutai", "tencent", "usdcny")} == {
        "moutai": ("scored", 1.0), "tencent": ("scored", 0.0), "usdcny": ("scored", 1.0)}
    assert len(akshare.calls) == calls  # scored from the kept truth: nothing fetched
