"""A richer store for the views of issue 28: the two sample runs of conftest.py, a third run, an
LLM judge's results (prose first, a bare {"score": …} last, as FinSearchComp's template asks)
on a few items of run B, spans and a live ground-truth snapshot taken long before the answer."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from assay.store import repo
from assay.store.db import open_engine
from tests.web.conftest import Store, _score

JUDGE = "finsearch-t1-judge@m"
RIGHT = "(T1)Assay_Sample_S01_right"
STALE = "(T1)Assay_Sample_S01_stale"
PROSE = "分析：学生回答的最新价1455.00元与真实值1455.0一致，符合四舍五入要求。"
REPLY = PROSE + "\n最终分数：{\"score\":1}"
AGREE = "分析：学生给出的1484.91是昨收价，不是最新价，不符合要求。"


@dataclass
class Rich:
    url: str
    run_a: str
    run_b: str
    run_c: str


def judge_row(run: str, item: str, score: float, reply: str) -> dict[str, object]:
    return {"run_id": run, "item_id": item, "target": "recorded", "epoch": 0,
            "evaluator": JUDGE, "evaluator_version": "v1", "score": score, "status": "scored",
            "reason": "last JSON object", "created_at": datetime.now(UTC),
            "evidence": {"template": "finsearch-t1-judge", "reply": reply,
                         "messages": [{"role": "user", "content": "贵州茅台最新股价"}],
                         "parsed": {"how": "last JSON object", "score": score}}}


def make_rich(two_runs: Store, dest: Path) -> Rich:
    with sqlite3.connect(two_runs.path / "ui.db") as src, sqlite3.connect(dest) as dst:
        src.backup(dst)
    url = f"sqlite:///{dest}"
    rows = json.loads((Path(__file__).parents[2] / "examples" /
                       "finsearch_t1_sample.json").read_text("utf-8"))
    # run C: every answer empty except the first ten recorded ones
    (dest.parent / "c.jsonl").write_text("".join(
        json.dumps({"item_id": r["prompt_id"], "answer": r["response"] if i < 10 else "不知道"},
                   ensure_ascii=False) + "\n" for i, r in enumerate(rows)), "utf-8")
    run_c = _score(url, dest.parent / "c.jsonl")
    engine = open_engine(url)
    b = two_runs.run_b
    answered = datetime(2026, 11, 20, 9, 30, tzinfo=UTC)
    t0 = answered - timedelta(seconds=3)
    span = {"trace_id": "t" * 32, "run_id": b, "item_id": RIGHT, "status": "ok"}
    repo.write_rows(engine, {
        "results": [judge_row(b, RIGHT, 1.0, REPLY),
                    judge_row(b, STALE, 0.0, "学生答1484.91，是昨收价。\n最终分数：{\"score\":0}"),
                    judge_row(b, "(T1)Assay_Sample_S02_right", 1.0, AGREE + '{"score":1}')],
        "truth_snapshots": [{
            "run_id": b, "item_id": RIGHT, "target": "recorded", "epoch": 0, "mode": "live",
            "provider": "akshare", "instrument": "600519", "market": "SH",
            "query": "stock_zh_a_spot_em()", "fetched_at": answered - timedelta(days=410),
            "answered_at": answered, "gap_s": -410 * 86400.0, "status": "ok",
            "fields": {"last": "1455.0"}, "payload": {"最新价": "1455.0"}}],
        "spans": [
            {**span, "span_id": "s1", "parent_id": None, "kind": "sample", "name": RIGHT,
             "start_at": t0, "end_at": t0 + timedelta(milliseconds=2400), "attributes": {}},
            {**span, "span_id": "s2", "parent_id": "s1", "kind": "target", "name": "recorded",
             "start_at": t0 + timedelta(milliseconds=100),
             "end_at": t0 + timedelta(milliseconds=1900), "attributes": {}},
            {**span, "span_id": "s3", "parent_id": "s2", "kind": "tool", "name": "quote",
             "start_at": t0 + timedelta(milliseconds=300),
             "end_at": t0 + timedelta(milliseconds=900),
             "attributes": {"input.value": "600519", "output.value": "1455.0"}},
            {**span, "span_id": "s4", "parent_id": "s1", "kind": "evaluator", "name": JUDGE,
             "start_at": t0 + timedelta(milliseconds=1900),
             "end_at": t0 + timedelta(milliseconds=2400), "attributes": {}}]})
    return Rich(url, two_runs.run_a, b, run_c)


def add_online_run(url: str, dataset_id: str, run_id: str = "online-demo") -> str:
    """An online run (kind online, as `assay watch` writes one) whose finance-rubric and judge
    results fall in the last six minutes, with means that move."""
    engine = open_engine(url)
    repo.create_run(engine, run_id=run_id, kind="online", dataset_id=dataset_id,
                    manifest={"name": "prod-agent", "source": {"otlp": "127.0.0.1:4318"},
                              "sample": 0.2, "seed": 0,
                              "evaluators": [{"name": "finance-rubric"}, {"name": JUDGE}]})
    now = datetime.now(UTC).replace(second=30, microsecond=0)
    rows = []
    for minute, (ones, n) in enumerate([(3, 4), (2, 4), (4, 4), (1, 4), (3, 4), (4, 4)]):
        at = now - timedelta(minutes=5 - minute)
        for k in range(n):
            for name, score in (("finance-rubric", 1.0 if k < ones else 0.0),
                                (JUDGE, 1.0 if k < max(ones, 2) else 0.0)):
                rows.append({"run_id": run_id, "item_id": f"t{minute}-{k}", "target": "agent",
                             "epoch": 0, "evaluator": name, "evaluator_version": "v1",
                             "score": score, "status": "scored", "reason": "",
                             "created_at": at, "evidence": {}})
    repo.write_rows(engine, {"results": rows})
    repo.finish_run(engine, run_id, "finished", {"online": {"traces": 24, "evaluated": 24}})
    return run_id
