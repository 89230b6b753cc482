"""`assay run` end to end: a model target and a judge against the local OpenAI-compatible
server, resume after SIGKILL, retry, show, and the other target types. The command runs in this
process (tests/invoke.py); a kill or a Ctrl-C is sent to the real entry point's process."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.agent_server import AgentServer
from tests.conftest import SAMPLE, wait_for_results
from tests.invoke import ASSAY, assay_in_process, assay_process, cli_env
from tests.openai_server import OpenAIServer

SAMPLE_ITEMS = {x["prompt_id"]: x for x in json.loads(SAMPLE.read_text("utf-8"))}
# Items whose recorded answer is blank: as a model's reply, an empty reply is asked once more
# (max-retries 1) before it is taken as the answer (models/client.py).
EMPTIES = [k for k, x in SAMPLE_ITEMS.items() if not str(x["response"]).strip()]


def run(*args: str, cwd: Path, **env_extra: str) -> subprocess.CompletedProcess[str]:
    """`assay ARGS` run in this process, in `cwd`, with this environment but for ASSAY_DB and
    ASSAY_MODELS, plus `env_extra`."""
    return assay_in_process(*args, cwd=cwd, env=cli_env(env_extra), timeout=300)


def run_process(*args: str, cwd: Path, **env_extra: str) -> subprocess.CompletedProcess[str]:
    """The same as a process of the installed entry point (mark the test `process`)."""
    return assay_process(*args, cwd=cwd, env=cli_env(env_extra), timeout=300)


def model_reply(messages: list[dict[str, str]]) -> str:
    """As a target: the sample's recorded answer for the item named in the prompt. As the T1
    judge: 1 unless the answer says 1400."""
    user = messages[-1]["content"]
    if user.startswith("ITEM "):
        item_id = user.split("|", 1)[0][5:]
        return str(SAMPLE_ITEMS[item_id]["response"])
    return '{"score": 0}' if "1400" in user else '分析：一致。\n{"score": 1}'


def target_requests(server: OpenAIServer) -> list[str]:
    return [r["messages"][-1]["content"].split("|", 1)[0][5:] for r in server.requests
            if r["messages"][-1]["content"].startswith("ITEM ")]


@pytest.fixture()
def project(tmp_path: Path, openai_server: OpenAIServer) -> Path:
    openai_server.default = model_reply
    r = run("models", "add", "m", "--base-url", openai_server.base_url, "--model", "fake-1",
            "--max-concurrency", "8", "--max-retries", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (tmp_path / "spec.yaml").write_text(f"""\
name: sample-via-model
dataset: {SAMPLE}
targets:
  - name: fake
    type: model
    model: m
    prompt: "ITEM {{prompt_id}}|{{prompt}}"
evaluators: [finance-rubric, finsearch-t1-judge@m]
concurrency: 4
""", "utf-8")
    return tmp_path


def results(project: Path, run_id: str) -> dict[tuple[str, str], tuple[Any, str]]:
    db = sqlite3.connect(project / ".assay" / "assay.db")
    rows = db.execute("SELECT item_id, evaluator, score, status FROM results WHERE run_id = ?",
                      (run_id,)).fetchall()
    return {(i, e): (s, st) for i, e, s, st in rows}


def run_id_of(stdout: str) -> str:
    return stdout.split("run ")[-1].split()[0]


def test_model_target_run_matches_recorded_scores_and_is_traced(
        project: Path, openai_server: OpenAIServer) -> None:
    r = run("run", "spec.yaml", cwd=project)
    assert r.returncode == 0, r.stderr
    run_id = run_id_of(r.stdout)
    got = results(project, run_id)
    assert len(got) == 2 * len(SAMPLE_ITEMS)
    # the rubric on the model's answers = the rubric on the same answers recorded
    for item_id, item in SAMPLE_ITEMS.items():
        score, _ = got[(item_id, "finance-rubric")]
        assert score == item["expected_score"], item_id
    assert sorted(target_requests(openai_server)) == sorted([*SAMPLE_ITEMS, *EMPTIES])
    db = sqlite3.connect(project / ".assay" / "assay.db")
    kinds = dict(db.execute("SELECT kind, count(*) FROM spans WHERE run_id = ? GROUP BY kind",
                            (run_id,)).fetchall())
    n = len(SAMPLE_ITEMS)
    assert kinds == {"sample": n, "target": n, "truth": n, "evaluator": 2 * n,
                     "model.request": 2 * n + len(EMPTIES), "render": n, "parse": n}
    manifest = json.loads(db.execute("SELECT manifest FROM runs").fetchone()[0])
    assert manifest["targets"]["fake"]["type"] == "model"
    assert manifest["dataset"]["selected"] == n and manifest["spec"]["name"] == \
        "sample-via-model"
    assert {e["name"] for e in manifest["evaluators"]} == {"finance-rubric",
                                                           "finsearch-t1-judge@m"}

    r = run("show", run_id, "--item", "(T1)Assay_Sample_S01_right", cwd=project)
    assert r.returncode == 0, r.stderr
    for text in ("question 贵州茅台最新股价", "answer from fake", "ground truth",
                 "finance-rubric on fake → score 1 (scored)", "raw reply:", "parsed:",
                 "model.request m", "evaluator finsearch-t1-judge@m", "parse "):
        assert text in r.stdout, text
    r = run("show", run_id, cwd=project)
    assert r.returncode == 0 and "finsearch-t1-judge@m" in r.stdout and "p95" in r.stdout
    assert run("show", "nope", cwd=project).returncode == 2
    r = run("runs", cwd=project)
    assert run_id in r.stdout


@pytest.mark.process
def test_sigkill_then_resume_repeats_no_finished_work(project: Path,
                                                      openai_server: OpenAIServer) -> None:
    openai_server.latency_s = 0.05
    env = cli_env()
    proc = subprocess.Popen([ASSAY, "run", "spec.yaml", "-q"], cwd=project, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    db_path = project / ".assay" / "assay.db"
    wait_for_results(db_path, 40)
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    db = sqlite3.connect(db_path)
    run_id, status = db.execute("SELECT id, status FROM runs").fetchone()
    assert status == "running"  # killed: nobody marked it
    answered_before = {i for (i,) in db.execute("SELECT item_id FROM answers")}
    judged_before = {i for (i,) in db.execute(
        "SELECT item_id FROM results WHERE evaluator = 'finsearch-t1-judge@m'")}
    assert 20 <= len(answered_before) < len(SAMPLE_ITEMS)
    requests_before = len(openai_server.requests)

    r = run("run", "--resume", run_id, cwd=project)
    assert r.returncode == 0, r.stderr
    asked = target_requests(openai_server)
    # no item whose answer was stored is asked again; every other item exactly once more
    again = [i for i in asked if i in answered_before]
    assert [i for i in again if asked.count(i) > (2 if i in EMPTIES else 1)] == []
    judged_after = [r["messages"][-1]["content"] for r in openai_server.requests[
        requests_before:] if not r["messages"][-1]["content"].startswith("ITEM ")]
    # a judgment whose reply was cached before the kill, but whose result was not stored yet,
    # is read from the response cache on resume: not asked again, so not repeated either
    cached = {i for (i,) in sqlite3.connect(db_path).execute(
        "SELECT item_id FROM results WHERE evaluator = 'finsearch-t1-judge@m' "
        "AND json_extract(evidence, '$.cached') = 1")} - judged_before
    assert len(cached) <= 8  # at most the judgments in flight at the kill
    assert len(judged_after) == len(SAMPLE_ITEMS) - len(judged_before) - len(cached)
    final = results(project, run_id)
    assert sqlite3.connect(db_path).execute("SELECT status FROM runs").fetchone()[0] == \
        "finished"
    # the same as an uninterrupted run
    r = run("run", "spec.yaml", "--no-cache", cwd=project)
    assert r.returncode == 0, r.stderr
    assert final == results(project, run_id_of(r.stdout))


def test_errors_are_recorded_and_retry_redoes_only_them(project: Path,
                                                        openai_server: OpenAIServer) -> None:
    openai_server.script = [("status", 400), ("status", 400)]
    r = run("run", "spec.yaml", "--limit", "5", "-e", "finance-rubric", cwd=project)
    assert r.returncode == 0, r.stderr
    run_id = run_id_of(r.stdout)
    got = results(project, run_id)
    errors = sorted(i for (i, _), (_, st) in got.items() if st == "error")
    assert len(errors) == 2 and len(got) == 5
    r = run("show", run_id, "--item", errors[0], cwd=project)
    assert "error HTTP 400" in r.stdout
    before = len(openai_server.requests)
    r = run("retry", run_id, cwd=project)
    assert r.returncode == 0, r.stderr
    assert "2 failed target call(s)" in r.stderr
    assert sorted(target_requests(openai_server)[-2:]) == errors
    assert len(openai_server.requests) == before + 2
    got = results(project, run_id)
    assert all(st != "error" for _, st in got.values()) and len(got) == 5


def test_cli_flags_override_the_spec(project: Path) -> None:
    r = run("run", "spec.yaml", "--limit", "3", "-e", "finance-rubric", "--target", "fake",
            cwd=project)
    assert r.returncode == 0, r.stderr
    assert len(results(project, run_id_of(r.stdout))) == 3
    r = run("run", "spec.yaml", "--target", "nobody", cwd=project)
    assert r.returncode == 2 and "--target nobody: the spec has targets fake" in r.stderr
    r = run("run", cwd=project)
    assert r.returncode == 2 and "give a SPEC" in r.stderr
    r = run("run", "missing.yaml", cwd=project)
    assert r.returncode == 2 and "missing.yaml: no such file" in r.stderr


def test_a_prompt_the_item_cannot_fill_stops_before_any_call(
        project: Path, openai_server: OpenAIServer) -> None:
    spec = (project / "spec.yaml").read_text("utf-8").replace("{prompt}", "{nonexistent}")
    (project / "bad.yaml").write_text(spec, "utf-8")
    r = run("run", "bad.yaml", cwd=project)
    assert r.returncode == 2
    assert "target fake, item (T1)Assay_Sample_S01_right (line 1): no value for template " \
           "variable nonexistent" in r.stderr
    assert openai_server.requests == []


def write_items(project: Path) -> None:
    rows = [{"id": f"a{i}", "prompt": f"q{i}", "response_reference": SAMPLE_ITEMS[k][
        "response_reference"], "ground_truth": SAMPLE_ITEMS[k]["ground_truth"]}
        for i, k in enumerate(list(SAMPLE_ITEMS)[:4])]
    (project / "items.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                                 for r in rows), "utf-8")


@pytest.mark.server  # the HTTP agent
@pytest.mark.process  # the command target
def test_http_python_and_command_targets_through_a_spec(project: Path) -> None:
    write_items(project)
    agent = AgentServer().start()
    try:
        (project / "agents.py").write_text(
            "def answer(item):\n    return {'text': item['prompt'] + ' 1455', "
            "'metadata': {'tool': 'x'}}\n", "utf-8")
        (project / "agent.sh").write_text("#!/bin/sh\ncat > /dev/null\necho 1455.00\n", "utf-8")
        (project / "agent.sh").chmod(0o755)
        (project / "multi.yaml").write_text(f"""\
dataset: {{path: items.jsonl, id_field: id}}
targets:
  - {{name: web, type: http, url: "{agent.url}", body: {{question: "{{prompt}}"}},
     answer_path: $.data.answer, headers: {{X-Token: "${{AGENT_TOKEN}}"}}}}
  - {{name: fn, type: python, function: "agents:answer"}}
  - {{name: sh, type: command, command: ./agent.sh}}
  - {{name: rec, type: recorded, field: prompt}}
evaluators: [finance-rubric]
""", "utf-8")
        r = run("run", "multi.yaml", cwd=project, AGENT_TOKEN="tok-SECRET-9")
        assert r.returncode == 0, r.stderr
        run_id = run_id_of(r.stdout)
        db = sqlite3.connect(project / ".assay" / "assay.db")
        rows = db.execute("SELECT target, item_id, text, error FROM answers WHERE run_id = ? "
                          "ORDER BY target, item_id", (run_id,)).fetchall()
        by_target: dict[str, list[Any]] = {}
        for t, i, text, err in rows:
            by_target.setdefault(t, []).append((i, text, err))
        assert by_target["web"][0] == ("a0", "答：q0 1455.00元", None)
        assert by_target["fn"][1] == ("a1", "q1 1455", None)
        assert by_target["sh"][2] == ("a2", "1455.00", None)
        assert by_target["rec"][3] == ("a3", "q3", None)
        assert agent.headers[0]["X-Token"] == "tok-SECRET-9"
        assert b"tok-SECRET-9" not in (project / ".assay" / "assay.db").read_bytes()
        assert "web · finance-rubric" in r.stdout and "sh · finance-rubric" in r.stdout
    finally:
        agent.stop()


def replay_rows(stdout: str) -> dict[str, list[str]]:
    out = {}
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.split("│") if c.strip()]
        if len(cells) >= 5 and cells[0] != "evaluator":
            out[cells[0]] = cells[1:5]
    return out


def test_replay_reproduces_code_scores_and_reports_judge_drift(
        project: Path, openai_server: OpenAIServer) -> None:
    r = run("run", "spec.yaml", cwd=project)
    assert r.returncode == 0, r.stderr
    run_id = run_id_of(r.stdout)
    n = str(len(SAMPLE_ITEMS))
    before = len(openai_server.requests)
    r = run("replay", run_id, cwd=project)
    assert r.returncode == 0, r.stderr + r.stdout
    assert replay_rows(r.stdout) == {
        "finance-rubric": ["code", n, n, "100.0%"],
        "finsearch-t1-judge@m": ["model judge", n, n, "100.0%"]}
    assert len(openai_server.requests) == before  # no target call, judges from the cache
    # the judge has changed its mind about everything: --fresh shows the drift
    openai_server.default = lambda messages: '{"score": 0}'
    r = run("replay", run_id, "--fresh", "--show", "2", cwd=project)
    assert r.returncode == 0, r.stderr
    judge = replay_rows(r.stdout)["finsearch-t1-judge@m"]
    ones = sum(1 for x in SAMPLE_ITEMS.values() if "1400" not in str(x["response"]))
    assert judge[:3] == ["model judge", n, str(len(SAMPLE_ITEMS) - ones)]
    assert "stored 1.0 scored → now 0.0 scored" in r.stdout
    assert len(openai_server.requests) == before + len(SAMPLE_ITEMS)
    # a stored code score that no longer reproduces is a failure (exit 1), named
    db = sqlite3.connect(project / ".assay" / "assay.db")
    db.execute("UPDATE results SET score = 0 WHERE run_id = ? AND evaluator = "
               "'finance-rubric' AND item_id = '(T1)Assay_Sample_S01_right'", (run_id,))
    db.commit()
    r = run("replay", run_id, cwd=project)
    assert r.returncode == 1
    assert "finance-rubric (T1)Assay_Sample_S01_right (fake): stored 0.0 scored → now 1.0 " \
           "scored" in r.stdout


def test_replay_of_a_score_run(project: Path) -> None:
    r = run("score", str(SAMPLE), cwd=project)
    assert r.returncode == 0, r.stderr
    run_id = r.stdout.split("run ")[-1].split()[0]
    r = run("replay", run_id, cwd=project)
    assert r.returncode == 0, r.stderr
    n = str(len(SAMPLE_ITEMS))
    assert replay_rows(r.stdout) == {"finance-rubric": ["code", n, n, "100.0%"]}


@pytest.mark.process
def test_ctrl_c_marks_the_run_interrupted_and_resume_finishes_it(
        project: Path, openai_server: OpenAIServer) -> None:
    openai_server.latency_s = 0.05
    env = cli_env()
    proc = subprocess.Popen([ASSAY, "run", "spec.yaml", "-q"], cwd=project, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    db_path = project / ".assay" / "assay.db"
    wait_for_results(db_path, 1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted:" in err and "assay run --resume" in err
    db = sqlite3.connect(db_path)
    run_id, status = db.execute("SELECT id, status FROM runs").fetchone()
    assert status == "interrupted"
    # in-flight samples finished and were written: every stored answer has its results
    answered = db.execute("SELECT count(*) FROM answers").fetchone()[0]
    judged = db.execute("SELECT count(DISTINCT item_id) FROM results").fetchone()[0]
    assert answered == judged < len(SAMPLE_ITEMS)
    r = run("run", "--resume", run_id, cwd=project)
    assert r.returncode == 0, r.stderr
    assert len(results(project, run_id)) == 2 * len(SAMPLE_ITEMS)
    # each asked once (an empty reply: once more, as any call)
    assert sorted(target_requests(openai_server)) == sorted([*SAMPLE_ITEMS, *EMPTIES])
