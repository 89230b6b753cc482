"""Hardening of `assay run` (issue 13), against the local OpenAI-compatible server and HTTP
agent: text that no store can hold, keys echoed back, empty replies, a Python target that never
returns, two resumes of one run. The command runs in this process (tests/invoke.py), and as the
real entry point's process where a kill, two processes at once or the process's exit is the
point."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.agent_server import AgentServer
from tests.conftest import SAMPLE, wait_for_results
from tests.invoke import ASSAY, assay_in_process, assay_process, cli_env
from tests.openai_server import OpenAIServer
from tests.stored import stored_bytes as store_bytes

KEY = "sk-canary-0b5e77d2c4a1"
TOKEN = "agent-canary-9d41e6f0"
SAMPLE_ITEMS = json.loads(SAMPLE.read_text("utf-8"))


def run(*args: str, cwd: Path, timeout: float = 120, **env_extra: str
        ) -> subprocess.CompletedProcess[str]:
    """`assay ARGS` in this process, in `cwd`, with this environment but for ASSAY_DB and
    ASSAY_MODELS, plus the canary key and token and `env_extra`."""
    env = cli_env({"CANARY_KEY": KEY, "AGENT_TOKEN": TOKEN, **env_extra})
    return assay_in_process(*args, cwd=cwd, env=env, timeout=timeout)


def run_process(*args: str, cwd: Path, timeout: float = 120, **env_extra: str
                ) -> subprocess.CompletedProcess[str]:
    """The same as a process of the installed entry point (mark the test `process`)."""
    env = cli_env({"CANARY_KEY": KEY, "AGENT_TOKEN": TOKEN, **env_extra})
    return assay_process(*args, cwd=cwd, env=env, timeout=timeout)


def run_id_of(stdout: str) -> str:
    return stdout.split("run ")[-1].split()[0]


def write_items(project: Path, n: int = 4) -> None:
    rows = [{"id": f"a{i}", "prompt": f"q{i} 贵州茅台最新股价",
             "response_reference": SAMPLE_ITEMS[0]["response_reference"],
             "ground_truth": SAMPLE_ITEMS[0]["ground_truth"]} for i in range(n)]
    (project / "items.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                                 for r in rows), "utf-8")


def reply(messages: list[dict[str, str]]) -> str:
    """As the target: a right answer, with a lone surrogate and a NUL for item a1. As the judge:
    a score, with a lone surrogate in its reasoning for item a2's answer."""
    user = messages[-1]["content"]
    if user.startswith("ITEM "):
        item = user.split("|", 1)[0][5:]
        return "最新价1455.00元\ud800\x00" if item == "a1" else f"{item}: 最新价1455.00元"
    if "a2: " in user:
        return '分析\ud800：一致。\n{"score": 1}'
    return '{"score": 1}'


@pytest.fixture()
def project(tmp_path: Path, openai_server: OpenAIServer) -> Path:
    openai_server.default = reply
    r = run("models", "add", "m", "--base-url", openai_server.base_url, "--model", "fake-1",
            "--api-key-env", "CANARY_KEY", "--max-retries", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    write_items(tmp_path)
    (tmp_path / "spec.yaml").write_text("""\
name: hardening
dataset: {path: items.jsonl, id_field: id}
targets:
  - {name: fake, type: model, model: m, prompt: "ITEM {id}|{prompt}"}
evaluators: [finance-rubric, finsearch-t1-judge@m]
concurrency: 2
""", "utf-8")
    return tmp_path


def db_rows(project: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(project / ".assay" / "assay.db") as db:
        return db.execute(sql, args).fetchall()


# ---- 1. a lone surrogate ------------------------------------------------------------------

def test_a_lone_surrogate_in_replies_does_not_stop_the_run(project: Path) -> None:
    r = run("run", "spec.yaml", cwd=project)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    run_id = run_id_of(r.stdout)
    answers = dict(db_rows(project, "SELECT item_id, text FROM answers WHERE run_id = ?",
                           run_id))
    assert answers["a1"] == "最新价1455.00元\ufffd\ufffd"
    (extras,) = db_rows(project, "SELECT extras FROM answers WHERE item_id = 'a1'")[0]
    assert json.loads(extras)["sanitized"] == ["text"]
    (extras,) = db_rows(project, "SELECT extras FROM answers WHERE item_id = 'a0'")[0]
    assert "sanitized" not in json.loads(extras)
    got = {(i, e): (s, st) for i, e, s, st in db_rows(
        project, "SELECT item_id, evaluator, score, status FROM results WHERE run_id = ?",
        run_id)}
    assert len(got) == 8 and got[("a1", "finance-rubric")] == (1.0, "scored")
    assert got[("a2", "finsearch-t1-judge@m")] == (1.0, "scored")
    (call,) = db_rows(project, "SELECT call FROM results WHERE item_id = 'a2' AND "
                      "evaluator = 'finsearch-t1-judge@m'")[0]
    judged = json.loads(call)
    assert judged["reply"] == '分析\ufffd：一致。\n{"score": 1}' and judged["sanitized"] is True
    r = run("show", run_id, "--item", "a1", cwd=project)
    assert r.returncode == 0 and "1455.00元\ufffd" in r.stdout


def test_a_lone_surrogate_from_an_http_agent_is_made_safe(project: Path) -> None:
    agent = AgentServer().start()
    agent.mode = "surrogate"
    try:
        (project / "web.yaml").write_text(f"""\
dataset: {{path: items.jsonl, id_field: id}}
targets:
  - {{name: web, type: http, url: "{agent.url}", answer_path: $.data.answer}}
evaluators: [finance-rubric]
""", "utf-8")
        r = run("run", "web.yaml", cwd=project)
        assert r.returncode == 0, r.stderr
        texts = {t for (t,) in db_rows(project, "SELECT text FROM answers")}
        assert texts == {"1455.00\ufffd元\ufffd"}
        statuses = {s for (s,) in db_rows(project, "SELECT status FROM results")}
        assert statuses == {"scored"}
    finally:
        agent.stop()


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_a_lone_surrogate_in_a_dataset_is_one_line_exit_3(project: Path, fmt: str) -> None:
    rows = ['{"id": "a0", "prompt": "fine"}', '{"id": "a1", "prompt": "bad \\ud800 text"}']
    body = "[" + ",\n".join(rows) + "]" if fmt == "json" else "\n".join(rows) + "\n"
    (project / f"bad.{fmt}").write_text(body, "utf-8")
    (project / "bad.yaml").write_text(f"""\
dataset: {{path: bad.{fmt}, id_field: id}}
targets: [{{name: rec, type: recorded, field: prompt}}]
evaluators: [finance-rubric]
""", "utf-8")
    for args in (("run", "bad.yaml"), ("score", f"bad.{fmt}", "--id-field", "id")):
        r = run(*args, cwd=project)
        assert r.returncode == 3, r.stderr
        assert r.stderr.strip().splitlines() == [
            f"error: bad.{fmt}:2: field 'prompt': holds an unpaired surrogate or a NUL "
            "character (a broken \\uXXXX escape or binary data); fix the file"]


# ---- 3. keys echoed back ------------------------------------------------------------------

def stored_bytes(project: Path) -> bytes:
    """Every byte of the store: the file, its write-ahead log, and a logical dump."""
    return store_bytes(project / ".assay" / "assay.db")


def test_keys_echoed_by_endpoints_are_never_stored_or_printed(
        project: Path, openai_server: OpenAIServer) -> None:
    def echo(body: dict[str, Any]) -> tuple[Any, ...] | None:
        user = body["messages"][-1]["content"]
        if user.startswith("ITEM a0|"):
            return ("echo_auth", 401)  # the target's call fails: not retried
        if "a3: " in user:
            return ("echo_auth", 500)  # the judge's call fails after its retry
        return None

    openai_server.chooser = echo
    agent = AgentServer().start()
    agent.mode = "echo"
    try:
        (project / "spec.yaml").write_text(f"""\
name: canary
dataset: {{path: items.jsonl, id_field: id}}
targets:
  - {{name: fake, type: model, model: m, prompt: "ITEM {{id}}|{{prompt}}"}}
  - {{name: web, type: http, url: "{agent.url}", answer_path: $.data.answer,
     headers: {{Authorization: "Bearer ${{AGENT_TOKEN}}"}}}}
evaluators: [finance-rubric, finsearch-t1-judge@m]
""", "utf-8")
        printed = []
        r = run("run", "spec.yaml", cwd=project)
        assert r.returncode == 0, r.stderr
        printed.append(r.stdout + r.stderr)
        run_id = run_id_of(r.stdout)
        assert agent.headers[0]["Authorization"] == f"Bearer {TOKEN}"
        assert openai_server.auth[0] == f"Bearer {KEY}"
        errors = dict(db_rows(project, "SELECT target || ':' || item_id, error FROM answers"))
        assert errors["fake:a0"].startswith("HTTP 401: ")
        assert "[secret $CANARY_KEY]" in errors["fake:a0"]
        assert errors["web:a0"].startswith("HTTP 403: ") and "Bearer [secret $AGENT_TOKEN]" \
            in errors["web:a0"]
        (reason,) = db_rows(project, "SELECT reason FROM results WHERE item_id = 'a3' AND "
                            "target = 'fake' AND evaluator = 'finsearch-t1-judge@m'")[0]
        assert reason.startswith("model call failed: gave up after 2 attempts: 500: ")
        assert "[secret $CANARY_KEY]" in reason
        for args in (("show", run_id), ("show", run_id, "--item", "a0", "--full"),
                     ("show", run_id, "--item", "a3", "--full"),
                     ("export", run_id, "-f", "csv", "-o", "out.csv"),
                     ("export", run_id, "-f", "jsonl", "-o", "out.jsonl"),
                     ("report", run_id, "-o", "report.html")):
            r = run(*args, cwd=project)
            assert r.returncode == 0, (args, r.stderr)
            printed.append(r.stdout + r.stderr)
        openai_server.chooser = None
        openai_server.script = [("echo_auth", 401)]
        r = run("models", "test", "m", cwd=project)
        assert r.returncode == 1 and "[secret $CANARY_KEY]" in r.stdout + r.stderr
        printed.append(r.stdout + r.stderr)
        files = b"".join((project / f).read_bytes() for f in ("out.csv", "out.jsonl",
                                                                "report.html"))
        for secret in (KEY, TOKEN):
            assert secret.encode() not in stored_bytes(project), secret
            assert secret.encode() not in files, secret
            assert all(secret not in p for p in printed), secret
    finally:
        agent.stop()


# ---- 6. empty replies ---------------------------------------------------------------------

@pytest.mark.parametrize("stream", [False, True])
def test_an_empty_reply_is_one_rule_in_both_modes_and_retry_asks_again(
        project: Path, openai_server: OpenAIServer, stream: bool) -> None:
    if stream:
        r = run("models", "add", "m", "--base-url", openai_server.base_url, "--model", "f",
                "--api-key-env", "CANARY_KEY", "--max-retries", "1", "--stream", "--replace",
                cwd=project)
        assert r.returncode == 0, r.stderr
    empty_now = {"target a0", "judge a3"}

    def empties(body: dict[str, Any]) -> tuple[Any, ...] | None:
        user = body["messages"][-1]["content"]
        who = "target " + user.split("|", 1)[0][5:] if user.startswith("ITEM ") else \
            "judge " + next((i for i in ("a0", "a1", "a2", "a3") if f"{i}: " in user), "?")
        return ("empty",) if who in empty_now else None

    openai_server.chooser = empties
    r = run("run", "spec.yaml", "-e", "finance-rubric", "-e", "finsearch-t1-judge@m",
            cwd=project)
    assert r.returncode == 0, r.stderr
    run_id = run_id_of(r.stdout)
    text, extras, call = db_rows(project, "SELECT text, extras, call FROM answers "
                                 "WHERE item_id = 'a0'")[0]
    ex = json.loads(extras)
    assert text == "" and ex["empty_reply"] is True
    assert [a["outcome"] for a in json.loads(call)["attempts"]] == ["empty reply", "empty reply"]
    got = {(i, e): (s, st, why) for i, e, s, st, why in db_rows(
        project, "SELECT item_id, evaluator, score, status, reason FROM results")}
    # the model's empty answer is scored as one (0 by the rubric's rule), not a gap
    assert got[("a0", "finance-rubric")][:2] == (0.0, "scored")
    assert got[("a3", "finsearch-t1-judge@m")] == (None, "unscored", "empty reply")
    assert got[("a2", "finsearch-t1-judge@m")][:2] == (1.0, "scored")
    # both were retried once in the run; `assay retry` asks for exactly those two again
    empty_now.clear()
    before = len(openai_server.requests)
    r = run("retry", run_id, cwd=project)
    assert r.returncode == 0, r.stderr
    assert "1 failed target call(s), 3 failed result(s)" in r.stderr
    # a0: its answer and its judgment; a3: its judge's result
    assert len(openai_server.requests) == before + 3
    got = {(i, e): (s, st) for i, e, s, st in db_rows(
        project, "SELECT item_id, evaluator, score, status FROM results")}
    assert len(got) == 8 and all(v == (1.0, "scored") for v in got.values())


# ---- 7. two resumes of one run ------------------------------------------------------------

@pytest.mark.process  # a kill, then two processes at once
def test_a_second_resume_of_a_run_is_refused_in_one_line(project: Path,
                                                          openai_server: OpenAIServer) -> None:
    write_items(project, 12)
    openai_server.latency_s = 0.15
    env = cli_env({"CANARY_KEY": KEY})
    db_path = project / ".assay" / "assay.db"
    first = subprocess.Popen([ASSAY, "run", "spec.yaml", "-q", "-e", "finance-rubric"],
                             cwd=project, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    wait_for_results(db_path, 2)
    first.send_signal(signal.SIGKILL)
    first.wait(10)
    (run_id,) = db_rows(project, "SELECT id FROM runs")[0]
    answered_before = {i for (i,) in db_rows(project, "SELECT item_id FROM answers")}
    asked_before = len(openai_server.requests)
    resume = subprocess.Popen([ASSAY, "run", "--resume", run_id, "-q"], cwd=project, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # until the resume holds the run (a dead one's lease)
        (owner,) = db_rows(project, "SELECT lease_owner FROM runs")[0]
        if owner and f":{resume.pid}:" in owner:
            break
        time.sleep(0.05)
    r = run("run", "--resume", run_id, cwd=project)
    assert r.returncode == 5, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"error: run {run_id} is being worked on by another process (process {resume.pid} on "
        f"{os.uname().nodename}); nothing was done — wait for it to finish, or stop it and "
        f"resume with: assay run --resume {run_id}"]
    _, err = resume.communicate(timeout=120)
    assert resume.returncode == 0, err
    asked = [b["messages"][-1]["content"].split("|", 1)[0][5:]
             for b in openai_server.requests[asked_before:]]
    # every item not answered before the kill is asked once, by one of the two resumes
    assert sorted(asked) == sorted(f"a{i}" for i in range(12)
                                   if f"a{i}" not in answered_before)
    assert len(db_rows(project, "SELECT * FROM results")) == 12
    assert db_rows(project, "SELECT status, lease_owner FROM runs") == [("finished", None)]


# ---- 9. a Python target that never returns ------------------------------------------------

@pytest.mark.process  # the process exits while the target's thread still hangs
def test_a_hanging_python_target_ends_with_its_timeout(project: Path) -> None:
    (project / "agents.py").write_text(
        "import time\n\n"
        "def answer(item):\n"
        "    if item['id'] == 'a1':\n"
        "        time.sleep(3600)\n"
        "    return '最新价1455.00元'\n", "utf-8")
    (project / "py.yaml").write_text("""\
dataset: {path: items.jsonl, id_field: id}
targets: [{name: fn, type: python, function: "agents:answer"}]
evaluators: [finance-rubric]
timeout_s: 1
""", "utf-8")
    started = time.monotonic()
    r = run_process("run", "py.yaml", cwd=project, timeout=40)
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - started < 20  # not 3600 s: the process is not kept alive
    got = dict(db_rows(project, "SELECT item_id, error FROM answers"))
    assert got == {"a0": None, "a1": "item timeout after 1 s", "a2": None, "a3": None}
