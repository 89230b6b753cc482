"""`--by cause` as a user runs it: `assay run examples/specs/causes.yaml` (each item's stored
cause is its `expected_cause`), `assay show RUN --by cause`, `assay score … --by cause`, and the
one line for a run without finance-cause results."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.cli.test_run_cli import run, run_id_of
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "general" / "causes.jsonl"


def stored_causes(project: Path, run_id: str) -> dict[str, str | None]:
    db = sqlite3.connect(project / ".assay" / "assay.db")
    rows = db.execute("SELECT item_id, evidence FROM results WHERE run_id = ? AND evaluator = "
                      "'finance-cause'", (run_id,)).fetchall()
    return {i: json.loads(e).get("cause") for i, e in rows}


def test_example_spec_gives_each_item_its_cause(tmp_path: Path) -> None:
    r = run("run", str(ROOT / "examples" / "specs" / "causes.yaml"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    run_id = run_id_of(r.stdout)
    expected = {row["id"]: row["expected_cause"] for row in map(
        json.loads, EXAMPLE.read_text("utf-8").splitlines())}
    assert stored_causes(tmp_path, run_id) == expected
    shown = run("show", run_id, "--by", "cause", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "finance-cause by cause" in shown.stdout
    line = next(x for x in shown.stdout.splitlines() if x.startswith("│ recorded "))
    cells = [c.strip() for c in line.strip("│").split("│")]
    # truth_unavailable, right, no_retrieval, wrong_instrument, stale_data, misread, total
    assert cells == ["recorded", "1", "1", "1", "2", "1", "2", "8"]


def test_score_by_cause(tmp_path: Path) -> None:
    r = run("score", str(EXAMPLE), "-e", "finance-cause", "--by", "cause", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "finance-cause by cause" in r.stdout
    assert "wrong_instrument" in r.stdout and "misread" in r.stdout


def test_no_cause_results_is_one_line(tmp_path: Path) -> None:
    r = run("score", str(EXAMPLE), "-e", "finance-rubric", "--by", "cause", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    run_id = run_id_of(r.stdout)
    assert f"run {run_id} has no finance-cause results" in r.stdout.replace("\n", " ")
    shown = run("show", run_id, "--by", "cause", cwd=tmp_path)
    assert shown.returncode == 0
    assert "has no finance-cause results" in shown.stdout.replace("\n", " ")


def test_report_has_a_causes_section(tmp_path: Path) -> None:
    r = run("score", str(EXAMPLE), "-e", "finance-cause", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    run_id = run_id_of(r.stdout)
    out = tmp_path / "report.html"
    rep = run("report", run_id, "--out", str(out), cwd=tmp_path)
    assert rep.returncode == 0, rep.stderr
    html = out.read_text("utf-8")
    assert '<h2 id="causes">Causes</h2>' in html
    assert "<th class=\"n\">wrong_instrument</th>" in html
    r2 = run("score", str(EXAMPLE), "-e", "finance-rubric", cwd=tmp_path)
    out2 = tmp_path / "plain.html"
    assert run("report", run_id_of(r2.stdout), "--out", str(out2), cwd=tmp_path).returncode == 0
    assert 'id="causes"' not in out2.read_text("utf-8")
