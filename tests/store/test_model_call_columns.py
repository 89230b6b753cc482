"""Migration 0010: a model call's cost and tokens in columns of their own, backfilled from the
JSON older versions kept them in, so a store in use keeps its costs — the cost sheet is the
same before and after the upgrade — and its old rows read as typed calls. The same checks run
on a real PostgreSQL server (tests/store/test_postgres.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay.core.costs import EvaluatorCost, cost_sheet
from assay.core.model_call import ModelCall, Usage
from assay.core.types import Answer, Score, ScoreStatus
from assay.store import repo
from assay.store.db import Engine

STAMP = "2026-01-01 00:00:00+00:00"
JUDGE = {"name": "judge", "base_url": "http://127.0.0.1:1/v1", "model": "judge-1",
         "api_key_env": "JUDGE_KEY", "price_in_per_mtok": 2.0, "price_out_per_mtok": 8.0}


def _judged(reply: str, prompt: int, completion: int, cost: float) -> dict[str, Any]:
    """A judge's evidence as versions before ModelCall wrote it."""
    return {"template": "t", "template_version": "v", "model": JUDGE,
            "messages": [{"role": "user", "content": "judge this"}], "reply": reply,
            "finish_reason": "stop", "usage": {"prompt_tokens": prompt,
                                               "completion_tokens": completion,
                                               "total_tokens": prompt + completion},
            "latency_s": 0.5, "attempts": [{"outcome": "ok", "start": 1.0, "end": 1.5}],
            "cached": False, "cache_key": "k", "cost": cost,
            "parsed": {"how": "json", "score": 1, "full_score": [0, 1]},
            "full_score": [0, 1]}


ANSWERS = [  # (run, item, target, text, usage, extras)
    ("r1", "q1", "fake", "1455", {"prompt_tokens": 30, "completion_tokens": 5,
                                  "total_tokens": 35},
     {"messages": [{"role": "user", "content": "q1?"}], "model": "fake",
      "request_model": "fake-1", "provider": "openai", "finish_reason": "stop",
      "attempts": [{"outcome": "ok", "start": 1.0, "end": 2.0}], "cost": 0.25}),
    ("r1", "q2", "fake", "1400", {"prompt_tokens": 10, "completion_tokens": 2},
     {"model": "fake", "request_model": "fake-1", "attempts": [], "cost": 0.5}),
    ("r1", "q1", "agent", "1455", {"total_tokens": 12}, {"tool_calls": []}),  # reported
    ("r1", "q2", "agent", "1455", {}, {}),
    # values no older version wrote, which must not stop the upgrade: read as unknown
    ("r2", "q1", "fake", "x", {"prompt_tokens": -3, "completion_tokens": 2.5,
                               "total_tokens": "12"}, {"cost": "0.1"}),
    ("r2", "q2", "fake", "x", {"prompt_tokens": 2**31 - 1, "completion_tokens": 5}, None),
    ("r2", "q3", "fake", "x", None, None),
]
RESULTS = [  # (run, item, target, evaluator, score, evidence)
    ("r1", "q1", "fake", "rubric", 1.0, {"values": [], "full_score": [0, 1]}),
    ("r1", "q2", "fake", "rubric", 0.0, {"values": []}),
    ("r1", "q1", "fake", "judge@judge", 1.0, _judged('{"score": 1}', 100, 10, 0.00028)),
    ("r1", "q2", "fake", "judge@judge", 0.0, _judged('{"score": 0}', 50, 20, 0.00026)),
    ("r1", "q1", "agent", "judge@judge", 1.0, {**_judged("cached", 100, 10, 0.0),
                                               "cached": True}),
    ("r1", "q1", "agent", "hybrid@judge", 1.0, {
        "values": [], "cost": 0.001, "extraction": {
            **{k: v for k, v in _judged('{"values": []}', 40, 4, 0.001).items()
               if k not in ("template", "template_version", "parsed", "full_score")},
            "read": []}}),
    ("r2", "q1", "fake", "judge@judge", None, {"cost": [1], "usage": {"prompt_tokens": 2**40},
                                               "extraction": "odd"}),
    ("r2", "q2", "fake", "judge@judge", None, None),
]


def old_store(url: str) -> Engine:
    """A store as version 0009 left it, holding rows in the shapes older versions wrote;
    returned by a plain engine (nothing migrated further)."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine, insert

    from assay.store.db import MIGRATIONS
    from assay.store.schema import answers, datasets, results, runs

    engine = create_engine(url)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0009")
    with engine.begin() as conn:
        conn.execute(insert(datasets), [{"id": "d1", "name": "d", "path": "d.json",
                                         "format": "json", "n_items": 2,
                                         "created_at": repo.now()}])
        conn.execute(insert(runs), [{"id": r, "kind": "run", "status": "finished",
                                     "dataset_id": "d1", "created_at": repo.now(),
                                     "manifest": {}} for r in ("r1", "r2")])
        conn.execute(insert(answers), [
            {"run_id": r, "item_id": i, "target": t, "epoch": 0, "text": text, "usage": u,
             "extras": x, "latency_s": 1.0} for r, i, t, text, u, x in ANSWERS])
        conn.execute(insert(results), [
            {"run_id": r, "item_id": i, "target": t, "epoch": 0, "evaluator": e,
             "evaluator_version": "v", "score": s, "status": "scored" if s is not None
             else "error", "reason": f"{e} on {i}", "evidence": ev,
             "created_at": repo.now()} for r, i, t, e, s, ev in RESULTS])
    return engine


def cost_sheet_by_json(engine: Engine, run_id: str) -> dict[str, Any]:
    """The cost sheet as versions before 0010 read it: sums of `extras.cost` and
    `evidence.cost` by JSON path (store/costs.py then)."""
    from sqlalchemy import case, func, select

    from assay.store.schema import answers, results

    a_cost = answers.c.extras["cost"].as_float()
    r_cost = results.c.evidence["cost"].as_float()
    scored = results.c.status == "scored"
    correct = func.sum(case(((scored & (results.c.score == 1.0)), 1), else_=0))
    odd = func.sum(case(((scored & results.c.score.not_in([0.0, 1.0])), 1), else_=0))
    with engine.connect() as conn:
        targets = {t: (float(s) if n else None) for t, s, n in conn.execute(
            select(answers.c.target, func.sum(a_cost), func.count(a_cost))
            .where(answers.c.run_id == run_id).group_by(answers.c.target))}
        rows = [EvaluatorCost(t, e, float(s) if n else None, int(c or 0), not o)
                for t, e, s, n, c, o in conn.execute(
                    select(results.c.target, results.c.evaluator, func.sum(r_cost),
                           func.count(r_cost), correct, odd)
                    .where(results.c.run_id == run_id)
                    .group_by(results.c.target, results.c.evaluator)
                    .order_by(func.min(results.c.id)))]
    return cost_sheet(targets, rows).as_dict()


def check_upgrade(url: str) -> None:
    """Upgrade an old store at `url` and check what it kept: the same cost sheet, the new
    columns filled from the old JSON (and NULL where that held no number), old rows read as
    typed calls by every reader."""
    from sqlalchemy import text

    from assay.report.calibration import load_calibration
    from assay.report.export import rows as export_rows
    from assay.store.costs import run_cost_sheet
    from assay.store.db import HEAD, current_revision, open_engine
    from assay.store.results import reasons
    from assay.store.rows import answer_call, answer_from_row, result_call

    before = cost_sheet_by_json(old_store(url), "r1")
    assert before["total"] == pytest.approx(0.25 + 0.5 + 0.00028 + 0.00026 + 0.001)
    engine = open_engine(url)
    assert current_revision(engine) == HEAD
    assert run_cost_sheet(engine, "r1").as_dict() == before  # rounded to 8 digits

    with engine.connect() as conn:
        got = {(r, i, t): tuple(v) for r, i, t, *v in conn.execute(text(
            "SELECT run_id, item_id, target, cost, prompt_tokens, completion_tokens, "
            "total_tokens, call FROM answers"))}
    assert got == {("r1", "q1", "fake"): (0.25, 30, 5, 35, None),
                   ("r1", "q2", "fake"): (0.5, 10, 2, 12, None),  # total: in + out
                   ("r1", "q1", "agent"): (None, None, None, 12, None),
                   ("r1", "q2", "agent"): (None, None, None, None, None),
                   ("r2", "q1", "fake"): (None, None, None, None, None),
                   # each count fits, their sum would not: no total
                   ("r2", "q2", "fake"): (None, 2**31 - 1, 5, None, None),
                   ("r2", "q3", "fake"): (None, None, None, None, None)}
    with engine.connect() as conn:
        got = {(r, i, t, e): tuple(v) for r, i, t, e, *v in conn.execute(text(
            "SELECT run_id, item_id, target, evaluator, cost, prompt_tokens, "
            "completion_tokens, total_tokens FROM results"))}
    assert got == {("r1", "q1", "fake", "rubric"): (None, None, None, None),
                   ("r1", "q2", "fake", "rubric"): (None, None, None, None),
                   ("r1", "q1", "fake", "judge@judge"): (0.00028, 100, 10, 110),
                   ("r1", "q2", "fake", "judge@judge"): (0.00026, 50, 20, 70),
                   ("r1", "q1", "agent", "judge@judge"): (0.0, 100, 10, 110),
                   ("r1", "q1", "agent", "hybrid@judge"): (0.001, 40, 4, 44),
                   ("r2", "q1", "fake", "judge@judge"): (None, None, None, None),
                   ("r2", "q2", "fake", "judge@judge"): (None, None, None, None)}

    # old rows read as typed calls, by the store's readers and the reports'
    stored = {(a["item_id"], a["target"]): a for a in repo.list_answers(engine, "r1")}
    target = answer_call(stored["q1", "fake"])
    assert target is not None and (target.model, target.name, target.reply) == (
        "fake-1", "fake", "1455")
    assert target.usage == Usage(30, 5, 35) and target.cost == 0.25
    assert answer_from_row(stored["q1", "agent"]).usage == Usage(total_tokens=12)
    assert answer_call(stored["q2", "agent"]) is None
    judged = {(r["item_id"], r["target"], r["evaluator"]): result_call(r)
              for r in repo.list_results(engine, "r1")}
    judge = judged["q1", "fake", "judge@judge"]
    assert judge is not None and (judge.model, judge.reply, judge.cost) == (
        "judge-1", '{"score": 1}', 0.00028)
    hybrid = judged["q1", "agent", "hybrid@judge"]
    assert hybrid is not None and hybrid.reply == '{"values": []}'
    assert judged["q1", "fake", "rubric"] is None
    said = {(r["item_id"], r["target"], r["evaluator"]): r["reply"]
            for r in reasons(engine, "r1", ["q1"], ["judge@judge", "rubric"])}
    assert said[("q1", "fake", "judge@judge")] == '{"score": 1}'
    assert said[("q1", "fake", "rubric")] is None
    exported = {(r["item_id"], r["target"], r["evaluator"]): r
                for r in export_rows(engine, "r1")}
    row = exported["q1", "fake", "judge@judge"]
    assert (row["judge_reply"], row["tokens"], row["judge_tokens"]) == ('{"score": 1}', 35, 110)
    assert row["judge_cost"] == 0.00028
    cal = load_calibration(engine, "r1", "judge@judge", "rubric")
    assert (cal.both_pass, cal.both_fail) == (1, 1)

    # a new row beside the old ones: its call in its column, summed with theirs
    call = ModelCall("judge-1", "openai", reply='{"score": 1}', usage=Usage(10, 1),
                     cost=0.001, name="judge")
    from assay.store.rows import answer_row, result_row

    repo.write_rows(engine, {
        "answers": [answer_row("r1", ("q3", "fake", 0), Answer("1455", call=call), 1.0, 2.0)],
        "results": [result_row("r1", ("q3", "fake", 0), Score(
            1.0, ScoreStatus.SCORED, "ok", "judge@judge", "v", call=call), repo.now())]})
    sheet = run_cost_sheet(engine, "r1")
    assert sheet.total == pytest.approx(before["total"] + 0.002)
    assert sheet.targets["fake"] == pytest.approx(0.75 + 0.001)


def test_an_old_sqlite_store_keeps_its_costs_and_reads_its_calls(tmp_path: Path) -> None:
    check_upgrade(f"sqlite:///{tmp_path / 'old.db'}")


def test_a_call_round_trips_through_the_store(db_url: str) -> None:
    """An answer's and a score's call as written and read back: the same typed call (the
    answer's reply is its text, kept once)."""
    from assay.store.db import open_engine
    from assay.store.rows import answer_from_row, answer_row, result_call, result_row

    engine = open_engine(db_url)
    repo.save_dataset(engine, version="d1", name="d", path="d.json", fmt="json", rows=[])
    repo.create_run(engine, run_id="r1", kind="run", dataset_id="d1", manifest={})
    call = ModelCall("fake-1", "openai", ({"role": "user", "content": "q"},), "1455", "stop",
                     Usage(3, 2, 5), latency_s=0.5, cost=0.01, name="fake")
    answer = Answer("1455", {"empty_reply": False}, 0.5, call=call)
    score = Score(1.0, ScoreStatus.SCORED, "ok", "judge@m", "v",
                  call=ModelCall("judge-1", reply="ok", usage=Usage(7, 1), cost=0.002))
    a_row = answer_row("r1", ("q1", "fake", 0), answer, 1.0, 2.0)
    assert "1455" not in str(a_row["call"])  # the reply is the text: kept once
    repo.write_rows(engine, {"answers": [a_row],
                             "results": [result_row("r1", ("q1", "fake", 0), score,
                                                    repo.now())]})
    (stored,) = repo.list_answers(engine, "r1")
    assert answer_from_row(stored) == answer
    assert (stored["cost"], stored["prompt_tokens"], stored["completion_tokens"],
            stored["total_tokens"]) == (0.01, 3, 2, 5)
    (result,) = repo.list_results(engine, "r1")
    assert result_call(result) == score.call and result["cost"] == 0.002
    assert "reply" not in result["evidence"]
