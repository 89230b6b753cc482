"""Hostile tests of conversations (issue 26): each reproduces a defect a hostile probe found
(each failed before its fix; a docstring's "observed" is what happened then) or pins
behaviour that held under attack. The helpers are the ones of
tests/runner/test_conversations.py."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy import text

from assay.store.db import open_engine
from tests.invoke import assay_in_process
from tests.openai_server import OpenAIServer
from tests.runner.test_conversations import project, results, run, run_id

JUDGE = """---
name: short-judge
placeholders: double
score: {min: 0, max: 1, integer: true, nullable: false}
variables: [output]
---
[user]
Judge: {{output}}
"""


def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'a.db'}"


def query(tmp_path: Path, sql: str, **params: Any) -> list[tuple[Any, ...]]:
    engine = open_engine(db_url(tmp_path))
    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(text(sql), params)]


def priced_judge(tmp_path: Path, server: OpenAIServer) -> None:
    """A judge model at 1,000 USD per million tokens (a token costs 0.001)."""
    (tmp_path / "assay-models.yaml").write_text(f"""models:
  j: {{base_url: "{server.base_url}", model: fake-j, price_in_per_mtok: 1000,
      price_out_per_mtok: 1000, max_retries: 0, params: {{max_tokens: 4}}}}
""", "utf-8")
    (tmp_path / "judge.md").write_text(JUDGE, "utf-8")


def test_a_turn_stored_when_the_budget_stops_its_judge_counts_in_the_score(
        tmp_path: Path, openai_server: OpenAIServer) -> None:
    """The budget refuses the judge of turn 3: turn 3's answer and its `contains` judgment (0)
    are stored, but the conversation is scored without turn 3 — `contains` 1.0 although a
    stored turn of it scored 0 — and its answer row's final answer and turn count are turn 2's.
    `assay replay` then recomputes 0 from the stored turns: a code evaluator that does not
    reproduce. Expected: the conversation's score and record include every stored turn."""
    priced_judge(tmp_path, openai_server)
    openai_server.default = lambda messages: '{"score": 1}'
    rows = [{"id": "c1", "reference_output": "]", "turns": [
        "hello", "bye", {"input": "third", "reference_output": "nope"}]}]
    spec = project(tmp_path, rows, evaluators=["contains", "judge.md@j"], concurrency=1)
    code, _out, err = run(tmp_path, str(spec), "--max-cost", "0.02")
    assert code == 130, err  # stopped by the budget
    rid = re.search(r"r-[0-9a-f]{12}", err).group(0)  # type: ignore[union-attr]
    stored = query(tmp_path, "SELECT turn, score FROM turn_results WHERE evaluator = "
                             "'contains' ORDER BY turn")
    assert stored == [(1, 1.0), (2, 1.0), (3, 0.0)]  # turn 3 answered and judged 0
    got = results(tmp_path, rid)
    assert query(tmp_path, "SELECT outcome FROM answers") == [("budget",)]
    # observed: (1.0, 'scored', 'min of 2 judged turns (1, 1); budget')
    assert query(tmp_path, "SELECT score FROM results WHERE evaluator = 'contains'") \
        == [(0.0,)], got
    # a resume with a larger budget leaves it so; replay (which reads every stored turn)
    # observed: "contains c1 (agent): stored 1.0 scored → now 0.0 scored", exit 1
    code, _out, err = run(tmp_path, "--resume", rid, "--max-cost", "1")
    assert code == 0, err
    r = assay_in_process("replay", rid, "--db", db_url(tmp_path), cwd=tmp_path)
    assert "did not reproduce" not in r.stdout, r.stdout


ANY_AGENT = '''
def agent(item):
    msgs = item.get("messages") or [{"role": "user", "content": item["prompt"]}]
    return f"[{len(msgs)}] {msgs[-1]['content']}"
'''


def test_replay_of_a_conversation_keeps_when_and_the_turns_own_evaluators(
        tmp_path: Path) -> None:
    """Turns an evaluator does not apply to (its `when:`, a turn's `evaluators` /
    `skip_evaluators`) are stored `skipped`; `assay replay` judges them anyway (no scope for
    conversations in runner/replay.py `talk`), so a deterministic run 'does not reproduce':
    observed contains 3 of 7, numeric 1 of 7, exit 1. Expected: 100 %, exit 0."""
    rows = [{"id": "c1", "turns": [{"input": "hello", "reference_output": "hello"},
                                   {"input": "42", "reference_output": "42"}, "bye"]},
            {"id": "c2", "turns": [{"input": "hello", "reference_output": "hello",
                                    "evaluators": ["contains"]},
                                   {"input": "x", "skip_evaluators": ["contains"]}]}]
    spec = project(tmp_path, rows, evaluators=[
        {"name": "contains", "when": {"field": "reference_output"}},
        {"name": "numeric", "when": {"reference": "number"}}])
    (tmp_path / "agent.py").write_text(ANY_AGENT.replace("[{len(msgs)}] ", ""), "utf-8")
    code, out, err = run(tmp_path, str(spec))
    assert code == 0, err
    rid = run_id(out)
    assert query(tmp_path, "SELECT item_id, evaluator, score, status FROM results "
                           "ORDER BY item_id, evaluator") == [
        ("c1", "contains", 1.0, "scored"), ("c1", "numeric", 1.0, "scored"),
        ("c2", "contains", 1.0, "scored"), ("c2", "numeric", None, "skipped")]
    r = assay_in_process("replay", rid, "--db", db_url(tmp_path), cwd=tmp_path)
    assert "did not reproduce" not in r.stdout, r.stdout
    assert r.returncode == 0


def test_an_aborted_conversation_scores_the_minimum_of_a_1_to_5_judges_scale(
        tmp_path: Path, openai_server: OpenAIServer) -> None:
    """An aborted conversation scores 0 'as in τ²-bench' — but for a judge scoring 1–5 that
    is below the judge's lowest score, stored with full_score [0, 1] while its other
    conversations have [1, 5]: the evaluator's mean is (0 + 5 + 5) / 3 = 3.33 instead of
    (1 + 5 + 5) / 3 = 3.67, its CI runs past the scale, and a reviewer's correction is checked
    against the wrong range. Expected: the scale's minimum, on the judge's scale."""
    priced_judge(tmp_path, openai_server)
    (tmp_path / "judge.md").write_text(JUDGE.replace("min: 0, max: 1", "min: 1, max: 5"),
                                       "utf-8")
    openai_server.default = lambda messages: '{"score": 5}'
    rows = [{"id": "ok1", "turns": ["a", "b"]}, {"id": "ok2", "turns": ["a"]},
            {"id": "ab", "turns": ["a", "boom"]}]
    code, _out, err = run(tmp_path, str(project(tmp_path, rows, evaluators=["judge.md@j"])))
    assert code == 0, err
    got = {i: (s, json.loads(ev)["full_score"]) for i, s, ev in query(
        tmp_path, "SELECT item_id, score, evidence FROM results")}
    assert got["ok1"] == (5.0, [1.0, 5.0])
    # observed: (0.0, [0.0, 1.0])
    assert got["ab"] == (1.0, [1.0, 5.0])


class _AnyBodyAgent:
    """An HTTP agent that takes any JSON body (a list too) and logs it."""

    def __init__(self) -> None:
        from aiohttp import web

        from tests.agent_server import AgentServer

        class Server(AgentServer):
            async def _handle(self, request: web.Request) -> web.StreamResponse:
                body = await request.json()
                self.requests.append(body)
                return web.json_response({"answer": "ok"})

        self.server = Server().start()


@pytest.mark.server
@pytest.mark.parametrize("history", ["messages", "session"])
def test_an_http_body_that_is_not_a_mapping_is_refused_for_a_conversation(
        tmp_path: Path, history: str) -> None:
    """A body template that is a list: each turn is sent alone, without `messages` or
    `session_id` (http.py adds them only to a dict), and the run succeeds — the agent answered
    three unrelated questions and the run says it held a conversation. Expected: the run is
    refused before it starts (one line naming the target: a conversation needs a mapping body,
    or a body placing {messages} / {session_id})."""
    agent = _AnyBodyAgent().server
    try:
        spec = project(tmp_path, [{"id": "c1", "turns": ["hello", "bye"]}],
                       targets=[{"name": "agent", "type": "http", "url": agent.url,
                                 "body": [{"question": "{input}"}], "history": history}])
        (tmp_path / "talks.jsonl").write_text(json.dumps(
            {"id": "c1", "turns": ["hello", "bye"], "reference_output": "ok"}) + "\n", "utf-8")
        code, _out, err = run(tmp_path, str(spec))
    finally:
        agent.stop()
    # was: code 0, the second request [{"question": "bye"}]: no history, no session
    assert code != 0 and agent.requests == []  # refused before anything is sent
    placeholder = "{messages}" if history == "messages" else "{session_id}"
    assert err.strip().splitlines()[-1].endswith(
        f"target 'agent': in a conversation its body must be a JSON object (the history goes "
        f"in its '{'messages' if history == 'messages' else 'session_id'}'), or place "
        f'"{placeholder}" in it')


@pytest.mark.server
def test_an_http_body_with_its_own_messages_key_still_gets_the_history(tmp_path: Path) -> None:
    """`body: {messages: [{role: user, content: "{input}"}]}` (a common OpenAI-shaped agent)
    in `history: messages` mode: `setdefault` keeps the template's one message, so every turn
    reaches the agent without the history, silently. Expected: the history sent (or the run
    refused: the template's `messages` is not `{messages}`)."""
    agent = _AnyBodyAgent().server
    try:
        spec = project(tmp_path, [{"id": "c1", "turns": ["hello", "bye"],
                                   "reference_output": "ok"}],
                       targets=[{"name": "agent", "type": "http", "url": agent.url,
                                 "body": {"messages": [{"role": "user",
                                                        "content": "{input}"}]}}])
        code, _out, err = run(tmp_path, str(spec))
    finally:
        agent.stop()
    assert code == 0, err
    # observed: [{"role": "user", "content": "bye"}]
    assert len(agent.requests[-1]["messages"]) == 3, agent.requests[-1]


def test_a_mixed_csv_of_questions_and_conversations_runs(tmp_path: Path) -> None:
    """A CSV holds single questions and conversations in one file the only way a CSV can: a
    `turns` column, empty on the single questions' rows. The empty cell makes the question a
    conversation (`is_conversation`: the key is there) and the run is refused:
    "item q1 (line 2): turns is text that is not a JSON list". Expected: an empty `turns` cell
    is no conversation (the row is a question), as JSONL's mixed files allow."""
    project(tmp_path, [])
    (tmp_path / "agent.py").write_text(ANY_AGENT, "utf-8")
    (tmp_path / "talks.csv").write_text(
        'id,prompt,turns,reference_output\nq1,hello,,hello\nc1,,"[""a"",""b""]",]\n',
        "utf-8")
    spec = yaml.safe_load((tmp_path / "spec.yaml").read_text("utf-8"))
    spec["dataset"]["path"] = "talks.csv"
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec), "utf-8")
    code, out, err = run(tmp_path, "spec.yaml")
    assert code == 0, err
    assert results(tmp_path, run_id(out)) == {
        "q1": (1.0, "scored", "the answer contains 'hello'"),
        "c1": (1.0, "scored", "min of 2 judged turns (1, 1); done")}


def test_an_item_with_both_turns_and_a_prompt_is_refused(tmp_path: Path) -> None:
    """`prompt` beside `turns` is dropped silently (turn_item overwrites it with each turn's
    text): a question converted to a conversation by adding `turns` loses its prompt without a
    word. Expected: one line, as for `turns` with `simulated_user`."""
    rows = [{"id": "c1", "prompt": "What is 600519's price?", "turns": ["hi"],
             "reference_output": "]"}]
    code, _out, err = run(tmp_path, str(project(tmp_path, rows)))
    assert code != 0
    assert "item c1 (line 1): " in err and "prompt" in err


def test_an_xlsx_export_of_a_conversation_with_a_control_character_is_no_traceback(
        tmp_path: Path) -> None:
    """A turn's text with an escape character (the dataset loader accepts it; an agent may
    answer one): `assay export -f xlsx` dies in openpyxl (IllegalCharacterError, a traceback).
    csv, jsonl and parquet export it. Expected: the character dropped or escaped in the cell
    (or one line), never a traceback. Not conversation-only: any answer with \\x1b does it."""
    rows = [{"id": "c1", "turns": ["red \x1b[31m text", "bye"], "reference_output": "]"}]
    code, out, err = run(tmp_path, str(project(tmp_path, rows)))
    assert code == 0, err
    r = assay_in_process("export", run_id(out), "-f", "xlsx", "-o", str(tmp_path / "x.xlsx"),
                         "--db", db_url(tmp_path), cwd=tmp_path)
    assert "Traceback" not in r.stderr, r.stderr[-400:]
    assert r.returncode == 0


ROOT = Path(__file__).resolve().parents[2]
SNAPSHOTS = ROOT / "examples" / "data" / "market_snapshots"
# the scripted conversation of docs/agents.md ("A scripted conversation"), closing with 谢谢
DOC_CONVERSATION = {"id": "conv-hk", "topic": "港股", "turns": [
    {"input": "腾讯控股最新股价", "akshare_ticker": "00700", "tags": "Stock",
     "response_reference": "必答点：腾讯控股最新股价\n精度要求：允许误差范围绝对数值±1"},
    {"input": "阿里巴巴在香港的股价呢？用港元说。", "akshare_ticker": "09988", "tags": "Stock",
     "response_reference": "必答点：阿里巴巴-W最新股价（港元）\n精度要求：答案落在最高价最低价区间即可"},
    "谢谢"]}
RIGHT_AGENT = '''
def agent(item):
    said = item["messages"][-1]["content"]
    if "腾讯" in said:
        return "腾讯控股（00700）最新价608.0港元"
    if "阿里" in said:
        return "阿里巴巴-W（09988）最新价154.4港元"
    return "不客气！"
'''


def test_the_docs_conversation_with_a_closing_thanks_is_scored_on_its_two_questions(
        tmp_path: Path) -> None:
    """docs/agents.md's own example, `ground_truth: snapshot:`, an agent right on both
    questions: the closing "谢谢" turn has no instrument, its truth capture fails and
    finance-rubric's judgment of it is `error` — so the conversation's finance-rubric is
    `error` ("turn 3: ground truth unavailable: the item has no akshare_ticker"), though the
    docs say a turn with no truth to judge against is left out. Expected: 1.0 (min of the two
    judged turns), turn 3 null or skipped."""
    spec = project(tmp_path, [DOC_CONVERSATION], evaluators=["finance-rubric"],
                   ground_truth=f"snapshot:{SNAPSHOTS}")
    (tmp_path / "agent.py").write_text(RIGHT_AGENT, "utf-8")
    code, out, err = run(tmp_path, str(spec))
    assert code == 0, err
    got = query(tmp_path, "SELECT turn, score, status FROM turn_results ORDER BY turn")
    assert got[:2] == [(1, 1.0, "scored"), (2, 1.0, "scored")]
    # observed: (None, 'error', 'turn 3: ground truth unavailable: the item has no
    # akshare_ticker')
    assert results(tmp_path, run_id(out))["conv-hk"][:2] == (1.0, "scored")


def test_the_docs_conversation_against_the_reference_agent_is_not_aborted(
        tmp_path: Path) -> None:
    """The same example against the target the docs pair it with (baseline-quote-agent, as in
    examples/specs/conversation-finance.yaml): the agent errors on "谢谢" ("no quote for ?:
    the item has no akshare_ticker"), the conversation is `aborted` and scores 0 on every
    evaluator although both questions were answered right. Expected: a closing turn without
    an instrument answered (or the example not documented so), the conversation `done`."""
    spec = project(tmp_path, [DOC_CONVERSATION], evaluators=["finance-rubric"],
                   ground_truth=f"snapshot:{SNAPSHOTS}", targets=[{
                       "name": "baseline", "type": "baseline-quote-agent",
                       "provider": "snapshot", "snapshots": str(SNAPSHOTS)}])
    code, _out, err = run(tmp_path, str(spec))
    assert code == 0, err
    # observed: [('aborted',)] and finance-rubric 0.0 'conversation aborted: turn 3: …'
    assert query(tmp_path, "SELECT outcome FROM answers") == [("done",)]


def test_replay_of_a_conversation_whose_truth_capture_failed_reproduces(
        tmp_path: Path) -> None:
    """A turn whose truth could not be captured was judged with the failure (runner: `failure`
    → error); `assay replay` hands the evaluator the error snapshot as truth instead (a
    one-question sample with a failed capture is not replayed at all), so finance-cause gives
    `null` where the run stored `error`: "a code evaluator did not reproduce its scores",
    exit 1. Expected: 100 %, exit 0."""
    conv = {**DOC_CONVERSATION, "turns": [*DOC_CONVERSATION["turns"][:2], {
        "input": "某某股份最新股价", "akshare_ticker": "999999", "tags": "Stock",
        "response_reference": "必答点：最新股价"}]}
    spec = project(tmp_path, [conv], evaluators=["finance-rubric", "finance-cause"],
                   ground_truth=f"snapshot:{SNAPSHOTS}")
    (tmp_path / "agent.py").write_text(RIGHT_AGENT, "utf-8")
    code, out, err = run(tmp_path, str(spec))
    assert code == 0, err
    r = assay_in_process("replay", run_id(out), "--db", db_url(tmp_path), cwd=tmp_path)
    assert "did not reproduce" not in r.stdout, r.stdout
    assert r.returncode == 0


def test_retry_of_an_aborted_conversation_keeps_what_the_first_attempt_cost(
        tmp_path: Path, openai_server: OpenAIServer) -> None:
    """`assay retry` deletes an aborted conversation's turns, answer and results to play it
    again — and with them every cost its answered turns had (the simulated user's requests, the
    target's, the judges'): the run's cost sheet (and the spend a budget on the retry starts
    from, store/costs.py run_spent) forgets money that was spent. Observed: total 0.381 USD
    before the retry, 0.363 after it, though the retry itself made new priced requests.
    Expected: the run's total never goes down when more requests were made."""
    from assay.store.costs import run_cost_sheet

    state = {"fail": True}

    def reply(messages: list[dict[str, str]]) -> str:
        if "playing a user" in messages[0]["content"]:
            n = sum(1 for m in messages[2:] if m["role"] == "user")
            if n == 2 and state["fail"]:
                return ""  # the simulated user fails at turn 3: aborted
            return ["first question", "second question", "###STOP###"][min(n, 2)]
        return '{"score": 1}'

    openai_server.default = reply
    (tmp_path / "assay-models.yaml").write_text(f"""models:
  sim: {{base_url: "{openai_server.base_url}", model: u, price_in_per_mtok: 1000,
        price_out_per_mtok: 1000, max_retries: 0}}
  j: {{base_url: "{openai_server.base_url}", model: fake-j, price_in_per_mtok: 1000,
      price_out_per_mtok: 1000, max_retries: 0, params: {{max_tokens: 4}}}}
""", "utf-8")
    (tmp_path / "judge.md").write_text(JUDGE, "utf-8")
    spec = project(tmp_path, [{"id": "s1", "simulated_user": {"model": "sim", "goal": "g"}}],
                   evaluators=["judge.md@j"])
    code, out, err = run(tmp_path, str(spec))
    assert code == 0, err
    rid = run_id(out)
    engine = open_engine(db_url(tmp_path))
    before = run_cost_sheet(engine, rid).total
    asked = len(openai_server.requests)
    state["fail"] = False
    r = assay_in_process("retry", rid, "--db", db_url(tmp_path), "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert len(openai_server.requests) > asked  # new priced requests were made
    assert query(tmp_path, "SELECT outcome FROM answers") == [("done",)]
    after = run_cost_sheet(engine, rid).total
    assert before is not None and after is not None
    assert after > before, (before, after)


def test_a_resumed_aborted_conversation_keeps_why_it_was_aborted(tmp_path: Path) -> None:
    """A kill after an aborted turn was stored and before the conversation's answer row: the
    resume finishes it `aborted` with an empty reason — "conversation aborted: " — because the
    target's error sits on the stored answer, not on `Turn.error` (play() reads the latter).
    Expected: the same reason as without the kill ("turn 2: RuntimeError: agent crashed")."""
    rows = [{"id": "ab", "turns": ["a", "boom", "c"], "reference_output": "]"}]
    code, out, err = run(tmp_path, str(project(tmp_path, rows)))
    assert code == 0, err
    rid = run_id(out)
    whole = results(tmp_path, rid)["ab"]
    assert whole[2] == "conversation aborted: turn 2: RuntimeError: agent crashed"
    engine = open_engine(db_url(tmp_path))
    with engine.begin() as conn:  # as a kill before the conversation's end was written
        for table in ("results", "answers"):
            conn.execute(text(f"DELETE FROM {table} WHERE run_id = :r"), {"r": rid})
        conn.execute(text("UPDATE runs SET status = 'interrupted' WHERE id = :r"), {"r": rid})
    code, _out, err = run(tmp_path, "--resume", rid)
    assert code == 0, err
    # observed: (0.0, 'scored', 'conversation aborted: ')
    assert results(tmp_path, rid)["ab"] == whole


def test_the_targets_table_counts_a_conversations_failed_turn_as_an_error(
        tmp_path: Path) -> None:
    """`assay show`'s targets table: answers 2, errors 0 for a run whose target crashed on a
    turn (the conversation's answer row has no error; the failed turn is in `turns`).
    Expected: the failed call counted (errors 1), as a one-question run counts it."""
    rows = [{"id": "ok", "turns": ["a"], "reference_output": "]"},
            {"id": "ab", "turns": ["a", "boom"], "reference_output": "]"}]
    code, out, err = run(tmp_path, str(project(tmp_path, rows)))
    assert code == 0, err
    r = assay_in_process("show", run_id(out), "--db", db_url(tmp_path), cwd=tmp_path)
    row = next(line for line in r.stdout.splitlines() if line.startswith("│ agent "))
    cells = [c.strip() for c in row.strip("│").split("│")]
    # observed: ['agent', '2', '0', '0', …]
    assert cells[2] == "1", row
