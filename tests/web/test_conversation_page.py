"""Conversations in the UI (issue 26), in process (FastAPI's TestClient): the item page's turns
(the simulated user marked with its model, tokens and cost; tool calls, the truth captured at a
turn, per-turn scores; the conversation scores and how they were combined), hostile turn text
shown as text, the run page's outcome counts with their filter links, the cost split and
finance-cause's cause counts, and the `outcome=` filter (a bad value is a 400)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from assay.store.db import open_engine
from assay.web import queries
from assay.web.app import create_app
from tests.web.conversations import (
    HOSTILE,
    SIM_FIRST,
    SIM_LAST,
    SIM_SECOND,
    Conversations,
    make_conversations,
)

LOCAL = "http://127.0.0.1:8600"


@pytest.fixture(scope="module")
def conv(tmp_path_factory: pytest.TempPathFactory) -> Conversations:
    return make_conversations(tmp_path_factory.mktemp("conversations"))


@pytest.fixture()
def client(conv: Conversations) -> Iterator[TestClient]:
    yield TestClient(create_app(open_engine(conv.url)), base_url=LOCAL)


def text_of(html: str) -> str:
    """The page's text as a reader sees it: tags out, entities in, whitespace folded."""
    import html as entities

    return " ".join(entities.unescape(re.sub(r"<[^>]+>", " ", html)).split())


def section(html: str, start: str, end: str) -> str:
    i = html.index(start)
    return html[i:html.index(end, i)]


def test_item_page_shows_a_simulated_users_conversation(client: TestClient,
                                                         conv: Conversations) -> None:
    page = client.get(f"/runs/{conv.run_id}/items/s1")
    assert page.status_code == 200
    html = page.text
    text = text_of(html)
    assert "conversation (agent)" in text
    assert 'id="question"' not in html  # a conversation item has no one question to show
    assert "outcome done — the simulated user stopped · 3 turn(s) · judged each turn · turn " \
           "scores combined by min · simulated user" in text
    turns = [text_of(t.split(">", 1)[1]) for t in  # each <li class="turn" …>
             section(html, '<ol class="turns"', "</li>\n</ol>").split('<li class="turn"')[1:]]
    assert len(turns) == 3
    first, second, last = turns
    # turn 1: the simulated user's message with its request, the answer, its tool call, the
    # truth captured at that answer, the turn's score
    assert first.startswith(f"turn 1 user simulated user sim-qwen · 122 tokens · 0.000420 USD "
                            f"{SIM_FIRST} agent 0.800 s turn 1: 贵州茅台最新价1455.00元")
    assert 'quote arguments {"symbol": "600519"} → result {"last": 1455.0}' in first
    assert "truth at this turn: akshare 600519 (SH) — ok fetched 2026-11-20 09:29:58 UTC · " \
           "query stock_zh_a_spot_em() last=1455.0 prev_close=1484.91" in first
    assert "contains 1.0 scored the answer contains 'turn'" in first
    # turn 2: the target's own call priced, a failed tool call, no truth, a failing score
    assert f"sim-qwen · 124 tokens · 0.000380 USD {SIM_SECOND}" in second
    assert "agent 1.200 s · 340 tokens · 0.003000 USD turn 2: 昨收1484.91元" in second
    assert "quote arguments 600519 prev → error: quote service timed out" in second
    assert "truth" not in second
    assert "contains 0.0 scored stale: the close, not the last price" in second
    # turn 3: the simulated user stopped; no answer was asked for
    assert last == f"turn 3 · the conversation ended here: done user simulated user sim-qwen · " \
                   f"126 tokens · 0.000200 USD {SIM_LAST}"
    assert html.count('<span class="source simulated">simulated user</span>') == 3
    assert '<span class="source script">' not in html
    # the conversation scores: per evaluator, with how the turns' were combined
    scores = text_of(section(html, 'id="conversation-scores-0"', "</details>"))
    assert "contains → 0.0 (scored) min of 2 judged turns (1, 0); done combined by min from " \
           "turn 1 → 1.0, turn 2 → 0.0 · judged each turn · outcome done" in scores
    assert "finance-cause → 0.0 (scored) cause: stale_data" in text


def test_a_scripted_conversation_and_hostile_turn_text(client: TestClient,
                                                       conv: Conversations) -> None:
    html = client.get(f"/runs/{conv.run_id}/items/c1").text
    text = text_of(html)
    assert "outcome done — the script ended · 2 turn(s)" in text and "· scripted" in text
    assert html.count('<span class="source script">script</span>') == 2
    assert "simulated user" not in text
    # the user's <script> turn (and the answer quoting it) is text, never markup
    assert "<script>window" not in html
    assert html.count("&lt;script&gt;window.__pwned = 2&lt;/script&gt;") == 2
    assert f"turn 2 user script {HOSTILE} agent" in text
    assert "contains 0.0 scored the answer does not contain 'nope'" in text
    assert "contains 1.0 scored the answer contains 'hello'" in text
    # an aborted conversation: the target's error at its turn, the score it got
    text = text_of(client.get(f"/runs/{conv.run_id}/items/c3").text)
    assert "outcome aborted" in text
    assert "turn 1 · the conversation ended here: aborted user script boom agent" in text
    assert "error: RuntimeError: the agent fell over" in text
    assert "contains → 0.0 (scored) conversation aborted: turn 1: RuntimeError: the agent " \
           "fell over combined by min from no judged turn" in text
    # a one-question item of the same run: the answer view, no conversation
    html = client.get(f"/runs/{conv.run_id}/items/q1").text
    assert "answer (agent)" in text_of(html) and 'class="turns"' not in html
    assert '<pre id="question">single question</pre>' in html


def test_the_item_page_reads_turns_in_two_queries(conv: Conversations) -> None:
    """c2 has ten turns: still one query of `turns` and one of `turn_results`."""
    engine = open_engine(conv.url)
    seen: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        view = queries.item_view(engine, conv.run_id, "c2")
    finally:
        event.remove(engine, "before_cursor_execute", count)
    (sample,) = view["samples"]
    turns = sample["conversation"]["turns"]
    assert [t["number"] for t in turns] == list(range(1, 11))
    assert all(t["scores"][0]["score"] == 1.0 for t in turns)
    assert sample["conversation"]["outcome"] == "max_turns"
    froms = [re.findall(r"FROM (\w+)", s) for s in seen]
    assert sum("turns" in f for f in froms) == 1
    assert sum("turn_results" in f for f in froms) == 1


def test_run_page_outcomes_costs_and_causes(client: TestClient, conv: Conversations) -> None:
    html = client.get(f"/runs/{conv.run_id}").text
    outcomes = section(html, '<table id="outcomes">', "</table>")
    assert text_of(outcomes) == ("target done transferred max_turns timeout budget aborted "
                                 "conversations agent 2 0 1 0 0 1 4")
    links = re.findall(r'<a href="([^"]+)" class="outcome-link" data-outcome="(\w+)">(\d+)</a>',
                       outcomes)
    assert links == [("?outcome=done#results-title", "done", "2"),
                     ("?outcome=max_turns#results-title", "max_turns", "1"),
                     ("?outcome=aborted#results-title", "aborted", "1")]
    # cost split: the target, the judge, the simulated users
    costs = text_of(section(html, '<table id="costs">', "</table>"))
    assert "target agent 0.003000" in costs
    assert "judge finance-cause 0.002500" in costs
    assert "simulator agent (simulated users) 0.001000" in costs
    assert "total 0.006500" in costs
    causes = text_of(section(html, '<table id="causes">', "</table>"))
    assert causes == ("target truth_unavailable right no_retrieval wrong_instrument stale_data "
                      "misread results agent 0 2 1 0 1 1 5")
    # the same in the JSON API
    s = client.get(f"/api/runs/{conv.run_id}").json()
    assert s["outcomes"] == [{"target": "agent", "total": 4, "counts": {
        "done": 2, "transferred": 0, "max_turns": 1, "timeout": 0, "budget": 0, "aborted": 1}}]
    assert s["costs"]["simulators"] == {"agent": 0.001}
    assert s["causes"]["rows"][0]["counts"]["stale_data"] == 1


def test_outcome_filter(client: TestClient, conv: Conversations) -> None:
    # a count's link: the conversations that ended so, every evaluator's result
    html = client.get(f"/runs/{conv.run_id}?outcome=done").text
    assert "4 result(s)" in text_of(section(html, 'id="pager"', "</div>"))
    rows = section(html, '<table id="results"', "</table>")
    assert sorted(set(re.findall(r'/items/(\w+)"', rows))) == ["c1", "s1"]
    assert rows.count("conversation: done") == 4
    assert '<option selected>done</option>' in html  # kept in the form
    api = client.get(f"/api/runs/{conv.run_id}/results", params={"outcome": "max_turns"}).json()
    assert [(r["item_id"], r["evaluator"], r["outcome"]) for r in api["rows"]] == [
        ("c2", "contains", "max_turns"), ("c2", "finance-cause", "max_turns")]
    # with the other filters, a text search and a sort that joins the answers itself
    both = client.get(f"/api/runs/{conv.run_id}/results",
                      params={"outcome": "done", "evaluator": "contains", "q": "turn",
                              "sort": "-latency"}).json()
    assert [r["item_id"] for r in both["rows"]] == ["s1", "c1"]
    assert client.get(f"/api/runs/{conv.run_id}/results",
                      params={"outcome": "transferred"}).json()["total"] == 0
    # a one-question result has no outcome
    every = client.get(f"/api/runs/{conv.run_id}/results").json()["rows"]
    assert {r["item_id"]: r["outcome"] for r in every}["q1"] is None
    # a bad value: a 400 with one line, on the page and in the API
    bad = client.get(f"/runs/{conv.run_id}?outcome=finished")
    assert bad.status_code == 400
    message = "outcome filter must be one of done, transferred, max_turns, timeout, budget, " \
              "aborted, not 'finished'"
    assert message in text_of(bad.text)
    api_bad = client.get(f"/api/runs/{conv.run_id}/results", params={"outcome": "<b>x"})
    assert api_bad.status_code == 400
    assert api_bad.json() == {"detail": "outcome filter must be one of done, transferred, "
                                        "max_turns, timeout, budget, aborted, not '<b>x'"}
    assert "<b>x" not in client.get(f"/runs/{conv.run_id}?outcome=%3Cb%3Ex").text


def test_a_run_without_conversations_shows_none_of_it(tmp_path: Path) -> None:
    import assay

    url = f"sqlite:///{tmp_path / 'plain.db'}"
    run = assay.evaluate([{"id": "q1", "prompt": "hi", "reference_output": "hi"}],
                         lambda item: "hi", evaluators=["contains"], db=url)
    client = TestClient(create_app(open_engine(url)), base_url=LOCAL)
    html = client.get(f"/runs/{run.id}").text
    assert 'id="outcomes"' not in html and 'id="causes"' not in html
    assert 'name="outcome"' not in html
    s = client.get(f"/api/runs/{run.id}").json()
    assert s["outcomes"] == [] and s["causes"] is None
