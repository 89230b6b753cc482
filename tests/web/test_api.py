"""The web app through its HTTP interface (FastAPI's TestClient): pages, the JSON API, reviews,
the token, and untrusted text shown as text."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from assay.store.db import open_engine
from assay.web.app import create_app
from tests.cli.test_calibrate_cli import JUDGE, scored, wilson  # noqa: F401  (shared fixture)
from tests.web.conftest import XSS, Store

S01 = "(T1)Assay_Sample_S01_right"
LOCAL = "http://127.0.0.1:8600"  # the UI answers only to the names it is bound to


@pytest.fixture()
def client(two_runs: Store) -> Iterator[TestClient]:
    yield TestClient(create_app(open_engine(two_runs.url)), base_url=LOCAL)


def test_runs_and_run_summary(client: TestClient, two_runs: Store) -> None:
    runs = client.get("/api/runs").json()
    assert {two_runs.run_a, two_runs.run_b} <= {r["id"] for r in runs}
    s = client.get(f"/api/runs/{two_runs.run_a}").json()
    rubric = s["evaluators"]["finance-rubric"]
    assert (rubric["items"], rubric["scored"], rubric["null"], rubric["error"]) == (99, 97, 1, 1)
    assert round(rubric["mean"], 4) == round(54 / 97, 4)
    assert rubric["ci_method"] == "wilson"
    low, high = rubric["ci95"]
    assert (round(low, 3), round(high, 3)) == (0.458, 0.652)
    page = client.get("/").text
    assert two_runs.run_a in page and "finance-rubric 0.557" in page



def test_run_page_and_api_show_the_judge_calibrated_against_the_rules(
        scored: tuple[Path, str], two_runs: Store) -> None:  # noqa: F811
    """The run of tests/cli/test_calibrate_cli.py (finance-rubric and a scripted LLM judge):
    the JSON API and the run page carry the figures computed there by hand."""
    cwd, run_id = scored
    c = TestClient(create_app(open_engine(f"sqlite:///{cwd / '.assay' / 'assay.db'}")),
                   base_url=LOCAL)
    (cal,) = c.get(f"/api/runs/{run_id}").json()["calibration"]
    assert (cal["judge"], cal["rubric"]) == (JUDGE, "finance-rubric")
    assert cal["counts"] == {"both_pass": 4, "both_fail": 3, "false_accept": 2,
                             "false_reject": 1}
    assert (cal["rubric_decided"], cal["compared"], cal["judge_missing"]) == (11, 10, 1)
    for name, k, n in (("accuracy", 7, 10), ("false_accept_rate", 2, 5),
                       ("false_reject_rate", 1, 5)):
        assert (cal[name]["k"], cal[name]["n"], cal[name]["rate"]) == (k, n, k / n)
        assert cal[name]["ci95"] == pytest.approx(list(wilson(k, n)))
    assert cal["kappa"] == pytest.approx(0.4)
    assert cal["differences_total"] == 3
    assert [(d["item_id"], d["kind"]) for d in cal["differences"]] == [
        ("q04", "false reject"), ("q08", "false accept"), ("q09", "false accept")]
    assert cal["differences"][1]["judge_reply"] == '数字在允许范围内。\n{"score": 1}'
    page = c.get(f"/runs/{run_id}").text
    section = page[page.index('id="calibration"'):page.index('id="filters"')]
    lo, hi = wilson(2, 5)
    assert f'0.400 <span class="muted">[{lo:.3f}, {hi:.3f}] (2/5)</span>' in section
    assert "10 of 11" in section and "3 sample(s) where the judge and the rules differ" in section
    assert f'<a href="/runs/{run_id}/items/q08">q08</a>' in section  # to the item's chain
    # a run with the rubric alone: no calibration
    rubric_only = TestClient(create_app(open_engine(two_runs.url)), base_url=LOCAL)
    assert rubric_only.get(f"/api/runs/{two_runs.run_a}").json()["calibration"] == []
    assert 'id="calibration"' not in rubric_only.get(f"/runs/{two_runs.run_a}").text

def test_filters_and_pagination(client: TestClient, two_runs: Store) -> None:
    base = f"/api/runs/{two_runs.run_a}/results"
    all_rows = client.get(base, params={"size": 500}).json()
    assert all_rows["total"] == 99 and len(all_rows["rows"]) == 99
    p2 = client.get(base, params={"size": 40, "page": 2}).json()
    assert p2["pages"] == 3 and [r["item_id"] for r in p2["rows"]] == [
        r["item_id"] for r in all_rows["rows"][40:80]]
    zeros = client.get(base, params={"score": "0", "size": 500}).json()
    assert zeros["total"] == 43 and all(r["score"] == 0 for r in zeros["rows"])
    errors = client.get(base, params={"status": "error"}).json()
    assert [r["item_id"] for r in errors["rows"]] == ["(T1)Assay_Sample_S34_bad_truth"]
    glob = client.get(base, params={"label": "Time-Sensitive_Data_Fetching(Global)",
                                    "size": 500}).json()
    assert glob["total"] == sum(1 for r in all_rows["rows"] if r["label"] ==
                                "Time-Sensitive_Data_Fetching(Global)") > 0
    html = client.get(f"/runs/{two_runs.run_a}", params={"status": "error"}).text
    assert "1 result(s) · page 1 of 1" in html and "S34_bad_truth" in html
    assert client.get(base, params={"score": "high"}).status_code == 400


def test_item_chain_page_and_json(client: TestClient, two_runs: Store) -> None:
    item = client.get(f"/api/runs/{two_runs.run_a}/items/{quote(S01, safe='')}").json()
    (res,) = item["results"]
    assert res["score"] == 1 and res["answer"]["text"].startswith("贵州茅台")
    assert res["evidence"]["values"][0]["field"] == "last"
    html = client.get(f"/runs/{two_runs.run_a}/items/{quote(S01, safe='')}").text
    for text in ("question", "贵州茅台最新股价", "ground truth", "1454.95", "review this score"):
        assert text in html
    assert client.get(f"/runs/{two_runs.run_a}/items/nope").status_code == 404


def test_untrusted_text_is_shown_as_text(client: TestClient, two_runs: Store) -> None:
    html = client.get(f"/runs/{two_runs.run_b}/items/{quote(S01, safe='')}").text
    assert "<script>window.__pwned" not in html
    # escaped, and the value the rubric read marked inside it
    # (the rubric read the script's "1" as a price, and failed it)
    assert "&lt;script&gt;window.__pwned = " in html and "&lt;/script&gt;最新价" in html
    assert '<mark class="fail" id="mark-0-0" title="last — fail">1</mark>' in html
    assert XSS not in client.get(f"/runs/{two_runs.run_b}", params={"size": 500}).text


def test_review_keeps_the_raw_score_and_corrects_the_aggregate(
        two_runs: Store, tmp_path: Path) -> None:
    # a copy (SQLite's backup: the WAL's pages too), so the reviews stay in this test
    with sqlite3.connect(two_runs.path / "ui.db") as src, \
            sqlite3.connect(tmp_path / "ui.db") as dst:
        src.backup(dst)
    client = TestClient(create_app(open_engine(f"sqlite:///{tmp_path / 'ui.db'}")),
                        base_url=LOCAL)
    run = two_runs.run_a
    stale = "(T1)Assay_Sample_S01_stale"
    r = client.post(f"/api/runs/{run}/reviews", json={
        "item_id": stale, "evaluator": "finance-rubric", "score": 1,
        "reason": "the desk accepts yesterday's close here", "reviewer": "wang"})
    assert r.status_code == 201 and r.json()["raw_score"] == 0
    s = client.get(f"/api/runs/{run}").json()["evaluators"]["finance-rubric"]
    assert s["reviewed"] == 1 and round(s["mean"], 4) == round(54 / 97, 4)
    assert round(s["corrected_mean"], 4) == round(55 / 97, 4)
    item = client.get(f"/api/runs/{run}/items/{quote(stale, safe='')}").json()
    (res,) = item["results"]
    assert res["score"] == 0 and res["review"]["score"] == 1  # raw kept beside the correction
    # the form on the item page does the same
    r = client.post(f"/runs/{run}/items/{quote(stale, safe='')}/review",
                    data={"evaluator": "finance-rubric", "score": "null", "target": "recorded",
                          "reason": "unclear", "reviewer": "li"}, follow_redirects=False)
    assert r.status_code == 303
    reviews = client.get(f"/api/runs/{run}/reviews").json()
    assert [(x["reviewer"], x["score"]) for x in reviews] == [("li", None)]
    bad = client.post(f"/api/runs/{run}/reviews", json={
        "item_id": "nope", "evaluator": "finance-rubric", "score": 1, "reason": "x",
        "reviewer": "y"})
    assert bad.status_code == 400 and "has no result" in bad.json()["detail"]


def test_compare_api_and_page(client: TestClient, two_runs: Store) -> None:
    (p,) = client.get("/api/compare", params={"runs": [two_runs.run_a, two_runs.run_b]}).json()
    # the <script> answer in B carries a stray "1": the rubric counts it, so S01 goes 1 → 0
    assert p["paired"] == 97 and p["to_worse"] == [S01] and len(p["to_better"]) > 10
    assert p["mcnemar_p"] < 0.001 and p["ci95"][0] > 0
    html = client.get("/compare", params={"runs": [two_runs.run_a, two_runs.run_b]}).text
    assert "0→1 (better in" in html and "McNemar p" in html


def test_other_pages_never_show_keys(client: TestClient, tmp_path_factory: pytest.TempPathFactory,
                                     two_runs: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    models = two_runs.path / "assay-models.yaml"
    models.write_text("models:\n  ds:\n    base_url: https://api.deepseek.com/v1\n"
                      "    model: deepseek-chat\n    api_key_env: DEEPSEEK_API_KEY\n", "utf-8")
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-live-SECRET-123")
    c = TestClient(create_app(open_engine(two_runs.url), models_file=models), base_url=LOCAL)
    html = c.get("/models").text
    assert "$DEEPSEEK_API_KEY" in html and "sk-live-SECRET" not in html
    assert "sk-live-SECRET" not in c.get("/api/models").text
    assert "finsearch-t1-judge" in c.get("/evaluators").text
    assert "判官" in c.get("/evaluators", params={"name": "finsearch-t1-judge"}).text
    assert "finsearch_t1_sample" in c.get("/datasets").text
    schema = c.get("/openapi.json").json()
    assert "/api/runs/{run_id}/results" in schema["paths"]
    assert "/api/runs/{run_id}/results" in c.get("/api").text
    assert "cdn" not in c.get("/api").text.lower()


def test_a_token_guards_the_ui(two_runs: Store) -> None:
    c = TestClient(create_app(open_engine(two_runs.url), token="s3cret"), base_url=LOCAL)
    assert c.get("/api/runs").status_code == 401
    assert c.get("/").status_code == 401
    assert c.get("/api/runs", headers={"Authorization": "Bearer s3cret"}).status_code == 200
    r = c.get("/", params={"token": "s3cret"})
    assert r.status_code == 200 and c.cookies.get("assay_token") == "s3cret"
    assert c.get("/datasets").status_code == 200  # the cookie carries on


def test_serving_beyond_localhost_needs_a_token(two_runs: Store) -> None:
    from assay.core.errors import ConfigError
    from assay.web.app import serve

    with pytest.raises(ConfigError, match="set ASSAY_UI_TOKEN"):
        serve(open_engine(two_runs.url), host="0.0.0.0", port=1, token=None)


def test_listings_come_from_the_registries(tmp_path: Path) -> None:
    c = TestClient(create_app(open_engine(f"sqlite:///{tmp_path / 'empty.db'}")),
                   base_url=LOCAL)
    evaluators = {e["name"]: e for e in c.get("/api/evaluators").json()}
    assert evaluators["finance-hybrid"]["kind"] == "hybrid"
    assert evaluators["finsearch-t1-judge"]["kind"] == "judge template"
    assert evaluators["finsearch-t1-judge"]["variables"] == [
        "prompt", "response_reference", "ground_truth", "response"]
    assert {"finance-rubric", "item-judge", "jury-majority"} <= set(evaluators)
    assert "finance-hybrid" in c.get("/evaluators").text
    targets = [t["name"] for t in c.get("/api/targets").json()]
    assert targets == ["model", "http", "python", "command", "recorded",
                       "baseline-quote-agent"]
    providers = {p["name"]: p for p in c.get("/api/providers").json()}
    assert list(providers) == ["akshare", "yfinance", "tushare", "wind", "snapshot"]
    assert providers["yfinance"]["extra"] == "yfinance"
