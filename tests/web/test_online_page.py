"""The online run page (`assay watch`): counters, score over time, the latest samples with a
link to each trace (the agent's spans beside Assay's), and its JSON; in a real browser, the page
refreshes itself as traces arrive."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from assay.web import app as web_app
from assay.web.app import create_app
from tests.marks import starts
from tests.online.otlp_send import agent_trace, send
from tests.online.watching import Watching
from tests.web.serving import served

LOCAL = "http://127.0.0.1:8600"
XSS = "<script>window.__pwned = 1</script>贵州茅台最新价?"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture()
@starts("server")
def watching(tmp_path: Path, db_url: str) -> Iterator[Watching]:
    spec = tmp_path / "watch.yaml"
    spec.write_text('name: web-agent\nsource: {otlp: "127.0.0.1:0"}\nquiet_s: 0.1\n'
                    "evaluators: [finance-rubric]\n"
                    "rubric: {required: latest price, precision: rounding}\n", "utf-8")
    w = Watching(db_url, spec).start()
    yield w
    if w.result is None and w.error is None:
        w.stop()


def test_online_page_and_json(watching: Watching) -> None:
    w = watching
    first = agent_trace(XSS, "1455.00元")
    send(w.endpoint, first)
    send(w.endpoint, [agent_trace("q", "a")[0]])  # no root yet: waiting, not shown
    w.wait_evaluated(1)
    w.stop()
    client = TestClient(create_app(w.engine), base_url=LOCAL)
    v = client.get(f"/api/runs/{w.run_id}/online").json()
    assert v["counters"]["evaluated"] == 1 and v["counters"]["dropped_at_stop"] == 1
    assert [(x["question"], x["answer"]) for x in v["latest"]] == [(XSS, "1455.00元")]
    assert [(r["evaluator"], r["results"], r["scored"], r["mean"]) for r in v["over_time"]] \
        == [("finance-rubric", 1, 0, None)]  # no truth for the rubric: a result, no score
    assert v["over_time"][0]["at"].endswith(":00+00:00")  # the minute it was evaluated in
    assert v["latest"][0]["results"][0]["evaluator"] == "finance-rubric"
    assert client.get(f"/api/runs/{w.run_id}/online?bucket=hour").json()["bucket"] == "hour"
    assert client.get(f"/api/runs/{w.run_id}/online?bucket=day").status_code == 400
    html = client.get(f"/runs/{w.run_id}/online").text
    assert "<script>window.__pwned" not in html and "&lt;script&gt;window.__pwned" in html
    assert 'id="c-dropped_at_stop">1<' in html
    assert f'href="/runs/{w.run_id}/items/{first[0].trace_id}"' in html
    assert f'href="/runs/{w.run_id}/online"' in client.get(f"/runs/{w.run_id}").text
    item = client.get(f"/runs/{w.run_id}/items/{first[0].trace_id}").text
    assert "agent.agent" in item and "agent.llm" in item and ">sample<" in item
    js = client.get("/static/online.js")
    assert js.headers["content-type"].startswith("text/javascript") and "textContent" in js.text
    assert client.get("/runs/nope/online").status_code == 404


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")
@pytest.mark.browser
def test_online_page_refreshes_live(watching: Watching, monkeypatch: pytest.MonkeyPatch) -> None:
    from playwright.sync_api import sync_playwright

    monkeypatch.setattr(web_app, "ONLINE_POLL_MS", 200)
    w = watching
    send(w.endpoint, agent_trace("first question", "a1"))
    w.wait_evaluated(1)
    time.sleep(0.8)  # written (the batch commit flushes every half second)
    with served(w.engine) as base, sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                              args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = b.new_page()
        page.goto(f"{base}/runs/{w.run_id}/online")
        assert "first question" in page.inner_text("#latest")
        send(w.endpoint, agent_trace("second question", "a2"))
        deadline = time.monotonic() + 15  # the page's CSP forbids a polled JS predicate
        while "second question" not in page.inner_text("#latest") \
                or page.inner_text("#c-evaluated") != "2":  # counters: saved each second
            assert time.monotonic() < deadline, "the page did not refresh"
            page.wait_for_timeout(100)
        assert page.url.endswith("/online")  # refreshed in place, not reloaded elsewhere
        b.close()
