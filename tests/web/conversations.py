"""A store with one run of conversations for the conversation views (issue 26): played by
`assay.evaluate` against a Python agent — c1 done (its second user turn a <script> tag), c2
stopped at the turn limit (max_turns), c3 aborted by the agent's failure — one plain question
(q1), and s1 rewritten as a
simulated user's conversation (turns rows written as the runner writes them, through
store/conversations.py's user_row / assistant_row, with the simulator's calls, the truth captured
at a turn and a failed tool call). The target, judges and simulated users are priced, and every
sample has a `finance-cause` result (that evaluator's rows, written directly)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from assay.core.conversation import Outcome
from assay.core.model_call import ModelCall, Usage
from assay.core.types import Answer, Score, ScoreStatus, TruthSnapshot

HOSTILE = "<script>window.__pwned = 2</script>还有别的吗"
SIM_FIRST = "我想查一下贵州茅台的最新价"
SIM_SECOND = "那昨收呢？"
SIM_LAST = "好的，谢谢"
SIM_MODEL = "sim-qwen"
SIM_COSTS = (0.00042, 0.00038, 0.0002)
TARGET_COST = 0.003
JUDGE_COST = 0.0005
TARGET = "agent"  # assay.evaluate names a Python target after its function
CAUSES = {"c1": "right", "c2": "right", "c3": "no_retrieval", "s1": "stale_data",
          "q1": "misread"}


@dataclass
class Conversations:
    url: str
    run_id: str
    path: Path


def agent(item: dict[str, Any]) -> Any:
    """Echoes the user's last message with a quote tool call; "boom" fails the turn."""
    messages = item.get("messages") or [{"role": "user", "content": item.get("prompt", "")}]
    last = str(messages[-1]["content"])
    if "boom" in last:
        raise RuntimeError("the agent fell over")
    out: dict[str, Any] = {
        "text": f"turn {item.get('turn')}: you said {last}",
        "tool_calls": [{"name": "quote", "arguments": {"symbol": "600519"},
                        "result": {"last": 1455.0}}]}
    return out


ROWS = [
    {"id": "c1", "turns": [{"input": "hello", "reference_output": "hello"},
                           {"input": HOSTILE, "reference_output": "nope"}]},
    # one more turn than the default limit (conversation.max_turns: 10)
    {"id": "c2", "turns": [f"question {n}" for n in range(1, 12)], "reference_output": "turn"},
    {"id": "c3", "turns": ["boom"], "reference_output": "turn"},
    {"id": "s1", "turns": ["placeholder"], "reference_output": "turn"},
    {"id": "q1", "prompt": "single question", "reference_output": "single"},
]


def _simulated(run_id: str) -> dict[str, list[dict[str, Any]]]:
    """s1's rows as a simulated user's conversation would leave them: three user messages by
    the simulator (the last one stops), two answers, per-turn scores, the sample's answer
    (outcome done) and its conversation score."""
    from assay.store.conversations import assistant_row, turn_result_row, user_row
    from assay.store.rows import answer_row, result_row

    key = ("s1", TARGET, 0)
    t0 = datetime(2026, 11, 20, 9, 30, tzinfo=UTC).timestamp()

    def sim(n: int, cost: float) -> ModelCall:
        return ModelCall(SIM_MODEL, usage=Usage(100 + n, 20 + n, 120 + 2 * n), cost=cost)

    truth = TruthSnapshot("akshare", "600519", "stock_zh_a_spot_em()",
                          datetime(2026, 11, 20, 9, 29, 58, tzinfo=UTC), "ok",
                          {"last": 1455.0, "prev_close": 1484.91}, {}, None, None, "SH",
                          {"最新价": 1455.0, "昨收": 1484.91})
    first = Answer("turn 1: 贵州茅台最新价1455.00元",
                   {"tool_calls": [{"name": "quote", "arguments": {"symbol": "600519"},
                                    "result": {"last": 1455.0}}]}, 0.8)
    second = Answer("turn 2: 昨收1484.91元",
                    {"tool_calls": [{"name": "quote", "arguments": "600519 prev",
                                     "error": "quote service timed out"}]}, 1.2,
                    call=ModelCall("target-model", usage=Usage(300, 40, 340),
                                   cost=TARGET_COST))
    stamp = datetime(2026, 11, 20, 9, 31, tzinfo=UTC)
    turn_scores = [
        (1, Score(1.0, ScoreStatus.SCORED, "the answer contains 'turn'", "contains", "v1")),
        (2, Score(0.0, ScoreStatus.SCORED, "stale: the close, not the last price",
                  "contains", "v1"))]
    conversation = {"outcome": "done", "reason": "the simulated user stopped", "turns": 2,
                    "evaluate": "each_turn", "score": "min", "simulated": True}
    final = Answer(second.text, {"conversation": conversation}, 2.0, call=second.call)
    combined = Score(0.0, ScoreStatus.SCORED, "min of 2 judged turns (1, 0); done",
                     "contains", "v1",
                     evidence={"outcome": "done", "combine": "min", "evaluate": "each_turn",
                               "turns": [{"turn": 1, "status": "scored", "score": 1.0},
                                         {"turn": 2, "status": "scored", "score": 0.0}]})
    return {
        "turns": [
            user_row(run_id, key, 1, SIM_FIRST, "simulator", sim(1, SIM_COSTS[0]), None,
                     t0, t0 + 1),
            assistant_row(run_id, key, 1, first, truth, None, t0 + 1, t0 + 2),
            user_row(run_id, key, 2, SIM_SECOND, "simulator", sim(2, SIM_COSTS[1]), None,
                     t0 + 3, t0 + 4),
            assistant_row(run_id, key, 2, second, None, None, t0 + 4, t0 + 5),
            user_row(run_id, key, 3, SIM_LAST, "simulator", sim(3, SIM_COSTS[2]),
                     Outcome.DONE, t0 + 6, t0 + 7)],
        "turn_results": [turn_result_row(run_id, key, n, s, stamp) for n, s in turn_scores],
        "answers": [{**answer_row(run_id, key, final, t0, t0 + 7), "outcome": "done"}],
        "results": [result_row(run_id, key, combined, stamp)]}


def make_conversations(tmp: Path) -> Conversations:
    import assay
    from assay.store import repo
    from assay.store.db import open_engine

    db = tmp / "conv.db"
    url = f"sqlite:///{db}"
    run = assay.evaluate(ROWS, agent, evaluators=["contains"], db=url)
    # s1 as a simulated user's conversation: its scripted rows out, the simulator's in
    with sqlite3.connect(db) as conn:
        for table in ("turns", "turn_results", "answers", "results", "spans"):
            conn.execute(f"DELETE FROM {table} WHERE run_id = ? AND item_id = 's1'",
                         (run.id,))
    engine = open_engine(url)
    rows = _simulated(run.id)
    now = datetime(2026, 11, 20, 9, 32, tzinfo=UTC)
    rows["results"] += [
        {"run_id": run.id, "item_id": item, "target": TARGET, "epoch": 0,
         "evaluator": "finance-cause", "evaluator_version": "v1",
         "score": 1.0 if cause == "right" else 0.0, "status": "scored",
         "reason": f"cause: {cause}", "created_at": now + timedelta(seconds=i),
         "evidence": {"cause": cause}, "cost": JUDGE_COST}
        for i, (item, cause) in enumerate(sorted(CAUSES.items()))]
    repo.write_rows(engine, rows)
    return Conversations(url, run.id, db)
