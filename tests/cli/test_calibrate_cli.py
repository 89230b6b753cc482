"""`assay calibrate` end to end: a run where finance-rubric and an LLM judge (a real judge
template called through the local OpenAI-compatible server, with scripted replies) scored the
same items; the rates it reports equal the ones computed here by hand."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import pytest

from tests.invoke import assay_in_process
from tests.openai_server import OpenAIServer

JUDGE = "finsearch-t1-judge@judge"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`assay ARGS` in this process, in `cwd`, with this environment but for ASSAY_DB and
    ASSAY_MODELS."""
    return assay_in_process(*args, cwd=cwd)


def scripted_judge(messages: list[dict[str, str]]) -> str:
    """Right about the price, except: 甲 in the answer → accepts anyway, 乙 → rejects anyway,
    GARBLED → a reply with no score."""
    user = messages[-1]["content"]
    answer = user.rsplit("学生回复", 1)[-1]
    if "GARBLED" in answer:
        return "I cannot tell."
    if "甲" in answer:
        return '数字在允许范围内。\n{"score": 1}'
    if "乙" in answer:
        return '数字不一致。\n{"score": 0}'
    return '一致。\n{"score": 1}' if "1455" in answer else '不一致。\n{"score": 0}'


# (answer, ground truth): the rubric's decision follows from the price; the judge's from above
ANSWERS = (
    [("最新价1455元", "1455.0")] * 4  # rules 1, judge 1
    + [("最新价1455元（乙）", "1455.0")]  # rules 1, judge 0: a false reject
    + [("最新价1400元", "1455.0")] * 3  # rules 0, judge 0
    + [("最新价1400元（甲）", "1455.0")] * 2  # rules 0, judge 1: false accepts
    + [("最新价1455元 GARBLED", "1455.0")]  # rules 1, judge unscored: not compared
    + [("最新价1455元", "-")]  # rules null (no number in the truth), judge 1: undecided
)


def wilson(k: int, n: int) -> tuple[float, float]:
    z = 1.959963984540054
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


@pytest.fixture()
def scored(tmp_path: Path, openai_server: OpenAIServer) -> tuple[Path, str]:
    openai_server.default = scripted_judge
    r = run("models", "add", "judge", "--base-url", openai_server.base_url, "--model", "j-1",
            cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = [{"prompt_id": f"q{i:02d}", "prompt": f"贵州茅台最新股价（第{i}问）",
             "response_reference": "必答点：最新股价\n精度要求：仅允许四舍五入误差",
             "ground_truth": json.dumps({"最新价": truth}), "response": answer}
            for i, (answer, truth) in enumerate(ANSWERS)]
    (tmp_path / "items.json").write_text(json.dumps(rows, ensure_ascii=False), "utf-8")
    r = run("score", "items.json", "-e", "finance-rubric", "-e", JUDGE, "--out", "o.jsonl",
            cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    recs = [json.loads(x) for x in (tmp_path / "o.jsonl").read_text("utf-8").splitlines()]
    rubric = {x["item_id"]: x["score"] for x in recs if x["evaluator"] == "finance-rubric"}
    judge = {x["item_id"]: x["score"] for x in recs if x["evaluator"] == JUDGE}
    # the stored run is what the scripts say it is
    assert [rubric[f"q{i:02d}"] for i in range(12)] == [1] * 5 + [0] * 5 + [1, None]
    assert [judge[f"q{i:02d}"] for i in range(12)] == [1] * 4 + [0] * 4 + [1, 1, None, 1]
    return tmp_path, r.stdout.split("run ")[-1].split()[0]


def test_calibrate_reports_the_rates_computed_by_hand(scored: tuple[Path, str]) -> None:
    cwd, run_id = scored
    r = run("calibrate", run_id, "--judge", JUDGE, "--json", cwd=cwd)
    assert r.returncode == 0, r.stderr
    cal = json.loads(r.stdout)
    # by hand: 10 compared; rules 1 on 5 (judge 0 on one), rules 0 on 5 (judge 1 on two)
    assert cal["counts"] == {"both_pass": 4, "both_fail": 3, "false_accept": 2,
                             "false_reject": 1}
    assert (cal["rubric_decided"], cal["compared"], cal["judge_missing"]) == (11, 10, 1)
    assert cal["accuracy"]["rate"] == 7 / 10
    assert cal["false_accept_rate"]["rate"] == 2 / 5
    assert cal["false_reject_rate"]["rate"] == 1 / 5
    assert cal["accuracy"]["ci95"] == pytest.approx(list(wilson(7, 10)))
    assert cal["false_accept_rate"]["ci95"] == pytest.approx(list(wilson(2, 5)))
    assert cal["false_reject_rate"]["ci95"] == pytest.approx(list(wilson(1, 5)))
    # κ = (0.7 − 0.5) / (1 − 0.5): rules 5 ones of 10, judge 6 ones of 10
    assert cal["kappa"] == pytest.approx(0.4)
    assert cal["undecided"]["judged"] == 1 and cal["undecided"]["judge_pass_rate"] == 1.0
    diffs = {d["item_id"]: d for d in cal["differences"]}
    assert sorted(diffs) == ["q04", "q08", "q09"]
    assert diffs["q04"]["kind"] == "false reject" and diffs["q08"]["kind"] == "false accept"
    assert diffs["q08"]["judge_reply"] == '数字在允许范围内。\n{"score": 1}'
    assert "1400" in diffs["q08"]["rules_reason"]


def test_calibrate_table(scored: tuple[Path, str]) -> None:
    cwd, run_id = scored
    r = run("calibrate", run_id, "--judge", JUDGE, "--show", "2", cwd=cwd)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "10 item(s) compared of 11 the rubric decided (1 without a judge score)" in out
    lo, hi = wilson(2, 5)
    assert f"0.400  [{lo:.3f}, {hi:.3f}]  (2/5)" in out
    assert "Cohen's κ" in out and "0.400" in out
    assert "3 item(s) where the judge and the rules differ" in out
    assert "q04  false reject: rules 1, judge 0" in out
    assert '  judge: 数字不一致。 {"score": 0}' in out  # the judge's own words
    assert "… 1 more (--show N)" in out


def test_calibrate_errors_are_one_line(scored: tuple[Path, str], tmp_path: Path) -> None:
    cwd, run_id = scored
    r = run("calibrate", "nope", "--judge", JUDGE, cwd=cwd)
    assert (r.returncode, r.stderr.strip()) == (
        2, "error: no run 'nope' in the store .assay/assay.db (see assay runs; another store "
        "is chosen with --db or ASSAY_DB)")
    r = run("calibrate", run_id, "--judge", "item-judge@judge", cwd=cwd)
    assert r.returncode == 2
    assert r.stderr.strip() == (f"error: run {run_id} has no evaluator 'item-judge@judge' (the "
                                f"judge); it has finance-rubric, {JUDGE}")
    r = run("calibrate", run_id, "--judge", JUDGE, "--rubric", "finance-hybrid@judge", cwd=cwd)
    assert r.returncode == 2 and "no evaluator 'finance-hybrid@judge' (the rubric)" in r.stderr
    # a run where the two never overlap on a decided item
    rows = [{"prompt_id": "only", "prompt": "q", "response_reference": "必答点：最新股价\n"
             "精度要求：仅允许四舍五入误差", "ground_truth": '{"最新价": "1455.0"}',
             "response": "GARBLED 1455"}]
    (cwd / "one.json").write_text(json.dumps(rows, ensure_ascii=False), "utf-8")
    r = run("score", "one.json", "-e", "finance-rubric", "-e", JUDGE, cwd=cwd)
    assert r.returncode == 0, r.stderr
    other = r.stdout.split("run ")[-1].split()[0]
    r = run("calibrate", other, "--judge", JUDGE, cwd=cwd)
    assert r.returncode == 2
    assert r.stderr.strip() == (f"error: run {other}: no item that finance-rubric decided (0 "
                                f"or 1) was also scored 0 or 1 by {JUDGE} (1 decided by the "
                                "rubric, 1 of them without a judge score)")
    assert "Traceback" not in r.stderr
