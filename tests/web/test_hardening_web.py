"""Hardening of the local UI (issue 13): cross-site writes and foreign Host names refused,
CSP and nosniff on every response, review scores checked, no 500 for a huge page or an odd
token, a lowercase bearer scheme accepted, the token taken out of the URL after use."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from assay.store.db import open_engine
from assay.web.app import create_app
from tests.invoke import assay_in_process
from tests.web.conftest import Store

STALE = "(T1)Assay_Sample_S01_stale"
LOCAL = "http://127.0.0.1:8600"


@pytest.fixture()
def copy(two_runs: Store, tmp_path: Path) -> Iterator[str]:
    """A copy of the two-run store, so what a test writes stays in the test."""
    with sqlite3.connect(two_runs.path / "ui.db") as src, \
            sqlite3.connect(tmp_path / "ui.db") as dst:
        src.backup(dst)
    yield f"sqlite:///{tmp_path / 'ui.db'}"


def reviews(url: str) -> int:
    with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
        return int(db.execute("SELECT count(*) FROM reviews").fetchone()[0])


def form(score: str = "1") -> dict[str, str]:
    return {"evaluator": "finance-rubric", "score": score, "target": "recorded",
            "reason": "ok", "reviewer": "li"}


# ---- 4. cross-site writes, foreign Host names, CSP --------------------------------------

def test_a_cross_site_form_post_is_refused(copy: str, two_runs: Store) -> None:
    c = TestClient(create_app(open_engine(copy)), base_url=LOCAL)
    path = f"/runs/{two_runs.run_a}/items/{quote(STALE, safe='')}/review"
    for headers in ({"Origin": "https://evil.example"}, {"Origin": "null"},
                    {"Sec-Fetch-Site": "cross-site"},
                    {"Referer": "https://evil.example/page"}):
        r = c.post(path, data=form(), headers=headers, follow_redirects=False)
        assert r.status_code == 403, headers
        assert "cross-site" in r.text
    r = c.post(f"/api/runs/{two_runs.run_a}/reviews", headers={"Origin": "http://evil.example"},
               json={"item_id": STALE, "evaluator": "finance-rubric", "score": 1,
                     "reason": "x", "reviewer": "y"})
    assert r.status_code == 403
    assert reviews(copy) == 0
    # the UI's own form (same origin), and a client that sends no Origin (curl, scripts)
    r = c.post(path, data=form(), headers={"Origin": LOCAL, "Sec-Fetch-Site": "same-origin"},
               follow_redirects=False)
    assert r.status_code == 303
    r = c.post(path, data=form(), follow_redirects=False)
    assert r.status_code == 303 and reviews(copy) == 2


def test_only_the_bound_host_names_are_served(two_runs: Store) -> None:
    c = TestClient(create_app(open_engine(two_runs.url)), base_url=LOCAL)
    for host in ("evil.example", "evil.example:8600", "127.0.0.1.evil.example"):
        r = c.get("/api/runs", headers={"Host": host})
        assert r.status_code == 400, host  # a DNS-rebinding page reads nothing
        assert "Host" in r.text
    for host in ("127.0.0.1:8600", "localhost:8600", "[::1]:8600", "localhost"):
        assert c.get("/api/runs", headers={"Host": host}).status_code == 200, host
    bound = TestClient(create_app(open_engine(two_runs.url), hosts=["assay.lan"]),
                       base_url="http://assay.lan:8600")
    assert bound.get("/api/runs").status_code == 200
    assert bound.get("/api/runs", headers={"Host": "evil.example"}).status_code == 400


def test_every_response_carries_csp_and_nosniff(two_runs: Store) -> None:
    c = TestClient(create_app(open_engine(two_runs.url)), base_url=LOCAL)
    for path in ("/", f"/runs/{two_runs.run_a}", "/api/runs", "/static/assay.css",
                 "/runs/nope"):
        r = c.get(path)
        assert r.headers["x-content-type-options"] == "nosniff", path
        csp = r.headers["content-security-policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
        assert "script-src 'self'" in csp and "form-action 'self'" in csp
        assert r.headers["referrer-policy"] == "same-origin"
    assert c.get("/api/runs", headers={"Host": "evil.example"}).headers[
        "x-content-type-options"] == "nosniff"


# ---- 5. review scores are checked ----------------------------------------------------------

@pytest.mark.parametrize("score", ["nan", "inf", "-inf", "-5", "7", "1.0001"])
def test_a_review_score_outside_the_evaluators_range_is_refused(
        copy: str, two_runs: Store, score: str) -> None:
    c = TestClient(create_app(open_engine(copy)), base_url=LOCAL)
    path = f"/runs/{two_runs.run_a}/items/{quote(STALE, safe='')}/review"
    r = c.post(path, data=form(score), follow_redirects=False)
    assert r.status_code == 400
    assert "finance-rubric scores from 0 to 1" in r.text
    value = float(score)
    if value == value and abs(value) != float("inf"):
        r = c.post(f"/api/runs/{two_runs.run_a}/reviews", json={
            "item_id": STALE, "evaluator": "finance-rubric", "score": value, "reason": "x",
            "reviewer": "y"})
    else:  # JSON itself has no NaN or Infinity; Python's json module reads them anyway
        literal = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}[score]
        r = c.post(f"/api/runs/{two_runs.run_a}/reviews",
                   content=f'{{"item_id": "{STALE}", "evaluator": "finance-rubric", '
                           f'"score": {literal}, "reason": "x", "reviewer": "y"}}',
                   headers={"Content-Type": "application/json"})
    assert r.status_code in (400, 422), r.text
    assert reviews(copy) == 0
    # the run's pages still work, and in-range scores are taken
    assert c.get(f"/api/runs/{two_runs.run_a}").status_code == 200
    assert c.post(path, data=form("0.5"), follow_redirects=False).status_code == 303


# ---- 8. no 500 for a huge page or an odd token -------------------------------------------

@pytest.mark.parametrize("params", [{"page": "9223372036854775807"}, {"page": "-3"},
                                    {"size": "0"}, {"size": "9223372036854775807"}])
def test_any_page_or_size_is_answered_without_a_500(two_runs: Store,
                                                     params: dict[str, str]) -> None:
    c = TestClient(create_app(open_engine(two_runs.url)), base_url=LOCAL)
    r = c.get(f"/api/runs/{two_runs.run_a}/results", params=params)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["page"] >= 1 and 1 <= body["size"] <= 1000 and body["total"] == 99
    assert c.get(f"/runs/{two_runs.run_a}", params=params).status_code == 200


def test_a_non_ascii_token_is_a_401_not_a_500(two_runs: Store) -> None:
    c = TestClient(create_app(open_engine(two_runs.url), token="s3cret"), base_url=LOCAL)
    for odd in ("Bearer sécret", "Bearer 秘密", "Basic czNjcmV0"):
        r = c.get("/api/runs", headers={"Authorization": odd.encode()})  # raw UTF-8
        assert r.status_code == 401, odd
    assert c.get("/api/runs", params={"token": "秘密"}).status_code == 401


# ---- 11. the token leaves the URL; `assay view` refuses before printing ------------------

def test_the_bearer_scheme_is_case_insensitive(two_runs: Store) -> None:
    c = TestClient(create_app(open_engine(two_runs.url), token="s3cret"), base_url=LOCAL)
    assert c.get("/api/runs", headers={"Authorization": "bearer s3cret"}).status_code == 200
    assert c.get("/api/runs", headers={"Authorization": "BEARER  s3cret "}).status_code == 200
    assert c.get("/api/runs", headers={"Authorization": "bearer wrong"}).status_code == 401


def test_a_token_in_the_url_is_moved_to_a_cookie_and_dropped(two_runs: Store) -> None:
    c = TestClient(create_app(open_engine(two_runs.url), token="s3cret"), base_url=LOCAL)
    r = c.get(f"/runs/{two_runs.run_a}", params={"token": "s3cret", "status": "error"},
              follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == f"/runs/{two_runs.run_a}?status=error"
    assert "token" not in r.headers["location"] and c.cookies.get("assay_token") == "s3cret"
    r = c.get(r.headers["location"])
    assert r.status_code == 200 and "S34_bad_truth" in r.text


def test_assay_view_refuses_before_printing_its_url(tmp_path: Path) -> None:
    # in this process: a UI that did start would listen, which the guard of tests/marks.py fails
    env = {k: v for k, v in os.environ.items() if k != "ASSAY_UI_TOKEN"}
    r = assay_in_process("view", "--host", "0.0.0.0", "--db", f"sqlite:///{tmp_path / 'v.db'}",
                         cwd=tmp_path, env=env, timeout=60)
    assert r.returncode == 2 and "set ASSAY_UI_TOKEN" in r.stderr
    assert r.stdout == ""  # no "Assay UI on http://0.0.0.0:8600/" for a UI that never starts
