"""Conversations (issue 26) in what people read of a run: `assay export` (a row per judged
turn), `--junit` (a case per judged turn, the outcome on the conversation's case), `assay show`
(outcome counts, `--item` turn by turn, `--outcome`, `--by outcome`) and `assay report` (outcome
counts, the simulated users' cost). One run, in this process (tests/invoke.py)."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from lxml import etree
from rich.console import Console

from assay.core.costs import CostSheet
from tests.cli.test_run_cli import run, run_id_of
from tests.conftest import DATA

AGENT = '''\
def answer(item):
    last = item["messages"][-1]["content"]
    if last == "boom":
        raise RuntimeError("tool server down")
    if last == "handoff":
        return {"text": "passing you to a human", "end": "transfer"}
    return {"text": f"turn {item['turn']}: you said {last}",
            "tool_calls": [{"name": "quote", "arguments": {"q": last}, "result": "ok"}]}
'''

ITEMS = [
    # done: the script ran out; turn 2 misses its reference
    {"id": "c1", "turns": [{"input": "hello", "reference_output": "hello",
                            "ground_truth": "greeted"},
                           {"input": "bye", "reference_output": "nope"}]},
    # aborted: the target raises on turn 2, turn 3 never happens
    {"id": "c2", "turns": ["alpha", "boom", "gamma"], "reference_output": "you said"},
    # transferred: the target hands over on turn 2, turn 3 never happens
    {"id": "c3", "turns": ["x", "handoff", "z"], "reference_output": "passing"},
]

SPEC = """\
dataset: {path: items.jsonl, id_field: id}
targets: [{name: agent, type: python, function: "agent:answer"}]
evaluators: [contains]
concurrency: 1  # the conversations in dataset order: the rows' order below is theirs
"""


@dataclass(frozen=True)
class Talks:
    path: Path
    run_id: str
    junit: Path

    def assay(self, *args: str) -> tuple[int, str, str]:
        r = run(*args, "--db", f"sqlite:///{self.path / 'c.db'}", cwd=self.path)
        return r.returncode, r.stdout, r.stderr


@pytest.fixture(scope="module")
def talks(tmp_path_factory: pytest.TempPathFactory) -> Talks:
    path = tmp_path_factory.mktemp("talks")
    (path / "agent.py").write_text(AGENT, "utf-8")
    (path / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in ITEMS), "utf-8")
    (path / "spec.yaml").write_text(SPEC, "utf-8")
    r = run("run", "spec.yaml", "--junit", "junit.xml", "--db", f"sqlite:///{path / 'c.db'}",
            cwd=path)
    assert r.returncode == 0, r.stdout + r.stderr  # low scores: no gate asked, exit 0
    return Talks(path, run_id_of(r.stdout), path / "junit.xml")


def _rows(fmt: str, out: Path) -> list[dict[str, object]]:
    if fmt == "csv":
        return list(csv.DictReader(out.open(encoding="utf-8-sig")))
    if fmt == "jsonl":
        return [json.loads(x) for x in out.read_text("utf-8").splitlines()]
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return pq.read_table(out).to_pylist()  # type: ignore[no-any-return]
    from openpyxl import load_workbook

    values = list(load_workbook(out, read_only=True).active.values)  # type: ignore[union-attr]
    return [dict(zip(values[0], v, strict=True)) for v in values[1:]]  # type: ignore[arg-type]


def _cell(value: object) -> object:
    """A cell as JSON has it: CSV and XLSX write an empty cell for null, CSV text for 1."""
    if value in ("", None):
        return None
    if isinstance(value, str) and value.isdigit():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\d+\.\d+", value):
        return float(value)
    return value


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet", "xlsx"])
def test_export_has_a_row_per_judged_turn_with_the_outcome(talks: Talks, fmt: str) -> None:
    out = talks.path / f"out.{fmt}"
    code, _, err = talks.assay("export", talks.run_id, "--format", fmt, "--out", str(out))
    assert code == 0, err
    assert "8 row(s) written" in err  # 3 conversation rows + 5 judged turns
    got = [{k: _cell(r[k]) for k in ("item_id", "turn", "question", "answer", "evaluator",
                                      "score", "status", "outcome")} for r in _rows(fmt, out)]
    conv = {"question": None, "evaluator": "contains", "status": "scored", "score": 0}
    assert got == [
        {**conv, "item_id": "c1", "turn": None, "answer": "turn 2: you said bye",
         "outcome": "done"},
        {"item_id": "c1", "turn": 1, "question": "hello", "answer": "turn 1: you said hello",
         "evaluator": "contains", "score": 1, "status": "scored", "outcome": "done"},
        {"item_id": "c1", "turn": 2, "question": "bye", "answer": "turn 2: you said bye",
         "evaluator": "contains", "score": 0, "status": "scored", "outcome": "done"},
        {**conv, "item_id": "c2", "turn": None, "answer": "turn 1: you said alpha",
         "outcome": "aborted"},
        {"item_id": "c2", "turn": 1, "question": "alpha", "answer": "turn 1: you said alpha",
         "evaluator": "contains", "score": 1, "status": "scored", "outcome": "aborted"},
        {**conv, "item_id": "c3", "turn": None, "answer": "passing you to a human",
         "outcome": "transferred"},
        {"item_id": "c3", "turn": 1, "question": "x", "answer": "turn 1: you said x",
         "evaluator": "contains", "score": 0, "status": "scored", "outcome": "transferred"},
        {"item_id": "c3", "turn": 2, "question": "handoff", "answer": "passing you to a human",
         "evaluator": "contains", "score": 1, "status": "scored", "outcome": "transferred"}]
    reasons = {(r["item_id"], _cell(r["turn"])): r["reason"] for r in _rows(fmt, out)}
    assert reasons[("c1", 2)] == "the answer does not contain 'nope'"
    assert reasons[("c2", None)] == "conversation aborted: turn 2: RuntimeError: tool server down"
    assert reasons[("c3", None)] == "min of 2 judged turns (0, 1); transferred"
    truths = {(r["item_id"], _cell(r["turn"])): (_cell(r["ground_truth"]),
                                                  _cell(r["truth_provider"]))
              for r in _rows(fmt, out)}
    assert truths[("c1", 1)] == ("greeted", "stored")  # the turn's own ground_truth
    assert truths[("c1", 2)] == truths[("c1", None)] == (None, None)


def test_junit_has_a_case_per_judged_turn_and_names_the_outcome(talks: Talks) -> None:
    doc = etree.parse(str(talks.junit))
    schema = etree.XMLSchema(etree.parse(str(DATA / "junit" / "junit-10.xsd")))
    assert schema.validate(doc), schema.error_log.last_error
    cases = {c.get("name"): c for c in doc.getroot().iter("testcase")}
    assert list(cases) == ["c1", "c1 turn 1", "c1 turn 2", "c2", "c2 turn 1", "c3",
                           "c3 turn 1", "c3 turn 2"]
    assert {c.get("classname") for c in cases.values()} == {f"{talks.run_id}/contains"}
    passed = [n for n, c in cases.items() if len(c) == 0]
    assert passed == ["c1 turn 1", "c2 turn 1", "c3 turn 2"]
    aborted = cases["c2"].find("failure")
    assert aborted is not None and aborted.get("message") == (
        "outcome aborted; score 0 below full score 1: conversation aborted: turn 2: "
        "RuntimeError: tool server down")
    transferred = cases["c3"].find("failure")
    assert transferred is not None and transferred.get("message", "").startswith(
        "outcome transferred; score 0 below full score 1")
    done = cases["c1"].find("failure")
    assert done is not None and done.get("message") == \
        "score 0 below full score 1: min of 2 judged turns (1, 0); done"
    turn = cases["c1 turn 2"].find("failure")
    assert turn is not None and turn.get("message") == \
        "score 0 below full score 1: the answer does not contain 'nope'"


def _table_rows(stdout: str, first: str) -> list[list[str]]:
    return [[c.strip() for c in line.split("│") if c.strip()]
            for line in stdout.splitlines() if line.startswith(f"│ {first}")]


def test_show_counts_outcomes_per_target(talks: Talks) -> None:
    code, out, err = talks.assay("show", talks.run_id)
    assert code == 0, err
    assert "conversation outcomes" in out
    header = next(line for line in out.splitlines() if "conversations" in line and "┃" in line)
    assert [c.strip() for c in header.split("┃") if c.strip()] == [
        "target", "conversations", "done", "transferred", "max_turns", "timeout", "budget",
        "aborted"]
    assert _table_rows(out.split("conversation outcomes")[1], "agent") == [
        ["agent", "3", "1", "1", "0", "0", "0", "1"]]


def test_show_by_outcome_groups_the_scores(talks: Talks) -> None:
    code, out, err = talks.assay("show", talks.run_id, "--by", "outcome")
    assert code == 0, err
    assert "contains by outcome" in out
    part = out.split("contains by outcome")[1]
    rows = {r[0]: r[1:4] for r in (_table_rows(part, "done") + _table_rows(part, "aborted")
                                   + _table_rows(part, "transferred"))}
    # items, scored, mean per outcome
    assert rows == {"done": ["1", "1", "0.000"], "aborted": ["1", "1", "0.000"],
                    "transferred": ["1", "1", "0.000"]}


def test_show_item_of_a_conversation_goes_turn_by_turn(talks: Talks) -> None:
    code, out, err = talks.assay("show", talks.run_id, "--item", "c2")
    assert code == 0, err
    # the latency varies: read as "N.NNN s"
    lines = [re.sub(r"\(\d+\.\d{3} s\)", "(N.NNN s)", line.rstrip())
             for line in out.splitlines()]
    start = lines.index("conversation with agent, 2 turn(s)")
    assert lines[start + 1:start + 10] == [
        "turn 1 user (script): alpha",
        "  answer (N.NNN s): turn 1: you said alpha",
        '  tool call 1: quote {"q": "alpha"} → ok',
        "  contains → 1 (scored): the answer contains 'you said'",
        "turn 2 user (script): boom",
        "  answer: error RuntimeError: tool server down",
        "  the conversation ended here: aborted",
        "outcome aborted: turn 2: RuntimeError: tool server down",
        "conversation scores (its judged turns combined)"]
    assert lines[start + 10] == ("contains on agent → score 0 (scored): conversation aborted: "
                                 "turn 2: RuntimeError: tool server down")
    code, out, _ = talks.assay("show", talks.run_id, "--item", "c1")
    assert "turn 1 user (script): hello" in out
    assert "  truth (stored in the item): greeted" in out.splitlines()
    code, out, _ = talks.assay("show", talks.run_id, "--item", "c3")
    assert "turn 2 user (script): handoff" in out
    assert "outcome transferred: the target said transferred" in out
    assert "turn 3" not in out


def test_show_lists_conversations_by_outcome(talks: Talks) -> None:
    code, out, err = talks.assay("show", talks.run_id, "--outcome", "aborted")
    assert code == 0, err
    assert "conversations that ended aborted (1 of 3)" in out
    assert _table_rows(out, "c2") == [
        ["c2", "agent", "0", "2", "turn 2: RuntimeError: tool server down", "contains 0"]]
    assert _table_rows(out, "c1") == [] and _table_rows(out, "c3") == []
    code, out, _ = talks.assay("show", talks.run_id, "--outcome", "budget")
    assert code == 0 and out.startswith(
        f"no conversation of run {talks.run_id} ended budget (3 conversation(s) in all")
    code, out, err = talks.assay("show", talks.run_id, "--outcome", "crashed")
    assert code == 2 and out == ""
    assert err.strip() == ("error: --outcome must be one of done, transferred, max_turns, "
                           "timeout, budget, aborted, not 'crashed'")
    code, _, err = talks.assay("show", talks.run_id, "--outcome", "done", "--item", "c1")
    assert code == 2 and "--outcome lists conversations; leave out --item" in err


def test_report_shows_outcome_counts(talks: Talks) -> None:
    out = talks.path / "report.html"
    code, _, err = talks.assay("report", talks.run_id, "--out", str(out))
    assert code == 0, err
    html = out.read_text("utf-8")
    table = html.split('<table id="outcome-counts">')[1].split("</table>")[0]
    cells = re.findall(r"<t[dh][^>]*>([^<]*)</t[dh]>", table)
    assert cells == ["target", "conversations", "done", "transferred", "max_turns", "timeout",
                     "budget", "aborted", "agent", "3", "1", "1", "0", "0", "0", "1"]


def test_the_cost_split_shows_the_simulated_users() -> None:
    """`assay show` and `assay report` print what the simulated users cost, apart."""
    from assay.cli.costs_view import print_costs
    from assay.report.html import env

    sheet = CostSheet(targets={"agent": 0.25}, judges={"judge": 0.5},
                      simulators={"agent": 0.125}, total=0.875)
    buffer = io.StringIO()
    print_costs(Console(file=buffer, width=200), sheet, {})
    rows = _table_rows(buffer.getvalue(), "simulator")
    assert rows == [["simulator", "agent", "0.1250"]]
    html = str(env().get_template("_costs.html.j2").module.costs(sheet.as_dict()))  # type: ignore[attr-defined]
    assert ('<tr class="simulator"><td>simulator</td><td>agent <span class="muted">(simulated '
            'users)</span></td><td class="n">0.1250</td>') in html
    only = str(env().get_template("_costs.html.j2").module.costs(  # type: ignore[attr-defined]
        CostSheet(simulators={"agent": 0.125}, total=0.125).as_dict()))
    assert "<td>simulator</td>" in only  # a run whose only priced model is the simulator
