"""Issue 28, per-item checks for mixed datasets: an evaluator's `when:` (a spec's key, `--when`
on `assay score`, the Python API's entry) and an item's own `evaluators` / `skip_evaluators`
fields. An item an evaluator does not apply to is recorded `skipped` and is outside that
evaluator's counts and mean, in the summary, `assay show`, the report's aggregates, compare,
JUnit and replay; a bad `when:` is the one line every spec error is."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import assay
from assay.core.errors import ConfigError
from assay.core.tally import Tally
from assay.core.types import Item, Score, ScoreStatus
from assay.evaluators.jury import combine
from assay.report.aggregate import aggregate, summary_by_evaluator
from assay.report.compare import compare_runs
from assay.report.junit import run_junit
from assay.runner.evaluator_entries import cli_entries
from assay.runner.scope import Scope
from assay.runner.spec import load_spec, parse_when
from assay.store.db import open_engine
from tests.invoke import assay_in_process, cli_env

# A mixed dataset: numbers, text, categories, and one item that opts out of `exact`.
ITEMS = [
    {"id": "a", "prompt": "How many minutes?", "reference_output": "12",
     "response": "12 minutes", "category": "math"},
    {"id": "b", "prompt": "Capital of France?", "reference_output": "Paris",
     "response": "Paris", "category": "geo"},
    {"id": "c", "prompt": "Seconds in an hour?", "reference_output": "3,600 seconds",
     "response": "3600", "category": "units"},
    {"id": "d", "prompt": "Capital of Italy?", "reference_output": "Rome",
     "response": "Milan", "category": "geo"},
    {"id": "e", "prompt": "Minutes in a day?", "reference_output": "1440",
     "response": "about 1000", "category": "math"},
    {"id": "f", "prompt": "Capital of Japan?", "reference_output": "Tokyo",
     "response": "Tokyo", "category": "geo", "skip_evaluators": "exact"},
]
SPEC = """\
name: mixed
dataset: items.jsonl
target: {name: rec, type: recorded}
evaluators:
  - {name: numeric, when: {reference: number}}
  - {name: exact, when: {reference: text}}
  - {name: length, args: {max: 20}, label: short, when: {field: category, equals: geo}}
"""


def item(**fields: Any) -> Item:
    return Item("x", fields, line=1)


def cli(*args: str, cwd: Path) -> Any:
    return assay_in_process(*args, cwd=cwd, env=cli_env(hide=("ASSAY_DB", "ASSAY_MODELS")))


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "items.jsonl").write_text(
        "".join(json.dumps(it) + "\n" for it in ITEMS), "utf-8")
    (tmp_path / "spec.yaml").write_text(SPEC, "utf-8")
    return tmp_path


def statuses(db: Path, run_id: str) -> dict[tuple[str, str], tuple[str, float | None]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT item_id, evaluator, status, score FROM results WHERE "
                            "run_id = ?", (run_id,)).fetchall()
    return {(i, e): (s, v) for i, e, s, v in rows}


# -- the conditions --------------------------------------------------------------------------

def test_conditions_hold_as_documented() -> None:
    number, text = parse_when({"reference": "number"}), parse_when({"reference": "text"})
    for ref in ("12", "3,600 seconds", "约1.2亿元", 12, 2.5):
        assert number.holds(item(reference_output=ref)) and not text.holds(
            item(reference_output=ref)), ref
    for ref in ("Paris", "between 3 and 4"):  # no number, or several
        assert text.holds(item(reference_output=ref)) and not number.holds(
            item(reference_output=ref)), ref
    for fields in ({}, {"reference_output": ""}, {"reference_output": None}):
        assert not number.holds(item(**fields)) and not text.holds(item(**fields))
    cat = parse_when({"field": "category", "in": ["math", "units"]})
    assert [cat.holds(item(category=c)) for c in ("math", "units", "geo")] == [
        True, True, False]
    assert not cat.holds(item())
    assert cat.holds(item(category=["geo", "math"]))  # a list field: one of its elements
    assert parse_when({"field": "level", "equals": 3}).holds(item(level="3"))  # as text
    assert parse_when({"field": "flag", "equals": True}).holds(item(flag="true"))
    present = parse_when({"field": "unit"})
    assert [present.holds(item(**f)) for f in ({"unit": "s"}, {"unit": ""}, {})] == [
        True, False, False]
    both = parse_when({"not": {"field": "category", "equals": "geo"},
                       "any": [{"reference": "number"}, {"field": "unit"}]})
    assert both.holds(item(category="math", reference_output="5"))
    assert both.holds(item(category="math", reference_output="x", unit="m"))
    assert not both.holds(item(category="geo", reference_output="5"))
    assert not both.holds(item(category="math", reference_output="x"))
    every = parse_when({"all": [{"field": "a"}, {"field": "b", "in": [1, 2]}]})
    assert every.holds(item(a="y", b=2)) and not every.holds(item(a="y", b=3))
    # the manifest keeps the condition as written and reads it back
    assert parse_when(both.as_dict()) == both
    assert both.text() == ("{not: {field: category, equals: geo}, any: [{reference: number}, "
                           "{field: unit}]}")


def test_item_fields_name_the_evaluators_that_score_it() -> None:
    scope = Scope()
    only = item(evaluators="exact, coze-correctness")  # text with commas, or a list
    assert scope.skip("exact", "v", only) is None
    assert scope.skip("coze-correctness@judge", "v", only) is None  # the name before @
    s = scope.skip("numeric", "v", only)
    assert s is not None and (s.status, s.value, s.evaluator) == (ScoreStatus.SKIPPED, None,
                                                                  "numeric")
    assert s.reason == ("not applicable: the item's 'evaluators' field names exact, "
                        "coze-correctness")
    out = item(skip_evaluators=["numeric"])
    assert scope.skip("exact", "v", out) is None
    s = scope.skip("numeric", "v", out)
    assert s is not None and s.reason == ("not applicable: the item's 'skip_evaluators' field "
                                          "names it")
    assert scope.skip("numeric", "v", item(evaluators="", skip_evaluators=None)) is None


def test_tally_leaves_skipped_out_of_items_and_mean() -> None:
    t = Tally()
    for status, value in (("scored", 1.0), ("scored", 0.0), ("skipped", None),
                          ("skipped", None), ("error", None)):
        t.add(status, value)
    t.add("skipped", None, corrected=1.0)  # a review of it changes nothing
    assert (t.items, t.scored, t.mean, t.error, t.skipped, t.reviewed) == (3, 2, 0.5, 1, 3, 0)
    assert t.as_dict()["skipped"] == 3


def test_a_jury_of_judges_that_do_not_apply_is_skipped() -> None:
    skipped = [Score.skip("not applicable", f"j{i}", "v") for i in range(2)]
    jury = combine("majority", skipped)
    assert (jury.status, jury.value, jury.evaluator) == (ScoreStatus.SKIPPED, None,
                                                         "jury-majority")
    one = combine("mean", [skipped[0], Score(1.0, ScoreStatus.SCORED, "ok", "j2", "v")])
    assert (one.status, one.value, one.reason) == (ScoreStatus.SCORED, 1.0,
                                                   "mean of 1 of 1 judges")


# -- a bad `when:` is one line ---------------------------------------------------------------

@pytest.mark.parametrize(("entry", "message"), [
    ("{name: numeric, when: {reference: nmber}}",
     "spec.yaml:5: evaluators[0].when.reference: must be number or text (what the item's "
     "reference_output states)"),
    ("{name: numeric, when: {refrence: number}}",
     "spec.yaml:5: evaluators[0].when.refrence: unknown key (known: reference, field, equals, "
     "in, not, any, all)"),
    ("{name: numeric, when: reference}",
     "spec.yaml:5: evaluators[0].when: must be a condition: a mapping with reference, field, "
     "not, any or all (docs/evaluators.md, Mixed datasets)"),
    ("{name: numeric, when: {equals: math}}",
     "spec.yaml:5: evaluators[0].when.equals: 'equals' compares a field: give 'field' beside "
     "it"),
    ("{name: numeric, when: {field: category, equals: a, in: [b]}}",
     "spec.yaml:5: evaluators[0].when.in: give 'equals' or 'in', not both"),
    ("{name: numeric, when: {field: category, in: []}}",
     "spec.yaml:5: evaluators[0].when.in: must be a non-empty list of values"),
    ("{name: numeric, when: {field: category, in: math}}",
     "spec.yaml:5: evaluators[0].when.in: must be a non-empty list of values"),
    ("{name: numeric, when: {any: [{field: a}, {fild: b}]}}",
     "spec.yaml:5: evaluators[0].when.any[1].fild: unknown key (known: reference, field, "
     "equals, in, not, any, all)"),
    ("{name: numeric, when: {not: {field: [a]}}}",
     "spec.yaml:5: evaluators[0].when.not.field: must be the name of an item field"),
])
def test_a_bad_when_is_one_line_with_file_line_and_keys(project: Path, entry: str,
                                                         message: str) -> None:
    (project / "spec.yaml").write_text(SPEC.split("evaluators:")[0] + "evaluators:\n"
                                       "  - exact\n  - " + entry + "\n", "utf-8")
    with pytest.raises(ConfigError) as err:
        load_spec(project / "spec.yaml")
    # the entry is the second of the list, on line 6
    assert str(err.value) == str(project / message.replace("evaluators[0]", "evaluators[1]")
                                 .replace("spec.yaml:5", "spec.yaml:6"))


def test_a_field_no_item_has_stops_the_run_on_its_line(project: Path) -> None:
    (project / "spec.yaml").write_text(SPEC.replace("equals: geo}", "equals: geo}}")
                                       .replace("{field: category, equals: geo}}",
                                                "{not: {field: categry, equals: geo}}"),
                                       "utf-8")
    done = cli("run", "spec.yaml", "--db", "sqlite:///s.db", cwd=project)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: spec.yaml:7: evaluators[2].when.not.field: no item of items.jsonl has a field "
        "'categry' (fields: category, id, prompt, reference_output, response, "
        "skip_evaluators)")
    assert not (project / "s.db").exists() or statuses(project / "s.db", "mixed") == {}


def test_the_command_line_gives_the_same_errors(project: Path) -> None:
    for args, line in [
        (["--when", "reference=nmber"],
         "error: evaluators[0].when.reference: must be number or text (what the item's "
         "reference_output states)"),
        (["--when", "field=categry"],
         "error: evaluators[0].when.field: no item of items.jsonl has a field 'categry' "
         "(fields: category, id, prompt, reference_output, response, skip_evaluators)"),
        (["-e", "exact", "--when", "reference=number"],
         "error: --when reference=number: several evaluators are given (numeric, exact); "
         "write --when EVALUATOR.reference=number"),
        (["--when", "exakt.reference=number"],
         "error: --when exakt.reference=number: no evaluator 'exakt' among -e numeric"),
    ]:
        done = cli("score", "items.jsonl", "-e", "numeric", *args, "--db", "sqlite:///c.db",
                   cwd=project)
        assert (done.returncode, done.stderr.strip()) == (2, line), args


def test_cli_entries_build_when_like_args() -> None:
    assert cli_entries(["numeric", "exact"], ["numeric.abs=0.5"],
                       ["numeric.reference=number", "exact.field=category",
                        "exact.in=[geo, 007]", "exact.not={field: x}"]) == [
        {"name": "numeric", "args": {"abs": 0.5}, "when": {"reference": "number"}},
        {"name": "exact", "when": {"field": "category", "in": ["geo", 7],
                                   "not": {"field": "x"}}}]
    assert cli_entries(["exact"], [], ["field=code", "equals=007"]) == [
        {"name": "exact", "when": {"field": "code", "equals": "007"}}]  # as written


# -- a run of a mixed dataset ----------------------------------------------------------------

def test_a_mixed_dataset_scores_each_item_by_the_evaluators_that_apply(project: Path) -> None:
    done = cli("run", "spec.yaml", "--db", "sqlite:///m.db", "--run-id", "m1", cwd=project)
    assert done.returncode == 0, done.stderr
    got = statuses(project / "m.db", "m1")
    assert {k: v for k, v in got.items() if k[1] == "numeric"} == {
        ("a", "numeric"): ("scored", 1.0), ("c", "numeric"): ("scored", 1.0),
        ("e", "numeric"): ("scored", 0.0), ("b", "numeric"): ("skipped", None),
        ("d", "numeric"): ("skipped", None), ("f", "numeric"): ("skipped", None)}
    assert {k: v for k, v in got.items() if k[1] == "exact"} == {
        ("b", "exact"): ("scored", 1.0), ("d", "exact"): ("scored", 0.0),
        ("f", "exact"): ("skipped", None),  # its skip_evaluators field
        ("a", "exact"): ("skipped", None), ("c", "exact"): ("skipped", None),
        ("e", "exact"): ("skipped", None)}
    assert {k[0] for k, v in got.items() if k[1] == "short" and v[0] == "scored"} == {
        "b", "d", "f"}
    engine = open_engine(f"sqlite:///{project / 'm.db'}")
    figures = {n: (t.items, t.scored, t.mean, t.error, t.skipped)
               for n, t in summary_by_evaluator(engine, "m1").items()}
    assert figures == {"numeric": (3, 3, 2 / 3, 0, 3), "exact": (2, 2, 0.5, 0, 4),
                       "short": (3, 3, 1.0, 0, 3)}
    agg = aggregate(engine, "m1", "category")
    assert {n: (t.items, t.mean, t.skipped) for n, t in agg.evaluators.items()} == {
        "numeric": (3, 2 / 3, 3), "exact": (2, 0.5, 4), "short": (3, 1.0, 3)}
    assert {g: (t.items, t.mean) for g, t in agg.groups["numeric"].items() if t.items} == {
        "math": (2, 0.5), "units": (1, 1.0)}
    # the stored summary (assay runs, the UI's run list) counts the same
    with sqlite3.connect(project / "m.db") as conn:
        summary = json.loads(conn.execute("SELECT summary FROM runs WHERE id = 'm1'")
                             .fetchone()[0])
    assert {k: (v["items"], v["mean"], v["skipped"])
            for k, v in summary["evaluators"].items()} == {
        "numeric": (3, 2 / 3, 3), "exact": (2, 0.5, 4), "short": (3, 1.0, 3)}
    # replay skips what the run skipped, and reproduces every score
    replayed = cli("replay", "m1", "--db", "sqlite:///m.db", cwd=project)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert replayed.stdout.count("100.0%") == 3
    # show: a skipped column, and the item's reason
    shown = cli("show", "m1", "--db", "sqlite:///m.db", cwd=project)
    assert "evaluator numeric version " in shown.stdout
    assert ", when: {field: category, equals: geo}" in shown.stdout
    head = next(line for line in shown.stdout.splitlines() if "evaluator" in line
                and "items" in line)
    assert "skipped" in head
    line = next(line for line in shown.stdout.splitlines() if line.startswith("│ numeric "))
    assert [c.strip() for c in line.strip("│┃ ").split("│")][:10] == [
        "numeric", "3", "3", "0.667", "[0.208, 0.939]", "0", "0", "0", "0", "3"]
    one = cli("show", "m1", "--item", "b", "--db", "sqlite:///m.db", cwd=project)
    assert ("numeric on rec → score – (skipped): not applicable: when: {reference: number} "
            "does not hold") in one.stdout
    # JUnit: a skipped case with the reason
    xml = run_junit(engine, "m1").getroot()
    cases = {(s.get("name"), c.get("name")): c for s in xml for c in s}
    skipped = cases[("m1/numeric", "b")].find("skipped")
    assert skipped is not None and skipped.get("message") == (
        "skipped: not applicable: when: {reference: number} does not hold")
    # the manifest keeps each condition, for replay
    with sqlite3.connect(project / "m.db") as conn:
        manifest = json.loads(conn.execute("SELECT manifest FROM runs WHERE id = 'm1'")
                              .fetchone()[0])
    assert [e.get("when") for e in manifest["evaluators"]] == [
        {"reference": "number"}, {"reference": "text"}, {"field": "category", "equals": "geo"}]


def test_score_with_when_and_compare_leave_skipped_items_out(project: Path) -> None:
    base = cli("score", "items.jsonl", "-e", "numeric", "--when", "reference=number",
               "--db", "sqlite:///k.db", "--run-id", "k1", cwd=project)
    assert base.returncode == 0, base.stderr
    table = base.stdout
    assert "skipped" in table
    row = next(line for line in table.splitlines() if line.strip("│┃ ").startswith("all"))
    assert [c.strip() for c in row.strip("│┃ ").split("│")] == [
        "all", "3", "3", "0.667", "0", "0", "0", "0", "3"]
    # a second run where e's answer is right: compared on the three items numeric applies to
    answers = project / "answers.jsonl"
    answers.write_text("".join(json.dumps({"id": it["id"], "response": it["response"]
                                           if it["id"] != "e" else "1440"}) + "\n"
                               for it in ITEMS), "utf-8")
    other = cli("score", "items.jsonl", "--responses", "answers.jsonl", "-e", "numeric",
                "--when", "reference=number", "--db", "sqlite:///k.db", "--run-id", "k2",
                cwd=project)
    assert other.returncode == 0, other.stderr
    engine = open_engine(f"sqlite:///{project / 'k.db'}")
    [p] = compare_runs(engine, ["k1", "k2"])
    assert (p.paired, p.skipped, p.unscored_pairs, p.only_base, p.only_other) == (3, 3, 0, [],
                                                                                   [])
    assert (p.mean_base, p.mean_other, p.to_better) == (2 / 3, 1.0, ["e"])
    compared = cli("compare", "k1", "k2", "--db", "sqlite:///k.db", cwd=project)
    assert ("numeric k2: 3 item(s) it does not apply to in one run or both (skipped, its "
            "when:) are not compared") in compared.stdout


def test_notes_for_an_evaluator_that_applies_to_nothing_and_an_unknown_name(
        project: Path) -> None:
    rows = [*ITEMS[:2], {**ITEMS[3], "evaluators": ["exactt"]}]
    (project / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    done = cli("score", "items.jsonl", "-e", "exact", "-e", "contains", "--when",
               "contains.field=category", "--when", "contains.equals=none",
               "--db", "sqlite:///n.db", cwd=project)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert lines == [
        "warning: items.jsonl: 1 item(s) name the evaluator 'exactt' (e.g. 'd', line 3), "
        "which this run does not have (its evaluators: exact, contains)",
        "warning: contains applies to none of the 3 selected items of items.jsonl: every "
        "result of it is skipped"]


def test_an_item_field_that_is_not_a_list_of_names_stops_the_run(project: Path) -> None:
    rows = [ITEMS[0], {**ITEMS[1], "evaluators": {"exact": True}}]
    (project / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    done = cli("score", "items.jsonl", "-e", "exact", "--db", "sqlite:///x.db", cwd=project)
    assert done.returncode == 3
    assert done.stderr.strip() == (
        "error: items.jsonl:2: field 'evaluators': must be a list of evaluator names, or text "
        "with commas, not {'exact': True}")


def test_the_python_api_takes_when(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    run = assay.evaluate(dataset=ITEMS, target=None, db=f"sqlite:///{project / 'api.db'}",
                         evaluators=[{"name": "numeric", "when": {"reference": "number"}},
                                     {"name": "exact", "when": {"reference": "text"}}])
    assert run.status == "finished"
    assert {k: (v["items"], v["mean"], v["skipped"]) for k, v in run.summary.items()} == {
        "numeric": (3, 2 / 3, 3), "exact": (2, 0.5, 4)}
    got = {(r["item_id"], r["evaluator"]): r["status"] for r in run.results()}
    assert got[("b", "numeric")] == got[("a", "exact")] == got[("f", "exact")] == "skipped"
    with pytest.raises(ConfigError) as err:
        assay.evaluate(dataset=ITEMS, evaluators=["numeric", {"name": "exact",
                                                               "when": {"field": ""}}])
    assert str(err.value) == "evaluators[1].when.field: must be the name of an item field"


def test_the_ui_and_the_report_show_skipped_apart(project: Path) -> None:
    from fastapi.testclient import TestClient

    from assay.web.app import create_app

    done = cli("run", "spec.yaml", "--db", "sqlite:///u.db", "--run-id", "u1", cwd=project)
    assert done.returncode == 0, done.stderr
    ui = TestClient(create_app(open_engine(f"sqlite:///{project / 'u.db'}")),
                    base_url="http://127.0.0.1:8600")
    summary = ui.get("/api/runs/u1").json()["evaluators"]
    assert {k: (v["items"], v["scored"], v["skipped"]) for k, v in summary.items()} == {
        "numeric": (3, 3, 3), "exact": (2, 2, 4), "short": (3, 3, 3)}
    page = ui.get("/runs/u1").text
    assert '<th class="n" title="not applicable to these items (when:): outside items and the ' \
           'mean">skipped</th>' in page
    assert ('<td>numeric</td><td class="n">3</td><td class="n">3</td><td class="n">0.667</td>'
            in page)
    assert "<option >skipped</option>" in page or "<option>skipped</option>" in page
    rows = ui.get("/api/runs/u1/results", params={"status": "skipped",
                                                   "evaluator": "numeric"}).json()
    assert sorted(r["item_id"] for r in rows["rows"]) == ["b", "d", "f"]
    item = ui.get("/runs/u1/items/b").text
    assert '<span class="status-skipped">(skipped)</span>' in item
    assert item.count("review this score") == 2  # exact and short; nothing to review in numeric
    refused = ui.post("/api/runs/u1/reviews", json={
        "item_id": "b", "evaluator": "numeric", "score": 1, "reason": "r", "reviewer": "x"})
    assert refused.status_code == 400
    assert "numeric does not apply to item 'b' in run 'u1' (skipped)" in refused.text
    report = cli("report", "u1", "--out", "r.html", "--db", "sqlite:///u.db", cwd=project)
    assert report.returncode == 0, report.stderr
    html = (project / "r.html").read_text("utf-8")
    assert ">skipped</th>" in html and "not applicable: when: {reference: number} does not " \
                                       "hold" in html


def test_the_error_lines_docs_quote_are_the_real_ones(tmp_path: Path) -> None:
    """docs/evaluators.md, Mixed datasets: each `error:` line it shows, made by a spec."""
    from tests.conftest import ROOT

    doc = (ROOT / "docs" / "evaluators.md").read_text("utf-8")
    section = doc.split("## Mixed datasets")[1].split("\n## ")[0]
    quoted = [line.strip().removeprefix("error: ") for line in section.splitlines()
              if line.strip().startswith("error: spec.yaml")]
    assert len(quoted) == 4
    (tmp_path / "data.jsonl").write_text(json.dumps(
        {"id": "q1", "input": "?", "reference_output": "1", "category": "a"}) + "\n", "utf-8")
    head = "name: docs\ndataset: data.jsonl\ntarget: {name: rec, type: recorded}\n\n\n\n"
    specs = [
        "evaluators:\n  - exact\n  - {name: numeric, when: {reference: nmber}}\n",
        "evaluators:\n  - exact\n  - {name: numeric, when: {feild: category}}\n",
        "evaluators:\n  - exact\n  - numeric\n"
        "  - {name: contains, args: {expected: x}, when: {field: category, equals: a, "
        "in: [b]}}\n",
        "evaluators:\n  - exact\n  - numeric\n"
        "  - {name: contains, args: {expected: x}, when: {field: categry}}\n"]
    got = []
    for body in specs:
        (tmp_path / "spec.yaml").write_text(head + body, "utf-8")
        done = cli("run", "spec.yaml", "--db", "sqlite:///d.db", cwd=tmp_path)
        assert done.returncode == 2
        got.append(done.stderr.strip().removeprefix("error: "))
    assert got == quoted
