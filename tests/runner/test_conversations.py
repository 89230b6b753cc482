"""Conversation items (core/conversation.py, runner/conversation.py): scripted and simulated
users, targets given the history, each trigger, each outcome, the conversation's score from its
turns', replay without a request, and resume."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy import text

from assay.core.conversation import combine
from assay.store.conversations import conversation_turns, outcome_counts
from assay.store.db import open_engine
from tests.invoke import assay_in_process
from tests.openai_server import OpenAIServer

AGENT = '''
import time

def agent(item):
    """Echoes the turn, with how many messages it was given; a turn saying 'transfer' or
    'finish' ends the conversation; 'boom' fails; 'slow' takes a while."""
    msgs = item["messages"]
    said = msgs[-1]["content"]
    if "boom" in said:
        raise RuntimeError("agent crashed")
    if "slow" in said:
        time.sleep(0.3)
    out = {"text": f"[{len(msgs)}] {said}",
           "tool_calls": [{"name": "echo", "arguments": {"text": said}, "result": said}]}
    if "transfer" in said:
        out["end"] = "transfer"
    if "finish" in said:
        out["end"] = "done"
    if "typo" in said:
        out["end"] = "finished"  # not done or transfer
    return out
'''


def project(tmp_path: Path, rows: list[dict[str, Any]], **spec: Any) -> Path:
    (tmp_path / "agent.py").write_text(AGENT, "utf-8")
    (tmp_path / "talks.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    body = {"name": "talks", "dataset": {"path": "talks.jsonl", "id_field": "id"},
            "targets": [{"name": "agent", "type": "python", "function": "agent:agent"}],
            "evaluators": ["contains"], "concurrency": 2, **spec}
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(body, allow_unicode=True), "utf-8")
    return path


def run(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    r = assay_in_process("run", *args, "--db", f"sqlite:///{tmp_path / 'a.db'}", "-q",
                         cwd=tmp_path)
    return r.returncode, r.stdout, r.stderr


def run_id(out: str) -> str:
    found = re.search(r"\b(r-[0-9a-f]{12})\b", out)
    assert found, out
    return found.group(1)


def results(tmp_path: Path, rid: str) -> dict[str, tuple[Any, ...]]:
    engine = open_engine(f"sqlite:///{tmp_path / 'a.db'}")
    with engine.connect() as conn:
        return {r[0]: tuple(r[1:]) for r in conn.execute(text(
            "SELECT item_id, score, status, reason FROM results WHERE run_id = :r"),
            {"r": rid})}


SCRIPTED = [
    {"id": "c1", "turns": [{"input": "hello", "reference_output": "hello"},
                           {"input": "bye", "reference_output": "nope"}]},
    {"id": "c2", "turns": ["alpha", "beta", "gamma"], "reference_output": "]"},
]


def test_a_scripted_conversation_gives_the_target_the_history_and_judges_each_turn(
        tmp_path: Path) -> None:
    code, out, err = run(tmp_path, str(project(tmp_path, SCRIPTED)))
    assert code == 0, err
    rid = run_id(out)
    engine = open_engine(f"sqlite:///{tmp_path / 'a.db'}")
    talks = conversation_turns(engine, rid)
    c1 = talks[("c1", "agent", 0)]
    # the target got the history: 1 message, then 3 (user, its answer, user)
    assert [(t.number, t.source, t.input, t.answer.text if t.answer else None)
            for t in c1] == [(1, "script", "hello", "[1] hello"), (2, "script", "bye", "[3] bye")]
    assert [[(s.evaluator, s.value) for s in t.scores] for t in c1] == [
        [("contains", 1.0)], [("contains", 0.0)]]
    assert c1[0].answer is not None and c1[0].answer.extras["tool_calls"][0]["name"] == "echo"
    got = results(tmp_path, rid)
    # min by default: one wrong turn makes the conversation 0
    assert got["c1"][:2] == (0.0, "scored")
    assert got["c1"][2] == "min of 2 judged turns (1, 0); done"
    assert got["c2"][:2] == (1.0, "scored")
    assert outcome_counts(engine, rid) == {"agent": {"done": 2}}
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM answers WHERE run_id = :r"),
                            {"r": rid}).scalar() == 2
        manifest = json.loads(conn.execute(text("SELECT manifest FROM runs WHERE id = :r"),
                                           {"r": rid}).scalar())
    assert manifest["conversation"] == {"score": "min", "max_turns": 10, "max_minutes": None,
                                        "evaluate": "each_turn", "items": 2}


@pytest.mark.parametrize("how, expected", [("min", 0.0), ("mean", 0.5), ("product", 0.0),
                                           ("last", 0.0)])
def test_the_conversation_score_combines_the_turns_as_the_spec_says(
        tmp_path: Path, how: str, expected: float) -> None:
    code, out, err = run(tmp_path, str(project(tmp_path, SCRIPTED[:1],
                                               conversation={"score": how})))
    assert code == 0, err
    assert results(tmp_path, run_id(out))["c1"][:2] == (expected, "scored")


def test_combine_on_other_scales() -> None:
    assert combine([4, 2], "product", (0, 4)) == 2.0  # 1 × 0.5 of a 0–4 scale
    assert combine([3, 1, 2], "mean") == 2.0
    assert combine([3, 1, 2], "last") == 2
    with pytest.raises(ValueError):
        combine([], "min")


def test_each_trigger(tmp_path: Path) -> None:
    rows = [{**SCRIPTED[0], "id": "each"},
            {**SCRIPTED[0], "id": "final", "evaluate": "final_turn"},
            {**SCRIPTED[0], "id": "never", "evaluate": "never"}]
    code, out, err = run(tmp_path, str(project(tmp_path, rows)))
    assert code == 0, err
    rid = run_id(out)
    engine = open_engine(f"sqlite:///{tmp_path / 'a.db'}")
    talks = conversation_turns(engine, rid)
    judged = {k[0]: [len(t.scores) for t in v] for k, v in talks.items()}
    assert judged == {"each": [1, 1], "final": [0, 1], "never": [0, 0]}
    got = results(tmp_path, rid)
    assert got["each"][:2] == (0.0, "scored")
    assert got["final"][:2] == (0.0, "scored")  # the last turn alone: "bye" lacks "nope"
    assert got["never"][:3] == (None, "skipped", "not judged (evaluate: never)")


def test_each_outcome(tmp_path: Path) -> None:
    rows = [
        {"id": "done", "turns": ["a", "b"], "reference_output": "]"},
        {"id": "transferred", "turns": ["a", "please transfer me", "never sent"],
         "reference_output": "]"},
        {"id": "finished", "turns": ["finish now", "never sent"], "reference_output": "]"},
        {"id": "max_turns", "turns": ["a", "b", "c", "d"], "reference_output": "]"},
        {"id": "aborted", "turns": ["a", "boom", "c"], "reference_output": "]"},
        {"id": "timeout", "turns": ["slow", "slow", "slow", "slow"],
         "reference_output": "]"},
    ]
    code, out, err = run(tmp_path, str(project(tmp_path, rows, conversation={
        "max_turns": 3, "max_minutes": 0.008})))  # 0.48 s: the slow one stops after 2 turns
    assert code == 0, err
    rid = run_id(out)
    engine = open_engine(f"sqlite:///{tmp_path / 'a.db'}")
    with engine.connect() as conn:
        outcome = dict(conn.execute(text("SELECT item_id, outcome FROM answers WHERE "
                                         "run_id = :r"), {"r": rid}).all())
    assert outcome == {"done": "done", "transferred": "transferred", "finished": "done",
                       "max_turns": "max_turns", "aborted": "aborted", "timeout": "timeout"}
    assert ("conversations of agent: 2 done, 1 transferred, 1 max_turns, 1 timeout, "
            "1 aborted") in " ".join(out.split()), out[-600:]
    talks = {k[0]: v for k, v in conversation_turns(engine, rid).items()}
    assert [t.input for t in talks["transferred"]] == ["a", "please transfer me"]
    assert len(talks["max_turns"]) == 3
    assert len(talks["timeout"]) == 2
    got = results(tmp_path, rid)
    assert got["aborted"][:2] == (0.0, "scored")  # as in τ²-bench: an aborted one scores 0
    assert got["aborted"][2].startswith("conversation aborted: turn 2: ")
    assert "agent crashed" in got["aborted"][2]
    assert got["transferred"][:2] == (1.0, "scored")


def test_a_bad_conversation_item_is_one_line_naming_the_file_item_and_field(
        tmp_path: Path) -> None:
    rows = [{"id": "ok", "turns": ["a"]}, {"id": "bad", "turns": [{"input": ""}]}]
    code, _out, err = run(tmp_path, str(project(tmp_path, rows)))
    assert code != 0
    assert err.strip().splitlines()[-1] == (
        "error: talks.jsonl: item bad (line 2): turns[0].input must be non-empty text")
    rows = [{"id": "s", "simulated_user": {"model": "nobody", "goal": "x"}}]
    code, _out, err = run(tmp_path, str(project(tmp_path, rows)))
    assert code != 0
    assert "talks.jsonl: item s (line 1): simulated_user.model: " in err
    assert "Traceback" not in err


def models_file(tmp_path: Path, server: OpenAIServer) -> None:
    (tmp_path / "assay-models.yaml").write_text(json.dumps({"models": {"sim": {
        "base_url": server.base_url, "model": "user-model", "price_in_per_mtok": 1.0,
        "price_out_per_mtok": 2.0}}}), "utf-8")


def simulated_user(messages: list[dict[str, str]]) -> str:
    """The user model: asks, follows up, then stops — by how many target replies it saw."""
    assert messages[0]["role"] == "system" and "Goal: learn 600519's price" in \
        messages[0]["content"]
    # the simulator always answers the target: its request ends with the target's reply (or
    # the opening), never with its own message
    assert messages[-1]["role"] == "user"
    replies = sum(1 for m in messages[2:] if m["role"] == "user")
    return ["What is 600519's price?", "And yesterday's close?", "Thanks! ###STOP###"][replies]


SIMULATED = [{"id": "s1", "simulated_user": {
    "model": "sim", "persona": "a retail investor", "goal": "learn 600519's price",
    "seed": 7, "temperature": 0.3}, "reference_output": "]"}]


def test_a_simulated_user_is_pinned_logged_and_stops_with_its_token(
        tmp_path: Path, openai_server: OpenAIServer) -> None:
    models_file(tmp_path, openai_server)
    openai_server.default = simulated_user
    code, out, err = run(tmp_path, str(project(tmp_path, SIMULATED)))
    assert code == 0, err
    rid = run_id(out)
    engine = open_engine(f"sqlite:///{tmp_path / 'a.db'}")
    turns = conversation_turns(engine, rid)[("s1", "agent", 0)]
    assert [(t.source, t.input, t.answer.text if t.answer else None) for t in turns] == [
        ("simulator", "What is 600519's price?", "[1] What is 600519's price?"),
        ("simulator", "And yesterday's close?", "[3] And yesterday's close?"),
        ("simulator", "Thanks! ###STOP###", None)]  # stored, never sent to the target
    assert turns[-1].ended == "done"
    assert all(t.user_call is not None and t.user_call.usage.total for t in turns)
    assert [r["seed"] for r in openai_server.requests] == [7, 7, 7]
    assert [r["temperature"] for r in openai_server.requests] == [0.3, 0.3, 0.3]
    with engine.connect() as conn:
        manifest = json.loads(conn.execute(text("SELECT manifest FROM runs WHERE id = :r"),
                                           {"r": rid}).scalar())
        sim_cost = conn.execute(text("SELECT sum(cost) FROM turns WHERE run_id = :r AND "
                                     "source = 'simulator'"), {"r": rid}).scalar()
        spans = conn.execute(text("SELECT count(*) FROM spans WHERE run_id = :r AND kind = "
                                  "'simulator'"), {"r": rid}).scalar()
    sim = manifest["conversation"]["simulator"]
    assert sim["models"] == ["sim"] and "Persona: {persona}" in sim["prompt"]
    assert len(sim["version"]) == 12
    assert manifest["models"]["sim"]["model"] == "user-model"
    assert sim_cost and sim_cost > 0 and spans == 3
    assert outcome_counts(engine, rid) == {"agent": {"done": 1}}
    # replay recomputes every turn from the store: no request to anyone
    asked = len(openai_server.requests)
    r = assay_in_process("replay", rid, "--db", f"sqlite:///{tmp_path / 'a.db'}",
                         cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert len(openai_server.requests) == asked
    # 2 judged turns and the conversation's own score, all reproduced
    assert re.search(r"contains\s*│ code\s*│\s*3 │\s*3 │ 100.0%", r.stdout), r.stdout


def test_a_simulated_user_that_fails_aborts_the_conversation(
        tmp_path: Path, openai_server: OpenAIServer) -> None:
    models_file(tmp_path, openai_server)
    openai_server.script = [("ok", "What is 600519's price?")] + [("empty",)] * 10
    code, out, err = run(tmp_path, str(project(tmp_path, SIMULATED)))
    assert code == 0, err
    rid = run_id(out)
    got = results(tmp_path, rid)
    assert got["s1"][:2] == (0.0, "scored")
    assert got["s1"][2] == "conversation aborted: simulated user (sim) gave an empty message"
    turns = conversation_turns(open_engine(f"sqlite:///{tmp_path / 'a.db'}"), rid)[
        ("s1", "agent", 0)]
    assert len(turns) == 2 and turns[1].answer is None  # the empty turn was never sent


def test_resume_continues_a_conversation_without_asking_the_simulated_user_again(
        tmp_path: Path, openai_server: OpenAIServer) -> None:
    """A conversation cut after its simulated user's second message was stored (a kill before
    the target answered it): the resume asks the target that stored message and goes on."""
    models_file(tmp_path, openai_server)
    openai_server.default = simulated_user
    spec = project(tmp_path, SIMULATED)
    code, out, err = run(tmp_path, str(spec))
    assert code == 0, err
    rid = run_id(out)
    db = f"sqlite:///{tmp_path / 'a.db'}"
    engine = open_engine(db)
    with engine.begin() as conn:  # as a kill -9 after the second user message leaves it
        for table in ("results", "answers"):
            conn.execute(text(f"DELETE FROM {table} WHERE run_id = :r"), {"r": rid})
        conn.execute(text("DELETE FROM turns WHERE run_id = :r AND (turn > 2 OR (turn = 2 "
                          "AND role = 'assistant'))"), {"r": rid})
        conn.execute(text("DELETE FROM turn_results WHERE run_id = :r AND turn >= 2"),
                     {"r": rid})
        conn.execute(text("UPDATE runs SET status = 'interrupted' WHERE id = :r"), {"r": rid})
    asked = len(openai_server.requests)
    code, out, err = run(tmp_path, "--resume", rid)
    assert code == 0, err
    # only the third user message was asked for; the second was read from the store
    assert len(openai_server.requests) == asked + 1
    turns = conversation_turns(engine, rid)[("s1", "agent", 0)]
    assert [t.input for t in turns] == ["What is 600519's price?", "And yesterday's close?",
                                        "Thanks! ###STOP###"]
    assert turns[1].answer is not None and turns[1].answer.text == "[3] And yesterday's close?"
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM answers WHERE run_id = :r"),
                            {"r": rid}).scalar() == 1
        assert conn.execute(text("SELECT count(*) FROM turns WHERE run_id = :r"),
                            {"r": rid}).scalar() == 5


@pytest.mark.process  # a real `assay run`, killed with SIGKILL mid-conversation
def test_kill_9_mid_conversation_then_resume_stores_each_conversation_once_and_whole(
        tmp_path: Path) -> None:
    import sqlite3
    import subprocess
    import sys
    import time

    rows = [{"id": f"c{i}", "turns": [f"slow {i}.{n}" for n in range(4)],
             "reference_output": "slow"} for i in range(6)]
    project(tmp_path, rows, concurrency=2)
    db = tmp_path / "a.db"
    assay = str(Path(sys.executable).parent / "assay")
    proc = subprocess.Popen([assay, "run", "spec.yaml", "--db", f"sqlite:///{db}", "-q"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    stored = 0
    while time.monotonic() < deadline and stored < 7:  # mid-way: some turns, no end yet
        time.sleep(0.05)
        try:
            with sqlite3.connect(db) as conn:
                stored = conn.execute("SELECT count(*) FROM turns").fetchone()[0]
        except sqlite3.OperationalError:
            continue
    proc.kill()
    proc.communicate(timeout=30)
    assert proc.returncode == -9
    with sqlite3.connect(db) as conn:
        (rid,), = conn.execute("SELECT id FROM runs").fetchall()
        before = conn.execute("SELECT count(*) FROM turns").fetchone()[0]
        finished = conn.execute("SELECT count(*) FROM answers").fetchone()[0]
    assert before > 0 and finished < 6  # killed mid-conversation
    code, _out, err = run(tmp_path, "--resume", rid)
    assert code == 0, err
    with sqlite3.connect(db) as conn:
        per = dict(conn.execute("SELECT item_id, count(*) FROM turns GROUP BY item_id"))
        judged = dict(conn.execute("SELECT item_id, count(*) FROM turn_results "
                                   "GROUP BY item_id"))
        ends = conn.execute("SELECT item_id, outcome FROM answers ORDER BY item_id").fetchall()
        scores = conn.execute("SELECT item_id, score FROM results ORDER BY item_id").fetchall()
    assert per == {f"c{i}": 8 for i in range(6)}  # 4 user + 4 answers, none twice
    assert judged == {f"c{i}": 4 for i in range(6)}
    assert ends == [(f"c{i}", "done") for i in range(6)]
    assert scores == [(f"c{i}", 1.0) for i in range(6)]


@pytest.mark.server
@pytest.mark.parametrize("history", ["messages", "session"])
def test_an_http_agent_gets_the_history_as_messages_or_a_session_id(
        tmp_path: Path, history: str) -> None:
    from tests.agent_server import AgentServer

    agent = AgentServer().start()
    agent.chooser = lambda body: "transfer" if body.get("question") == "human please" else None
    try:
        spec = project(tmp_path, [*SCRIPTED[:1], {"id": "c3", "turns": [
            "hi", "human please", "never sent"], "reference_output": "答"}], targets=[{
            "name": "agent", "type": "http", "url": agent.url, "answer_path": "$.data.answer",
            "body": {"question": "{input}"}, "history": history}])
        code, out, err = run(tmp_path, str(spec))
        assert code == 0, err
    finally:
        agent.stop()
    rid = run_id(out)
    first, second = [r for r in agent.requests if r["question"] in ("hello", "bye")]
    assert first["question"] == "hello" and second["question"] == "bye"
    # the agent's `end` (default $.end) ended the third conversation, transferred
    assert [r["question"] for r in agent.requests if r["question"] not in ("hello", "bye")] \
        == ["hi", "human please"]
    engine = open_engine(f"sqlite:///{tmp_path / 'a.db'}")
    assert outcome_counts(engine, rid) == {"agent": {"done": 1, "transferred": 1}}
    if history == "messages":
        assert second["messages"] == [{"role": "user", "content": "hello"},
                                      {"role": "assistant", "content": "答：hello 1455.00元"},
                                      {"role": "user", "content": "bye"}]
        assert "session_id" not in second
    else:
        assert "messages" not in second
        assert first["session_id"] == second["session_id"] == f"{rid}:c1:agent:0"


def test_a_model_target_gets_the_history_as_chat_messages(
        tmp_path: Path, openai_server: OpenAIServer) -> None:
    models_file(tmp_path, openai_server)
    openai_server.default = lambda messages: f"reply {len(messages)}"
    spec = project(tmp_path, SCRIPTED[:1], targets=[{
        "name": "bot", "type": "model", "model": "sim", "system": "You are a broker's bot."}])
    code, _out, err = run(tmp_path, str(spec))
    assert code == 0, err
    assert [r["messages"] for r in openai_server.requests] == [
        [{"role": "system", "content": "You are a broker's bot."},
         {"role": "user", "content": "hello"}],
        [{"role": "system", "content": "You are a broker's bot."},
         {"role": "user", "content": "hello"}, {"role": "assistant", "content": "reply 2"},
         {"role": "user", "content": "bye"}]]


def test_the_budget_ends_a_conversation_with_outcome_budget(
        tmp_path: Path, openai_server: OpenAIServer) -> None:
    """A budget that admits the first turn's request and refuses the second's: the
    conversation is stored with what it had, outcome `budget`, and the run stops, resumable."""
    models_file(tmp_path, openai_server)
    openai_server.default = lambda messages: "hello there " * 20
    spec = project(tmp_path, SCRIPTED[:1], targets=[{
        "name": "bot", "type": "model", "model": "sim",
        "params": {"max_tokens": 50}}], concurrency=1)
    code, out, err = run(tmp_path, str(spec), "--max-cost", "0.00012")
    assert code != 0 or "budget" in out + err
    engine = open_engine(f"sqlite:///{tmp_path / 'a.db'}")
    with engine.connect() as conn:
        outcome = conn.execute(text("SELECT outcome FROM answers")).all()
        n_turns = conn.execute(text("SELECT count(*) FROM turns WHERE role = 'assistant'"
                                    )).scalar()
    assert outcome == [("budget",)]
    assert n_turns == 1


def test_retry_plays_an_aborted_conversation_again_from_its_first_turn(
        tmp_path: Path) -> None:
    flag = tmp_path / "broken"
    flag.write_text("1")
    rows = [{"id": "ok", "turns": ["a", "b"], "reference_output": "]"},
            {"id": "flaky", "turns": ["a", "flaky", "c"], "reference_output": "]"}]
    spec = project(tmp_path, rows)
    (tmp_path / "agent.py").write_text(AGENT.replace(
        'if "boom" in said:',
        f'if "flaky" in said and __import__("os").path.exists({str(flag)!r}):\n'
        '        raise RuntimeError("agent down")\n    if "boom" in said:'), "utf-8")
    code, out, err = run(tmp_path, str(spec))
    assert code == 0, err
    rid = run_id(out)
    assert results(tmp_path, rid)["flaky"][:2] == (0.0, "scored")
    flag.unlink()
    r = assay_in_process("retry", rid, "--db", f"sqlite:///{tmp_path / 'a.db'}", "-q",
                         cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    got = results(tmp_path, rid)
    assert got["flaky"][:2] == (1.0, "scored") and got["ok"][:2] == (1.0, "scored")
    engine = open_engine(f"sqlite:///{tmp_path / 'a.db'}")
    turns = conversation_turns(engine, rid)[("flaky", "agent", 0)]
    assert [t.input for t in turns] == ["a", "flaky", "c"]
    assert outcome_counts(engine, rid) == {"agent": {"done": 2}}


def test_a_turn_whose_judgment_failed_makes_the_conversation_an_error_and_retry_judges_it(
        tmp_path: Path) -> None:
    """A failed judgment of one turn is never left out of the conversation's score (with
    `min` that would raise it): the conversation takes the turn's error; `assay retry` judges
    that turn again, without asking the target again."""
    flag = tmp_path / "broken"
    flag.write_text("1")
    (tmp_path / "checks.py").write_text(
        "import os\n"
        "def echoed(item, answer):\n"
        f"    if 'bye' in answer and os.path.exists({str(flag)!r}):\n"
        "        raise RuntimeError('check down')\n"
        "    return item['input'] in answer\n", "utf-8")
    spec = project(tmp_path, SCRIPTED[:1], evaluators=[{"python": "checks.py:echoed"}])
    code, out, err = run(tmp_path, str(spec))
    assert code == 0, err
    rid = run_id(out)
    got = results(tmp_path, rid)["c1"]
    assert got[:2] == (None, "error")
    assert got[2] == "turn 2: echoed raised RuntimeError: check down (line 4)"
    engine = open_engine(f"sqlite:///{tmp_path / 'a.db'}")
    with engine.connect() as conn:
        answered = conn.execute(text("SELECT count(*) FROM turns WHERE role = 'assistant'")
                                ).scalar()
    flag.unlink()
    r = assay_in_process("retry", rid, "--db", f"sqlite:///{tmp_path / 'a.db'}", "-q",
                         cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert results(tmp_path, rid)["c1"][:3] == (1.0, "scored",
                                                 "min of 2 judged turns (1, 1); done")
    turns = conversation_turns(engine, rid)[("c1", "agent", 0)]
    assert [[(s.status, s.value) for s in t.scores] for t in turns] == [
        [("scored", 1.0)], [("scored", 1.0)]]
    with engine.connect() as conn:  # the target was not asked again
        assert conn.execute(text("SELECT count(*) FROM turns WHERE role = 'assistant'")
                            ).scalar() == answered == 2


IN_FLIGHT = {"now": 0, "most": 0}


async def _counting_agent(item: dict[str, Any]) -> str:
    import asyncio

    IN_FLIGHT["now"] += 1
    IN_FLIGHT["most"] = max(IN_FLIGHT["most"], IN_FLIGHT["now"])
    await asyncio.sleep(0.02)
    IN_FLIGHT["now"] -= 1
    return f"[1] {item['messages'][-1]['content']}" if "messages" in item else "x"


@pytest.mark.parametrize("rows", [
    [{"id": f"q{i}", "prompt": "p", "reference_output": "x"} for i in range(40)],
    [{"id": f"c{i}", "turns": ["a", "b"], "reference_output": "]"} for i in range(40)]])
def test_a_called_target_with_one_code_evaluator_keeps_every_worker_busy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows: list[dict[str, Any]]) -> None:
    """Samples are taken 64 at a time (and done one after another) only for recorded
    answers: a called target's, or a conversation's, one at a time, so all `concurrency` of
    them are in flight (in chunks of 64, 40 items were one worker's)."""
    import assay

    monkeypatch.chdir(tmp_path)
    IN_FLIGHT.update(now=0, most=0)
    run_ = assay.evaluate(rows, _counting_agent, ["contains"], db=f"sqlite:///{tmp_path / 'a.db'}",
                          concurrency=8)
    assert run_.status == "finished"
    assert IN_FLIGHT["most"] == 8


def test_an_end_that_is_not_done_or_transfer_is_shown_and_the_conversation_goes_on(
        tmp_path: Path) -> None:
    rows = [{"id": "c1", "turns": ["a typo here", "b"], "reference_output": "]"}]
    code, out, err = run(tmp_path, str(project(tmp_path, rows)))
    assert code == 0, err
    rid = run_id(out)
    engine = open_engine(f"sqlite:///{tmp_path / 'a.db'}")
    turns = conversation_turns(engine, rid)[("c1", "agent", 0)]
    assert [t.input for t in turns] == ["a typo here", "b"]  # it went on
    assert turns[0].answer is not None and turns[0].answer.extras["end_ignored"] == (
        "end 'finished' is not done or transfer: the conversation went on")
    r = assay_in_process("show", rid, "--item", "c1", "--db", f"sqlite:///{tmp_path / 'a.db'}",
                         cwd=tmp_path)
    assert "end 'finished' is not done or transfer: the conversation went on" in r.stdout
