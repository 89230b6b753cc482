"""Ground truth captured in a run: live (AKShare on recorded tables, in parallel with the
target), snapshot tables, provider failures — stored with provenance and judged as the T1 rules
say."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

import assay
from tests.cli.test_run_cli import run
from tests.conftest import SAMPLE
from tests.truth.conftest import SNAPSHOTS, Akshare

ITEMS = json.loads(SAMPLE.read_text("utf-8"))
EXPECTED = {x["prompt_id"]: x["expected_score"] for x in ITEMS}


def slow_recorded(item: dict[str, Any]) -> str:
    time.sleep(0.3)  # the model thinks; the quote is fetched meanwhile
    return str(item["response"])


def rows(db: Path, sql: str) -> list[Any]:
    return sqlite3.connect(db).execute(sql).fetchall()


def test_live_capture_runs_beside_the_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             akshare_recorded: Akshare) -> None:
    monkeypatch.chdir(tmp_path)
    chosen = [x for x in ITEMS if x["question_id"] in ("S01", "S02", "S13", "S23", "S29")]
    r = assay.evaluate(chosen, slow_recorded, db="sqlite:///a.db", concurrency=16,
                       ground_truth="live", truth={"provider": "akshare",
                                                   "min_interval_s": 0})
    assert r.status == "finished"
    got = {x["item_id"]: x["score"] for x in r.results()}
    assert got == {x["prompt_id"]: x["expected_score"] for x in chosen}
    snaps = rows(tmp_path / "a.db", "SELECT item_id, mode, provider, instrument, status, gap_s, "
                 "query FROM truth_snapshots")
    assert len(snaps) == len(chosen)
    for _, mode, provider, _, status, gap, query in snaps:
        assert (mode, provider, status) == ("live", "akshare", "ok")
        assert -1.0 < gap < 0  # fetched while the target was still answering
        assert query.startswith("ak.")
    # one bulk fetch per market serves all these items (several answers per question)
    assert len(chosen) > 10
    assert sorted(c[0] for c in akshare_recorded.calls) == [
        "forex_spot_em", "index_global_spot_em", "stock_hk_index_spot_em", "stock_us_spot_em",
        "stock_zh_a_spot_em", "stock_zh_index_spot_em"]
    spans = rows(tmp_path / "a.db", "SELECT name, attributes FROM spans WHERE kind = 'truth'")
    assert len(spans) == len(chosen) and all(n == "akshare" for n, _ in spans)
    assert all('"gap_s"' in a and '"query"' in a for _, a in spans)
    out = run("show", r.id, "--item", chosen[0]["prompt_id"], "--db", "sqlite:///a.db",
              cwd=tmp_path).stdout
    assert "ground truth (live) for slow_recorded: akshare 600519 (cn_stock) — ok" in out
    assert "query: ak.stock_zh_a_spot_em() → 代码 == '600519'" in out
    # issue 28: the gap in words (fetched while the target was still answering)
    assert re.search(r"UTC, at the answer's time \(\d+ ms apart\)\n", out), out
    assert "stale" not in out


def test_a_slow_answer_gets_a_fresh_quote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          akshare_recorded: Akshare) -> None:
    monkeypatch.chdir(tmp_path)
    r = assay.evaluate([ITEMS[0]], slow_recorded, db="sqlite:///a.db", ground_truth="live",
                       truth={"window_s": 0.1, "min_interval_s": 0})
    assert r.results()[0]["score"] == 1
    assert [c[0] for c in akshare_recorded.calls] == ["stock_zh_a_spot_em"] * 2
    (gap,), = rows(tmp_path / "a.db", "SELECT gap_s FROM truth_snapshots")
    assert -0.1 <= gap <= 0.1


def test_provider_failure_is_an_item_error_not_a_crash(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, akshare_recorded: Akshare) -> None:
    monkeypatch.chdir(tmp_path)

    def down(**kw: Any) -> Any:
        raise ConnectionError("push2.eastmoney.com refused")

    akshare_recorded.set("stock_zh_a_spot_em", down)
    chosen = [x for x in ITEMS if x["prompt_id"] in ("(T1)Assay_Sample_S01_right",
                                                     "(T1)Assay_Sample_S13_right")]
    r = assay.evaluate(chosen, None, db="sqlite:///a.db", ground_truth="live",
                       truth={"min_interval_s": 0})
    res = {x["item_id"]: x for x in r.results()}
    s01 = res[chosen[0]["prompt_id"]]
    assert s01["status"] == "error" and s01["score"] is None
    assert s01["reason"] == ("ground truth unavailable: ConnectionError: push2.eastmoney.com "
                             "refused")
    assert res[chosen[1]["prompt_id"]]["score"] == chosen[1]["expected_score"], \
        res[chosen[1]["prompt_id"]]["reason"]


def test_snapshot_mode_through_a_spec(tmp_path: Path) -> None:
    (tmp_path / "spec.yaml").write_text(
        f"dataset: {SAMPLE}\ntargets: [{{type: recorded}}]\nevaluators: [finance-rubric]\n"
        f"ground_truth: snapshot:{SNAPSHOTS}@2025-10-17\n", "utf-8")
    r = run("run", "spec.yaml", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    db = tmp_path / ".assay" / "assay.db"
    got = dict(rows(db, "SELECT item_id, score FROM results"))
    assert got == EXPECTED  # the same decisions from the recorded tables as from stored truth
    modes = rows(db, "SELECT DISTINCT mode, provider FROM truth_snapshots")
    assert modes == [("snapshot", "snapshot")]
    r = run("replay", r.stdout.split("run ")[-1].split()[0], cwd=tmp_path)
    assert r.returncode == 0 and "100.0%" in r.stdout


def test_truth_fetch_command(tmp_path: Path) -> None:
    r = run("truth", "fetch", "-p", "snapshot", "--snapshots", str(SNAPSHOTS), "-i", "00700",
            "--tags", "Stock", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    snap = json.loads(r.stdout)
    assert snap["fields"]["last"] == "608.0" and snap["market"] == "hk_stock"
    assert snap["fetched_at"] == "2025-10-17T10:35:05+00:00"
    assert snap["query"] == "snapshot hk_stock_20251017T103505Z.csv → 代码 == '00700'"
    r = run("truth", "fetch", "-p", "snapshot", "--snapshots", str(SNAPSHOTS), "-i", "腾讯",
            "--market", "hk_stock", cwd=tmp_path)
    assert r.returncode == 1 and "not in the hk_stock table" in r.stdout
    r = run("truth", "fetch", "-p", "bloomberg", "-i", "X", cwd=tmp_path)
    assert r.returncode == 2 and "unknown ground-truth provider 'bloomberg'" in r.stderr
    r = run("truth", "fetch", "-p", "akshare", "-i", "600519", cwd=tmp_path)
    assert r.returncode == 2 and "give --market" in r.stderr


def test_an_empty_quote_scores_null_as_the_t1_rules_say(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, akshare_recorded: Akshare) -> None:
    import pandas as pd

    monkeypatch.chdir(tmp_path)
    akshare_recorded.set("stock_zh_a_spot_em", lambda **kw: pd.DataFrame(
        [{"代码": "600519", "名称": "贵州茅台", "最新价": "-", "今开": "-", "最高": None}]))
    r = assay.evaluate([ITEMS[0]], None, db="sqlite:///a.db", ground_truth="live",
                       truth={"min_interval_s": 0})
    (res,) = r.results()
    assert (res["score"], res["status"]) == (None, "null")
    (status, message), = rows(tmp_path / "a.db", "SELECT status, message FROM truth_snapshots")
    assert (status, message) == ("empty", "the row has no numeric value")
