"""LLM judges end to end: `assay models` and `assay score --judge-model` against a real local
OpenAI-compatible server (the command in this process, tests/invoke.py; a Ctrl-C is sent to the
entry point's process)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.invoke import ASSAY, assay_in_process, cli_env
from tests.openai_server import OpenAIServer

SECRET = "sk-assay-test-SECRET-4f1b"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`assay ARGS` in this process, in `cwd`, with this environment but for ASSAY_DB and
    ASSAY_MODELS, and the judge's key."""
    return assay_in_process(*args, cwd=cwd, env=cli_env({"ASSAY_TEST_KEY": SECRET}))


def judge_by_answer(messages: list[dict[str, str]]) -> str:
    user = messages[-1]["content"]
    if "WRONG" in user:
        return '分析：数字不一致。\n{"score":0}'
    if "GARBLED" in user:
        return "I think the score is 1 out of 1."  # no JSON: must be unscored
    return '分析：一致。\n```json\n{"score": 1}\n```'


@pytest.fixture()
def project(tmp_path: Path, openai_server: OpenAIServer) -> Path:
    openai_server.default = judge_by_answer
    r = run("models", "add", "judge", "--base-url", openai_server.base_url, "--model",
            "judge-1", "--api-key-env", "ASSAY_TEST_KEY", "--param", "temperature=0",
            "--max-concurrency", "4", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = [{"prompt_id": f"q{i}", "prompt": f"贵州茅台最新股价（第{i}问）",
             "response_reference": "必答点：最新股价\n精度要求：仅允许四舍五入误差",
             "ground_truth": '{"最新价": "1455.0"}',
             "response": ["最新价1455元", "最新价1400元 WRONG", "GARBLED"][i % 3]}
            for i in range(9)]
    (tmp_path / "items.json").write_text(json.dumps(rows, ensure_ascii=False), "utf-8")
    return tmp_path


def test_registry_keeps_only_the_variable_name(project: Path) -> None:
    text = (project / "assay-models.yaml").read_text("utf-8")
    assert "api_key_env: ASSAY_TEST_KEY" in text and SECRET not in text
    r = run("models", "list", cwd=project)
    assert "judge-1" in r.stdout and "ASSAY_TEST_KEY" in r.stdout
    r = run("models", "add", "judge", "--base-url", "http://x/v1", "--model", "m", cwd=project)
    assert r.returncode == 2 and "exists; use --replace" in r.stderr
    r = run("models", "add", "bad", "--base-url", "http://x/v1", "--model", "m",
            "--api-key-env", "sk-live-123-abc", cwd=project)
    assert r.returncode == 2 and "NAME of an environment variable" in r.stderr


def test_models_test_prints_latency_tokens_and_reply(project: Path,
                                                     openai_server: OpenAIServer) -> None:
    openai_server.script = [("ok", "ok")]
    r = run("models", "test", "judge", cwd=project)
    assert r.returncode == 0, r.stderr
    assert "ms, tokens {" in r.stdout and r.stdout.strip().endswith("ok")
    assert openai_server.auth[-1] == f"Bearer {SECRET}"  # the key is used …


def test_score_with_a_builtin_judge(project: Path, openai_server: OpenAIServer) -> None:
    r = run("score", "items.json", "--evaluator", "finsearch-t1-judge", "--judge-model", "judge",
            "--out", "o.jsonl", cwd=project)
    assert r.returncode == 0, r.stderr
    recs = {x["item_id"]: x for x in map(json.loads, (project / "o.jsonl").read_text(
        "utf-8").splitlines())}
    assert [recs[f"q{i}"]["score"] for i in range(3)] == [1, 0, None]
    assert [recs[f"q{i}"]["status"] for i in range(3)] == ["scored", "scored", "unscored"]
    ev, call = recs["q2"]["evidence"], recs["q2"]["call"]
    assert call["reply"] == "I think the score is 1 out of 1."  # raw reply kept, not a score
    assert call["messages"][0]["role"] == "system"
    assert "学生回复" in call["messages"][1]["content"]
    assert "GARBLED" in call["messages"][1]["content"]
    assert ev["parsed"]["how"].startswith("no JSON object")
    # the evidence is what the judge decided on; the request is the call
    assert not {"reply", "messages", "usage", "model", "attempts"} & set(ev)
    assert recs["q0"]["evidence"]["parsed"]["how"] == "fenced block"
    assert recs["q0"]["call"]["usage"]["total_tokens"] > 0
    assert recs["q0"]["call"]["model"] == "judge-1" and recs["q0"]["call"]["name"] == "judge"
    assert recs["q0"]["call"]["provider"] == "openai"
    assert recs["q0"]["evaluator"] == "finsearch-t1-judge@judge"
    assert len(openai_server.requests) == 9
    assert all(req["temperature"] == 0 for req in openai_server.requests)
    # … and never written anywhere
    for path in (project / "o.jsonl", project / ".assay" / "assay.db",
                 project / "assay-models.yaml"):
        assert SECRET.encode() not in path.read_bytes()
    db = sqlite3.connect(project / ".assay" / "assay.db")
    manifest = json.loads(db.execute("SELECT manifest FROM runs").fetchone()[0])
    assert manifest["models"]["judge"]["api_key_env"] == "ASSAY_TEST_KEY"


def test_cache_serves_repeats_and_no_cache_calls_again(project: Path,
                                                      openai_server: OpenAIServer) -> None:
    assert run("score", "items.json", "-e", "finsearch-t1-judge@judge", cwd=project).returncode == 0
    assert len(openai_server.requests) == 9
    r = run("score", "items.json", "-e", "finsearch-t1-judge@judge", "--out", "o.jsonl",
            cwd=project)
    assert r.returncode == 0 and len(openai_server.requests) == 9  # all from the cache
    recs = {x["item_id"]: x for x in map(json.loads, (project / "o.jsonl").read_text(
        "utf-8").splitlines())}
    assert all(x["call"]["cached"] is True and x["call"]["cost"] is None
               for x in recs.values())
    assert [recs[f"q{i}"]["score"] for i in range(3)] == [1, 0, None]
    assert run("score", "items.json", "-e", "finsearch-t1-judge@judge", "--no-cache",
               cwd=project).returncode == 0
    assert len(openai_server.requests) == 18


def test_errors_are_never_cached(project: Path, openai_server: OpenAIServer) -> None:
    openai_server.script = [("status", 400)]
    r = run("score", "items.json", "-e", "finsearch-t1-judge@judge", "--out", "o.jsonl",
            cwd=project)
    assert r.returncode == 0
    statuses = [json.loads(x)["status"] for x in (project / "o.jsonl").read_text(
        "utf-8").splitlines()]
    assert statuses.count("error") == 1
    before = len(openai_server.requests)
    run("score", "items.json", "-e", "finsearch-t1-judge@judge", cwd=project)
    assert len(openai_server.requests) == before + 1  # only the failed one is asked again


def test_missing_variable_stops_before_any_call(project: Path,
                                                openai_server: OpenAIServer) -> None:
    # a variable no item has: the mapping hint, before anything runs
    r = run("score", "items.json", "-e", "coze-correctness@judge", cwd=project)
    assert r.returncode == 3
    assert "items.json:1: field 'input': missing required field (needed by " \
           "coze-correctness@judge; map a column with --field input=COLUMN)" in r.stderr
    # a variable one item cannot fill (null): that item is named, and no model is called
    rows = [{"id": "a", "input": "q", "reference_output": "27", "response": "27"},
            {"id": "b", "input": "q", "reference_output": None, "response": "27"}]
    (project / "c.json").write_text(json.dumps(rows), "utf-8")
    r = run("score", "c.json", "-e", "coze-correctness@judge", "--id-field", "id", cwd=project)
    assert r.returncode == 2
    assert r.stderr.strip() == ("error: c.json: item b (line 2): no value for template "
                                "variable reference_output")
    assert openai_server.requests == []


def test_a_judge_needs_a_model(project: Path) -> None:
    r = run("score", "items.json", "-e", "coze-quality", cwd=project)
    assert r.returncode == 2
    assert "is an LLM judge: give --judge-model MODEL or write coze-quality@MODEL" in r.stderr
    r = run("score", "items.json", "-e", "coze-quality@nobody", cwd=project)
    assert r.returncode == 2 and "unknown model 'nobody'" in r.stderr


def test_item_judge_uses_the_items_own_prompts(project: Path,
                                               openai_server: OpenAIServer) -> None:
    release = Path(__file__).resolve().parents[3] / "shared/data/finsearchcomp/chat-test.json"
    if not release.exists():
        pytest.skip("shared/ not beside the project")
    openai_server.default = lambda messages: '```json\n{"answer_score": 0}\n```'
    r = run("score", str(release), "-e", "item-judge@judge", "--out", "o.jsonl", cwd=project)
    assert r.returncode == 0, r.stderr
    recs = [json.loads(x) for x in (project / "o.jsonl").read_text("utf-8").splitlines()]
    assert [x["score"] for x in recs] == [0, 0, 0]
    t2 = [r["messages"] for r in openai_server.requests
          if "NVIDIA's total deferred tax assets" in r["messages"][1]["content"]]
    assert len(t2) == 1 and t2[0][0]["content"].startswith("You are an intelligent judge")
    assert "fiscal year 2022 were $1,222 million." in t2[0][1]["content"]


def test_agreement_between_rubric_and_judge(project: Path) -> None:
    r = run("score", "items.json", "-e", "finance-rubric", "-e", "finsearch-t1-judge@judge",
            cwd=project)
    assert r.returncode == 0, r.stderr
    run_id = r.stdout.split("run ")[-1].split()[0]
    r = run("agreement", run_id, cwd=project)
    assert r.returncode == 0, r.stderr
    # rubric: 1, 0, 0 (GARBLED has no value); judge: 1, 0, unscored → 6 compared, all agree
    assert "finance-rubric" in r.stdout and "finsearch-t1-judge@judge" in r.stdout
    line = next(x for x in r.stdout.splitlines() if "finance-rubric" in x and "│" in x)
    cells = [c.strip() for c in line.split("│") if c.strip()]
    assert cells[2:] == ["6", "100.0", "1.000", "0", "3"]
    r = run("agreement", "nope", cwd=project)
    assert r.returncode == 2 and "no run 'nope'" in r.stderr


def test_jury_of_two_judges(project: Path, openai_server: OpenAIServer) -> None:
    r = run("models", "add", "judge2", "--base-url", openai_server.base_url, "--model",
            "judge-2", cwd=project)
    assert r.returncode == 0, r.stderr
    r = run("score", "items.json", "-e", "finsearch-t1-judge@judge", "-e",
            "finsearch-t1-judge-en@judge2", "--jury", "majority", "--out", "o.jsonl",
            cwd=project)
    assert r.returncode == 0, r.stderr
    recs = [json.loads(x) for x in (project / "o.jsonl").read_text("utf-8").splitlines()]
    jury = {x["item_id"]: x for x in recs if x["evaluator"] == "jury-majority"}
    assert [jury[f"q{i}"]["score"] for i in range(3)] == [1, 0, None]
    assert len(jury["q0"]["evidence"]["members"]) == 2
    assert {x["evaluator"] for x in recs} == {"finsearch-t1-judge@judge",
                                              "finsearch-t1-judge-en@judge2", "jury-majority"}
    r = run("score", "items.json", "-e", "finance-rubric", "--jury", "mean", cwd=project)
    assert r.returncode == 2 and "needs two or more model judges" in r.stderr


def extractor(messages: list[dict[str, str]]) -> str:
    answer = messages[-1]["content"].split("Answer:\n", 1)[-1]
    if "GARBLED" in answer:
        return "Sorry, I found nothing."
    value = "1455元" if "1455" in answer else "1400元"
    return json.dumps({"values": [{"field": "last", "value": value,
                                   "quote": answer.split(" ")[0]}]}, ensure_ascii=False)


def test_finance_hybrid_model_reads_rubric_decides(project: Path,
                                                   openai_server: OpenAIServer) -> None:
    openai_server.default = extractor
    rows = json.loads((project / "items.json").read_text("utf-8"))
    # The model is asked only where the rubric's code abstains: here a second price that may
    # speak of another company ("Foo Holdings"). A plainly wrong answer is decided by code.
    doubt = " ；Foo Holdings最新价1400元"
    for row in rows:
        if row["response"] != "最新价1400元 WRONG":
            row["response"] = ("最新价1455元" if row["response"] == "最新价1455元" else
                               "GARBLED 最新价1455元") + doubt
    rows.append(dict(rows[0], prompt_id="empty", response=""))
    (project / "items.json").write_text(json.dumps(rows, ensure_ascii=False), "utf-8")
    r = run("score", "items.json", "-e", "finance-hybrid@judge", "-e", "finance-rubric",
            "--out", "o.jsonl", cwd=project)
    assert r.returncode == 0, r.stderr
    recs = [json.loads(x) for x in (project / "o.jsonl").read_text("utf-8").splitlines()]
    hybrid = {x["item_id"]: x for x in recs if x["evaluator"] == "finance-hybrid@judge"}
    assert [hybrid[f"q{i}"]["score"] for i in range(3)] == [1, 0, None]
    assert [hybrid[f"q{i}"]["status"] for i in range(3)] == ["scored", "scored", "unscored"]
    # the extraction and the decision are both kept
    ev = hybrid["q0"]["evidence"]
    assert ev["extraction"]["read"] == [{"field": "last", "value": "1455元",
                                         "quote": "最新价1455元", "used": True,
                                         "found_in_answer": True}]
    assert ev["values"][0]["via"] == "model extraction" and ev["values"][0]["pass"] is True
    assert hybrid["q2"]["call"]["reply"] == "Sorry, I found nothing."
    assert hybrid["q0"]["call"]["messages"][0]["role"] == "system"
    # an empty answer is 0 by the rules, a plainly wrong one by the code: no model call
    assert hybrid["empty"]["score"] == 0 and "extraction" not in hybrid["empty"]["evidence"]
    assert "extraction" not in hybrid["q1"]["evidence"]
    assert "call" not in hybrid["empty"] and "call" not in hybrid["q1"]
    assert len(openai_server.requests) == 6
    assert "Fields (key: meaning):\nlast: latest price / 最新价" in \
        openai_server.requests[0]["messages"][1]["content"]


@pytest.mark.process  # a Ctrl-C
def test_ctrl_c_during_judging_keeps_what_finished(project: Path,
                                                   openai_server: OpenAIServer) -> None:
    import signal
    import time

    openai_server.latency_s = 0.2
    rows = [{"prompt_id": f"k{i}", "prompt": f"问题{i}", "response_reference": "必答点：最新价\n"
             "精度要求：仅允许四舍五入误差", "ground_truth": '{"最新价": "1"}', "response": "1"}
            for i in range(400)]
    (project / "many.json").write_text(json.dumps(rows, ensure_ascii=False), "utf-8")
    env = cli_env({"ASSAY_TEST_KEY": SECRET})
    proc = subprocess.Popen([ASSAY, "score", "many.json", "-e", "finsearch-t1-judge@judge",
                             "--out", "o.jsonl", "-q"], cwd=project, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(openai_server.requests) < 40 and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    db = sqlite3.connect(project / ".assay" / "assay.db")
    status, summary = db.execute("SELECT status, summary FROM runs").fetchone()
    stored = db.execute("SELECT count(*) FROM results").fetchone()[0]
    lines = (project / "o.jsonl").read_text("utf-8").splitlines()
    assert status == "interrupted"
    # every request that was made is a stored result: items in flight finished and were written
    assert stored == len(lines) == json.loads(summary)["samples_done"]
    assert stored == len(openai_server.requests) and 40 <= stored < 400


def test_cost_from_the_price_table(project: Path, openai_server: OpenAIServer) -> None:
    r = run("models", "add", "priced", "--base-url", openai_server.base_url, "--model", "p",
            "--price-in", "2", "--price-out", "8", cwd=project)
    assert r.returncode == 0, r.stderr
    r = run("score", "items.json", "-e", "finsearch-t1-judge@priced", "--out", "o.jsonl",
            cwd=project)
    assert r.returncode == 0, r.stderr
    recs = [json.loads(x) for x in (project / "o.jsonl").read_text("utf-8").splitlines()]
    for rec in recs:
        u = rec["call"]["usage"]
        assert rec["call"]["cost"] == pytest.approx(
            (u["prompt_tokens"] * 2 + u["completion_tokens"] * 8) / 1e6)
    total = sum(x["call"]["cost"] for x in recs)
    assert f"finsearch-t1-judge@priced: model cost {total:.4f}" in r.stdout
    # the cost and tokens are columns of their own: the sheet is their sum
    db = sqlite3.connect(project / ".assay" / "assay.db")
    cost, prompt, completion = db.execute("SELECT sum(cost), sum(prompt_tokens), "
                                          "sum(completion_tokens) FROM results").fetchone()
    assert cost == pytest.approx(total)
    assert (prompt, completion) == (sum(x["call"]["usage"]["prompt_tokens"] for x in recs),
                                    sum(x["call"]["usage"]["completion_tokens"] for x in recs))


def test_json_mode_asks_for_json_and_keys_the_cache(project: Path,
                                                    openai_server: OpenAIServer) -> None:
    assert run("models", "add", "js", "--base-url", openai_server.base_url, "--model", "judge-1",
               "--json-mode", cwd=project).returncode == 0
    assert run("score", "items.json", "-e", "finsearch-t1-judge@js", cwd=project).returncode == 0
    assert all(r["response_format"] == {"type": "json_object"} for r in openai_server.requests)
    # the same messages without json mode are a different request, not a cache hit
    n = len(openai_server.requests)
    assert run("score", "items.json", "-e", "finsearch-t1-judge@judge", cwd=project
               ).returncode == 0
    assert len(openai_server.requests) == n + 9


def test_a_streaming_model_judges_like_a_plain_one(project: Path,
                                                   openai_server: OpenAIServer) -> None:
    r = run("models", "add", "judge-s", "--base-url", openai_server.base_url, "--model",
            "judge-1", "--stream", cwd=project)
    assert r.returncode == 0, r.stderr
    assert "stream: true" in (project / "assay-models.yaml").read_text("utf-8")
    openai_server.script = [("truncated",)]  # the first stream is cut: retried, not judged
    r = run("score", "items.json", "-e", "finsearch-t1-judge@judge-s", "--out", "o.jsonl",
            cwd=project)
    assert r.returncode == 0, r.stderr
    recs = {x["item_id"]: x for x in map(json.loads, (project / "o.jsonl").read_text(
        "utf-8").splitlines())}
    assert [recs[f"q{i}"]["score"] for i in range(3)] == [1, 0, None]
    assert [recs[f"q{i}"]["status"] for i in range(3)] == ["scored", "scored", "unscored"]
    assert recs["q0"]["call"]["reply"] == '分析：一致。\n```json\n{"score": 1}\n```'
    assert all(req.get("stream") is True for req in openai_server.requests)
    assert len(openai_server.requests) == 10
    assert sum(len(x["call"]["attempts"]) - 1 for x in recs.values()) == 1
