"""Every example spec runs as documented (the http one against the example agent, the model
one against the local OpenAI-compatible server standing in for DeepSeek and Qwen)."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from tests.cli.test_run_cli import run, run_id_of
from tests.conftest import ROOT
from tests.local_server import LocalServer
from tests.marks import starts
from tests.openai_server import OpenAIServer

SPECS = ROOT / "examples" / "specs"


def scores(project: Path, run_id: str) -> list[tuple[str, str, int, float | None]]:
    db = sqlite3.connect(project / ".assay" / "assay.db")
    return db.execute("SELECT item_id, target, epoch, score FROM results WHERE run_id = ? "
                      "ORDER BY item_id, epoch", (run_id,)).fetchall()


@pytest.mark.parametrize(("spec", "samples"), [
    ("recorded", 99), ("python", 40), pytest.param("command", 10, marks=pytest.mark.process)])
def test_offline_example_specs(tmp_path: Path, spec: str, samples: int) -> None:
    r = run("run", str(SPECS / f"{spec}.yaml"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    got = scores(tmp_path, run_id_of(r.stdout))
    assert len(got) == samples
    sample = {x["prompt_id"]: x["expected_score"] for x in json.loads(
        (ROOT / "examples" / "finsearch_t1_sample.json").read_text("utf-8"))}
    # these example agents answer with the sample's recorded answers: the scores must agree
    assert all(score == sample[item] for item, _, _, score in got)


class ExampleAgent(LocalServer):
    def app(self) -> web.Application:
        spec = importlib.util.spec_from_file_location("http_agent", SPECS / "agents" /
                                                      "http_agent.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.make_app()  # type: ignore[no-any-return]


@pytest.fixture()
@starts("server")
def example_agent() -> Iterator[int]:
    server = ExampleAgent().start()
    yield server.port
    server.stop()


def test_http_example_spec(tmp_path: Path, example_agent: int) -> None:
    text = (SPECS / "http.yaml").read_text("utf-8").replace("127.0.0.1:8765",
                                                           f"127.0.0.1:{example_agent}")
    text = text.replace("../finsearch_t1_sample.json", str(ROOT / "examples" /
                                                           "finsearch_t1_sample.json"))
    (tmp_path / "http.yaml").write_text(text, "utf-8")
    r = run("run", "http.yaml", cwd=tmp_path, AGENT_TOKEN="dev-token")
    assert r.returncode == 0, r.stderr
    got = scores(tmp_path, run_id_of(r.stdout))
    assert len(got) == 10 and all(s == 1.0 for *_, s in got)
    r = run("run", "http.yaml", cwd=tmp_path)  # the token's variable is not set
    assert r.returncode == 2 and "AGENT_TOKEN" in r.stderr


def test_model_example_spec(tmp_path: Path, openai_server: OpenAIServer) -> None:
    answers = {x["prompt"]: x["response"] for x in json.loads(
        (ROOT / "examples" / "finsearch_t1_sample.json").read_text("utf-8"))
        if x["answer_kind"] == "right"}

    def reply(messages: list[dict[str, str]]) -> str:
        if messages[0]["content"].startswith("你是一名金融数据助手"):
            return str(answers.get(messages[-1]["content"], "不知道"))
        return '{"score": 1}'

    openai_server.default = reply
    for name in ("deepseek", "qwen"):
        r = run("models", "add", name, "--base-url", openai_server.base_url, "--model",
                name + "-x", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    r = run("run", str(SPECS / "model.yaml"), "--limit", "5", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    got = scores(tmp_path, run_id_of(r.stdout))
    assert len(got) == 10
    sent = [m for m in openai_server.requests if m["model"] == "deepseek-x"]
    assert len(sent) == 5 and sent[0]["temperature"] == 0


def test_demo_spec_baseline_agent_answers_from_recorded_quotes(tmp_path: Path) -> None:
    r = run("run", str(SPECS / "demo.yaml"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    run_id = run_id_of(r.stdout)
    got = scores(tmp_path, run_id)
    assert len(got) == 32 and all(s == 1.0 for *_, s in got)
    db = sqlite3.connect(tmp_path / ".assay" / "assay.db")
    (text,) = db.execute("SELECT text FROM answers WHERE item_id = "
                         "'(T1)Assay_Sample_S13_right'").fetchone()
    assert text == ("苹果（105.AAPL）最新价247.45，今开248.25，最高249.04，最低245.13，"
                    "昨收249.34，涨跌额-1.89，涨跌幅-0.76%，总市值3672254505500.0。"
                    "（数据：2025-10-17 10:35 UTC）")
    (en,) = db.execute("SELECT text FROM answers WHERE item_id = "
                       "'(T1)Assay_Sample_S12_right'").fetchone()
    assert en.startswith("英伟达 (105.NVDA): latest price 181.81, open ")
    r = run("show", run_id, "--item", "(T1)Assay_Sample_S13_right", cwd=tmp_path)
    assert "answer from baseline" in r.stdout and "score 1 (scored)" in r.stdout
    # issue 28: read as a person reads it — no None, no dict or list syntax (a tool call's
    # arguments and result are the agent's own data, shown as the JSON they were)
    prose = "\n".join(line for line in r.stdout.splitlines()
                      if not line.lstrip().startswith("tool call") and not line.startswith(" "))
    assert "None" not in r.stdout and "['" not in prose and '{"' not in prose
    assert 'tool call 1: quote {"symbol": "105.AAPL"} → {"序号": "6406", "名称": "苹果", ' \
        '"最新价": "247.45"' in r.stdout
    assert "value 247.45 → last (via 最新价) truth 247.45, accepted 247.445 to 247.455: pass" \
        in r.stdout
    assert "rule (rounding): 仅允许四舍五入误差" in r.stdout


def test_mixed_example_spec_scores_each_item_where_it_applies(tmp_path: Path) -> None:
    """examples/specs/mixed.yaml (issue 28): numeric on the numbers, exact on the text, a
    check on one category; the rest of each is skipped, outside its counts and mean."""
    r = run("run", str(SPECS / "mixed.yaml"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    db = sqlite3.connect(tmp_path / ".assay" / "assay.db")
    rows = db.execute("SELECT evaluator, item_id, status, score FROM results WHERE run_id = ?",
                      (run_id_of(r.stdout),)).fetchall()
    scored = {(e, i): s for e, i, st, s in rows if st == "scored"}
    assert scored == {
        ("numeric", "m01"): 1.0, ("numeric", "m03"): 0.0, ("numeric", "m05"): 1.0,
        ("numeric", "m07"): 1.0, ("exact", "m02"): 1.0, ("exact", "m04"): 0.0,
        ("exact", "m06"): 1.0, ("names-author", "m08"): 1.0}
    assert sorted(st for _, _, st, _ in rows) == ["scored"] * 8 + ["skipped"] * 16
    summary = json.loads(db.execute("SELECT summary FROM runs").fetchone()[0])
    assert {k: (v["items"], v["mean"], v["skipped"])
            for k, v in summary["evaluators"].items()} == {
        "numeric": (4, 0.75, 4), "exact": (3, 2 / 3, 5), "names-author": (1, 1.0, 7)}
