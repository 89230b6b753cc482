"""The conversation examples run as documented: the scripted finance set offline (the reference
agent on recorded tables, truth captured per turn), the e-commerce set judged per turn with the
e-commerce template (its judge on the local OpenAI-compatible server), and the simulated user
against that server."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import yaml

from tests.cli.test_run_cli import run, run_id_of
from tests.conftest import ROOT
from tests.openai_server import OpenAIServer

SPECS = ROOT / "examples" / "specs"


def query(project: Path, sql: str, *args: object) -> list[tuple[object, ...]]:
    with sqlite3.connect(project / ".assay" / "assay.db") as db:
        return db.execute(sql, args).fetchall()


def test_finance_conversations_run_offline_judged_per_turn_against_live_truth(
        tmp_path: Path) -> None:
    r = run("run", str(SPECS / "conversation-finance.yaml"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rid = run_id_of(r.stdout)
    per_turn = query(tmp_path, "SELECT item_id, turn, evaluator, score FROM turn_results "
                     "WHERE run_id = ? ORDER BY item_id, turn, evaluator", rid)
    assert len(per_turn) == 4 * 3 * 2 and all(score == 1.0 for *_, score in per_turn)
    # each turn's truth was captured at its own answer's time, for the turn's own instrument
    truths = query(tmp_path, "SELECT item_id, turn, json_extract(truth, '$.instrument'), "
                   "json_extract(extras, '$.tool_calls[0].arguments.symbol') FROM turns WHERE "
                   "run_id = ? AND role = 'assistant' AND item_id = 'conv-hk' ORDER BY turn",
                   rid)
    assert truths == [("conv-hk", 1, "00700", "00700"), ("conv-hk", 2, "09988", "09988"),
                      ("conv-hk", 3, "03690", "03690")]
    assert query(tmp_path, "SELECT DISTINCT outcome FROM answers WHERE run_id = ?", rid) == [
        ("done",)]


def judge_reply(messages: list[dict[str, str]]) -> str:
    """The judge: 1 for the boots' wrong size advice, 4 otherwise."""
    output = messages[-1]["content"].split("\noutput: ", 1)[1].split("\nchunk: ", 1)[0]
    score = 1 if "fits true to size" in output else 4
    return json.dumps({"Score": score, "Reason": "per the product description",
                       "FullScore": 4})


def test_ecommerce_conversations_judged_per_turn_with_the_history(
        tmp_path: Path, openai_server: OpenAIServer) -> None:
    openai_server.default = judge_reply
    (tmp_path / "assay-models.yaml").write_text(yaml.safe_dump({"models": {"judge": {
        "base_url": openai_server.base_url, "model": "judge-x"}}}), "utf-8")
    r = run("run", str(SPECS / "conversation-ecommerce.yaml"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rid = run_id_of(r.stdout)
    assert query(tmp_path, "SELECT item_id, score FROM results WHERE run_id = ? ORDER BY "
                 "item_id", rid) == [("shop-boots", 3.0), ("shop-down-jacket", 4.0)]
    # the third turn's judge saw the two turns before it, the product description and the turn
    third = [m["messages"][-1]["content"] for m in openai_server.requests
             if "How do I dry them" in m["messages"][-1]["content"]]
    assert len(third) == 1
    assert "user: Are these boots waterproof?" in third[0]
    assert "assistant: Order a 42, it fits true to size." in third[0]
    assert "runs half a size small" in third[0]


def test_simulated_user_example_against_a_local_server(
        tmp_path: Path, openai_server: OpenAIServer) -> None:
    def reply(messages: list[dict[str, str]]) -> str:
        if messages[0]["content"].startswith("You are playing a user"):
            seen = sum(1 for m in messages[2:] if m["role"] == "user")
            return ["Is a CSI 300 ETF OK for five years?", "What does it cost to hold?",
                    "###STOP###"][min(seen, 2)]
        return "A broad index ETF spreads risk; fees are about 0.5% a year."

    openai_server.default = reply
    models = yaml.safe_load((ROOT / "examples" / "conversations" / "assay-models.yaml")
                            .read_text("utf-8"))
    for entry in models["models"].values():
        entry["base_url"] = openai_server.base_url
    (tmp_path / "m.yaml").write_text(yaml.safe_dump(models), "utf-8")
    r = run("run", str(SPECS / "conversation-simulated.yaml"), "--models", "m.yaml",
            cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rid = run_id_of(r.stdout)
    assert query(tmp_path, "SELECT item_id, outcome FROM answers WHERE run_id = ? ORDER BY "
                 "item_id", rid) == [("sim-etf", "done"), ("sim-fx", "done")]
    assert query(tmp_path, "SELECT count(*) FROM turns WHERE run_id = ? AND source = "
                 "'simulator'", rid) == [(6,)]
