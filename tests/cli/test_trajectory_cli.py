"""The trajectory checks on each source of tool calls, as a user runs them: recorded answers
whose dataset keeps their calls (`assay score -e tool-used --arg tool=quote`), a Python target
that returns its calls (`assay run`, then `assay replay` reproduces every score), an HTTP agent
that reports them (the test agent of tests/agent_server.py), and an agent's OTel trace as
`assay watch` receives it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from assay.core.trajectory import ITEM, trajectory_of
from assay.core.types import Answer, Item
from assay.evaluators.registry import EVALUATORS
from assay.online.items import item_fields
from assay.online.reading import read_trace
from assay.store import repo
from assay.traces.otlp_in import SpanIn
from tests.agent_server import AgentServer
from tests.cli.test_run_cli import replay_rows, run, run_id_of
from tests.conftest import ROOT
from tests.online.otlp_send import S, new_id, send
from tests.online.test_watch import write_spec
from tests.online.watching import Watching

RECORDED = [  # id, answer, its tool calls (None: none recorded), the item's own fields
    ("r1", "1455元", [{"name": "search", "arguments": {"q": "茅台"}},
                      {"name": "quote", "arguments": {"symbol": "600519"}}], {}),
    ("r2", "不知道", [], {}),  # the agent made no call
    ("r3", "1455元", None, {}),  # nothing recorded
    ("r4", "1455元", [{"name": "search"}], {"expected_tool": "search"}),
]


def write_items(path: Path) -> None:
    rows = []
    for i, text, calls, own in RECORDED:
        row: dict[str, Any] = {"id": i, "prompt": "贵州茅台最新价?", "response": text, **own}
        if calls is not None:
            row["tool_calls"] = calls
        rows.append(json.dumps(row, ensure_ascii=False))
    path.write_text("\n".join(rows) + "\n", "utf-8")


def stored(project: Path, run_id: str) -> dict[tuple[str, str], tuple[Any, str, str]]:
    db = sqlite3.connect(project / ".assay" / "assay.db")
    rows = db.execute("SELECT item_id, evaluator, score, status, reason FROM results "
                      "WHERE run_id = ?", (run_id,)).fetchall()
    return {(i, e): (s, st, r) for i, e, s, st, r in rows}


def test_score_recorded_answers_with_their_calls(tmp_path: Path) -> None:
    write_items(tmp_path / "items.jsonl")
    out = tmp_path / "out.jsonl"
    r = run("score", "items.jsonl", "-e", "tool-used", "--arg", "tool=quote", "--out",
            str(out), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = {x["item_id"]: x for x in map(json.loads, out.read_text("utf-8").splitlines())}
    assert {i: (x["score"], x["status"], x["reason"]) for i, x in lines.items()} == {
        "r1": (1, "scored", "quote called 1 time"),
        "r2": (0, "scored", "quote never called (called no tool)"),
        "r3": (None, "null", "no tool calls recorded for this answer (neither the answer's "
                             "tool_calls nor the item's 'tool_calls' field): nothing to judge"),
        "r4": (1, "scored", "search called 1 time")}  # the item's expected_tool
    assert lines["r1"]["evidence"] == {"tools": ["search", "quote"], "expected": "quote",
                                       "source": "the item's 'tool_calls' field", "times": 1,
                                       "full_score": [0.0, 1.0]}
    # a check without its arg, on items that lack the field, is refused before any item
    r = run("score", "items.jsonl", "-e", "tool-sequence", cwd=tmp_path)
    assert r.returncode != 0 and "expected_tools" in r.stderr
    r = run("score", "items.jsonl", "-e", "tool-args", "--arg", "match=loose", cwd=tmp_path)
    assert r.returncode != 0
    assert "evaluator 'tool-args': 'match' must be exact or subset, not 'loose'" in r.stderr


AGENT = '''\
STEPS = {
    "a": [{"name": "search", "arguments": {"q": "茅台"}},
          {"name": "quote", "arguments": '{"symbol": "600519", "price": 1455.2}'}],
    "b": [{"name": "quote", "arguments": {"symbol": "000001"}, "error": "HTTP 503"},
          {"name": "quote", "arguments": {"symbol": "600519", "price": 1455.4}},
          {"name": "calc"}],
    "c": [],
}


def answer(item):
    if item["id"] == "d":
        return "no trajectory"
    return {"text": "1455元", "tool_calls": STEPS[item["id"]]}
'''

SPEC = """\
dataset: {path: items.jsonl, id_field: id}
targets: [{name: agent, type: python, function: "agent:answer"}]
evaluators:
  - {name: tool-used, args: {tool: quote}}
  - {name: tool-sequence, args: {expected: [search, quote], mode: subset}}
  - {name: tool-args, args: {tool: quote, expected: {symbol: "600519", price: 1455},
                             match: subset, tolerance: 0.5}}
  - {name: max-steps, args: {n: 2}}
  - no-tool-errors
"""


def test_a_python_target_that_returns_its_calls_and_replay(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(AGENT, "utf-8")
    (tmp_path / "items.jsonl").write_text(
        "".join(json.dumps({"id": i, "prompt": "q"}) + "\n" for i in "abcd"), "utf-8")
    (tmp_path / "spec.yaml").write_text(SPEC, "utf-8")
    r = run("run", "spec.yaml", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    run_id = run_id_of(r.stdout)
    got = stored(tmp_path, run_id)
    table = {(i, e): (v, st) for (i, e), (v, st, _) in got.items()}
    assert table == {
        ("a", "tool-used"): (1, "scored"), ("a", "tool-sequence"): (1, "scored"),
        ("a", "tool-args"): (1, "scored"), ("a", "max-steps"): (1, "scored"),
        ("a", "no-tool-errors"): (1, "scored"),
        ("b", "tool-used"): (1, "scored"), ("b", "tool-sequence"): (0, "scored"),
        ("b", "tool-args"): (1, "scored"), ("b", "max-steps"): (0, "scored"),
        ("b", "no-tool-errors"): (0, "scored"),
        ("c", "tool-used"): (0, "scored"), ("c", "tool-sequence"): (1, "scored"),
        ("c", "tool-args"): (0, "scored"), ("c", "max-steps"): (1, "scored"),
        ("c", "no-tool-errors"): (1, "scored"),
        **{("d", e): (None, "null") for e in ("tool-used", "tool-sequence", "tool-args",
                                              "max-steps", "no-tool-errors")}}
    assert got[("b", "tool-sequence")][2] == (
        "subset: called [quote, quote, calc], expected [search, quote]: not expected "
        "[quote, calc]")
    assert got[("b", "tool-args")][2] == (
        "quote called with the expected arguments (subset) (call 2 of 2)")
    assert got[("b", "no-tool-errors")][2] == (
        "1 of 3 tool calls failed: quote (call 1): HTTP 503")
    # the calls are TOOL spans of the trace, as an HTTP agent's are
    db = sqlite3.connect(tmp_path / ".assay" / "assay.db")
    assert db.execute("SELECT count(*) FROM spans WHERE run_id = ? AND kind = 'tool'",
                      (run_id,)).fetchone()[0] == 5
    r = run("replay", run_id, cwd=tmp_path)
    assert r.returncode == 0, r.stderr + r.stdout
    assert {k: v[1:] for k, v in replay_rows(r.stdout).items()} == {
        e: ["4", "4", "100.0%"] for e in ("tool-used", "tool-sequence", "tool-args",
                                          "max-steps", "no-tool-errors")}


@pytest.mark.server  # the test agent listens
def test_an_http_agents_reported_calls(tmp_path: Path) -> None:
    agent = AgentServer().start()
    agent.mode = "tools"  # quote (ISO times), calculator (ms), format_answer (OpenAI shape)
    try:
        (tmp_path / "items.jsonl").write_text(
            json.dumps({"id": "q1", "prompt": "贵州茅台最新价?"}, ensure_ascii=False) + "\n",
            "utf-8")
        (tmp_path / "spec.yaml").write_text(f"""\
dataset: {{path: items.jsonl, id_field: id}}
targets:
  - {{name: agent, type: http, url: {agent.url}, body: {{question: "{{prompt}}"}},
      answer_path: $.data.answer}}
evaluators:
  - {{name: tool-sequence, args: {{expected: [quote, calculator, format_answer]}}}}
  - {{name: tool-args, args: {{tool: format_answer, expected: {{digits: 2}}}}}}
  - {{name: tool-args, label: quote-args, args: {{tool: quote, expected: {{symbol: "600519"}},
      match: subset}}}}
""", "utf-8")
        r = run("run", "spec.yaml", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        got = stored(tmp_path, run_id_of(r.stdout))
    finally:
        agent.stop()
    assert got == {
        ("q1", "tool-sequence"): (1, "scored", "strict: called [quote, calculator, "
                                  "format_answer], expected [quote, calculator, "
                                  "format_answer]"),
        # its arguments were JSON text (the OpenAI shape): read as an object
        ("q1", "tool-args"): (1, "scored", "format_answer called with the expected "
                              "arguments (exact)"),
        ("q1", "quote-args"): (1, "scored", "quote called with the expected arguments "
                               "(subset)")}


def tool_span(trace: str, parent: str, name: str, start: int, arguments: str,
              **more: Any) -> S:
    return S(trace, new_id(8), f"execute_tool {name}", parent, start_ns=start,
             end_ns=start + 1000, attributes={
                 "openinference.span.kind": "TOOL", "tool.name": name,
                 "tool.parameters": arguments}, **more)


def agent_with_tools(question: str, answer: str) -> list[S]:
    tid, root = new_id(16), new_id(8)
    t0 = 1_700_000_000_000_000_000
    return [
        # sent out of order: the calls are read in the order they started
        tool_span(tid, root, "quote", t0 + 3000, '{"symbol": "600519"}'),
        tool_span(tid, root, "search", t0 + 1000, '{"q": "茅台"}', status=2,
                  status_message="rate limited"),
        S(tid, root, "agent", start_ns=t0, end_ns=t0 + 10_000, attributes={
            "openinference.span.kind": "AGENT", "input.value": question,
            "output.value": answer})]


def test_an_otel_trace_is_read_into_the_items_trajectory() -> None:
    spans = [SpanIn(s.trace_id, s.span_id, s.parent_id or None, s.name, s.start_ns, s.end_ns,
                    s.attributes, {"service.name": "a"}, status=s.status,
                    status_message=s.status_message)
             for s in agent_with_tools("茅台?", "1455元")]
    item = Item(spans[0].trace_id, item_fields(read_trace(spans), spans, None))
    t = trajectory_of(item, Answer("1455元"))  # as the watch's answer: no extras
    assert t is not None and (t.source, t.names) == (ITEM, ["search", "quote"])
    assert [(c.error, c.args()) for c in t.calls] == [("rate limited", {"q": "茅台"}),
                                                      (None, {"symbol": "600519"})]
    ev = EVALUATORS.build("no-tool-errors")
    assert ev.check(item, Answer("1455元")).reason == (
        "1 of 2 tool calls failed: search (call 1): rate limited")


@pytest.mark.server  # the watch listens
def test_assay_watch_judges_a_received_traces_calls(tmp_path: Path, db_url: str) -> None:
    w = Watching(db_url, write_spec(tmp_path, """\
evaluators:
  - {name: tool-sequence, args: {expected: [search, quote]}}
  - {name: tool-args, args: {tool: quote, expected: {symbol: "600519"}}}
  - no-tool-errors
""")).start()
    trace = agent_with_tools("贵州茅台最新价?", "1455.00元")
    send(w.endpoint, trace)
    w.wait_evaluated(1)
    w.stop()
    got = {r["evaluator"]: (r["score"], r["status"], r["reason"])
           for r in repo.list_results(w.engine, w.run_id)}
    assert got == {
        "tool-sequence": (1.0, "scored", "strict: called [search, quote], expected [search, "
                          "quote]"),
        "tool-args": (1.0, "scored", "quote called with the expected arguments (exact)"),
        "no-tool-errors": (0.0, "scored", "1 of 2 tool calls failed: search (call 1): rate "
                           "limited")}


EXAMPLE = {  # docs/agents.md's worked example: examples/specs/trajectory.yaml
    # item: tool-used, tool-sequence, tool-args, max-steps, no-tool-errors
    "t01": (1, 1, 1, 1, 1),  # search, then quote 600519: all good
    "t02": (1, 0, 1, 1, 1),  # no search first
    "t03": (1, 1, 0, 1, 1),  # quoted the wrong symbol
    "t04": (1, 1, 1, 0, 0),  # a failed call retried: 4 calls
    "t05": (0, 0, 0, 1, 1),  # answered from memory: no call
    "t06": (None,) * 5,  # no tool calls recorded: nothing to judge
}


def test_the_worked_example(tmp_path: Path) -> None:
    r = run("run", str(ROOT / "examples" / "specs" / "trajectory.yaml"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    run_id = run_id_of(r.stdout)
    got = stored(tmp_path, run_id)
    names = ("tool-used", "tool-sequence", "tool-args", "max-steps", "no-tool-errors")
    assert {i: tuple(got[(i, e)][0] for e in names) for i in EXAMPLE} == EXAMPLE
    assert got[("t03", "tool-args")][2] == (
        'quote: no call with the expected arguments (subset); its call: symbol: expected '
        '"000858", got "600519"')
    r = run("show", run_id, "--item", "t04", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "tool calls from the item's 'tool_calls' field\n" \
           "  tool call 1: search {\"q\": \"比亚迪\"} → 002594.SZ\n" \
           "  tool call 2: quote {\"symbol\": \"002594\"} → error HTTP 503\n" in r.stdout
