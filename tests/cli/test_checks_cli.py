"""The built-in checks and custom python checks through the command (run in this process:
tests/invoke.py), as a user runs them: `assay score -e NAME --arg k=v`, `--field
reference_output=COLUMN`, a spec's `{name, args}` / `{python: FILE:FUNCTION}` entries in `assay
run`, replay noticing changed code, and the one-line errors (no traceback) for every wiring
mistake."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from assay.runner.spec import parse_spec
from tests.cli.test_score_cli import assay

ITEMS = [
    {"id": "a", "prompt": "茅台收盘价", "reference_output": "1,455.00元", "gold": "1455",
     "response": "收盘价为１，４５５．００元"},
    {"id": "b", "prompt": "营收", "reference_output": "1.2亿", "gold": "120000000",
     "response": "约120,000,000元"},
    {"id": "c", "prompt": "代码", "reference_output": "ＡＡＰＬ", "gold": "AAPL",
     "response": "aapl"},
]
CHECKS = """\
import re, unicodedata


def price_ok(item, answer, tolerance=0.0):
    digits = re.sub(r"[^0-9.]", "", unicodedata.normalize("NFKC", answer))
    return abs(float(digits) - float(item["gold"])) <= tolerance


def boom(item, answer):
    raise ValueError("价格缺失 " + item["id"])


def wrong(item, answer):
    return "yes"
"""


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "items.jsonl").write_text(
        "".join(json.dumps(it, ensure_ascii=False) + "\n" for it in ITEMS), "utf-8")
    (tmp_path / "checks.py").write_text(CHECKS, "utf-8")
    return tmp_path


def scores(path: Path) -> dict[tuple[str, str], tuple[object, str]]:
    rows = [json.loads(x) for x in path.read_text("utf-8").splitlines()]
    return {(r["item_id"], r["evaluator"]): (r["score"], r["status"]) for r in rows}


def test_score_with_builtin_checks_and_args(project: Path) -> None:
    out = project / "s.jsonl"
    r = assay("score", "items.jsonl", "--id-field", "id", "-e", "numeric", "-e", "exact",
              "--arg", "numeric.rel=0.001", "--arg", "exact.fullwidth=true",
              "--arg", "exact.ignore_case=true", "-q", "--out", str(out), cwd=project)
    assert r.returncode == 0, r.stderr
    got = scores(out)
    # numeric reads full-width digits, 亿 and separators; "ＡＡＰＬ" states no number
    assert got[("a", "numeric")] == (1, "scored")
    assert got[("b", "numeric")] == (1, "scored")
    assert got[("c", "numeric")] == (None, "error")
    # exact folds full-width and case on both sides
    assert got[("c", "exact")] == (1, "scored")
    assert got[("a", "exact")] == (0, "scored")
    assert "numeric on items (3 items)" in r.stdout and "exact on items (3 items)" in r.stdout
    first = json.loads(out.read_text("utf-8").splitlines()[0])
    assert first["reason"] == "1,455.00 is within tolerance of 1,455.00"


def test_field_maps_another_column_to_the_reference(project: Path) -> None:
    out = project / "s.jsonl"
    r = assay("score", "items.jsonl", "--id-field", "id", "-e", "exact",
              "--field", "reference_output=gold", "-q", "--out", str(out), cwd=project)
    assert r.returncode == 0, r.stderr
    assert scores(out)[("c", "exact")] == (0, "scored")  # "aapl" is not "AAPL"
    r = assay("score", "items.jsonl", "--id-field", "id", "-e", "contains",
              "--field", "reference_output=nowhere", "-q", cwd=project)
    assert r.returncode != 0
    assert "no column 'nowhere' (mapped by --field reference_output=nowhere)" in r.stderr
    r = assay("score", "items.jsonl", "--id-field", "id", "-e", "regex", "--arg",
              "pattern=^[0-9０-９,，.．元约]+$", "-q", "--out", str(out), cwd=project)
    assert r.returncode == 0, r.stderr
    assert [v for (_, _), v in sorted(scores(out).items())] == [
        (0, "scored"), (1, "scored"), (0, "scored")]  # "收盘价为…" has letters first


def test_python_check_scores_errors_and_replays(project: Path) -> None:
    out = project / "s.jsonl"
    r = assay("score", "items.jsonl", "--id-field", "id", "-e", "python:checks.py:price_ok",
              "--arg", "price_ok.tolerance=0.5", "-e", "python:checks.py:boom", "-q", "--out",
              str(out), cwd=project)
    assert r.returncode == 0, r.stderr
    got = scores(out)
    assert [got[(i, "price_ok")] for i in "abc"] == [(1, "scored"), (1, "scored"),
                                                     (None, "error")]
    lines = [json.loads(x) for x in out.read_text("utf-8").splitlines()]
    boom = next(x for x in lines if x["evaluator"] == "boom" and x["item_id"] == "a")
    assert (boom["status"], boom["reason"]) == ("error", "boom raised ValueError: 价格缺失 a "
                                                "(line 10)")
    run_id = r.stdout.split("run ")[-1].split()[0]
    # the manifest keeps the entry with the file made absolute, so a resume finds it anywhere
    with sqlite3.connect(project / ".assay" / "assay.db") as db:
        manifest = json.loads(db.execute("SELECT manifest FROM runs").fetchone()[0])
    assert manifest["spec"]["evaluators"][0] == {"python": f"{project}/checks.py:price_ok",
                                                 "args": {"tolerance": 0.5}}
    assert manifest["evaluators"][0]["built"]["args"] == {
        "path": f"{project}/checks.py", "function": "price_ok", "args": {"tolerance": 0.5}}
    resumed = parse_spec(manifest["spec"], Path(manifest["spec_path"]))
    assert resumed.evaluators[0].args["path"] == f"{project}/checks.py"
    r = assay("replay", run_id, cwd=project)
    assert r.returncode == 0, r.stdout + r.stderr
    # the code changes: replay rebuilds it from the record, and says so
    (project / "checks.py").write_text(CHECKS.replace("<= tolerance", "> tolerance"), "utf-8")
    r = assay("replay", run_id, cwd=project)
    assert r.returncode == 1
    row = next(line for line in r.stdout.splitlines() if "price_ok" in line and "│" in line)
    assert "evaluator version changed since the run" in row


@pytest.mark.parametrize(("evaluator", "message"), [
    ("python:missing.py:f", "error: evaluators[0].python: python evaluator {p}/missing.py:f: "
     "no such file {p}/missing.py"),
    ("python:checks.py:price", "error: evaluators[0].python: python evaluator "
     "{p}/checks.py:price: {p}/checks.py defines no 'price' (it defines: boom, price_ok, "
     "wrong)"),
    ("python:checks.py:wrong", "error: python evaluator {p}/checks.py:wrong returned str "
     "'yes'; it must return a bool, a finite number or an assay Score"),
    ("python:syntax.py:f", "error: evaluators[0].python: {p}/syntax.py:2: syntax error in "
     "python evaluator {p}/syntax.py:f: invalid syntax"),
])
def test_python_check_load_errors_are_one_line(project: Path, evaluator: str,
                                               message: str) -> None:
    (project / "syntax.py").write_text("def f(item, answer):\n    return = 1\n", "utf-8")
    r = assay("score", "items.jsonl", "--id-field", "id", "-e", evaluator, "-q", cwd=project)
    assert r.returncode == 2
    assert r.stderr.strip() == message.replace("{p}", str(project))
    assert "Traceback" not in r.stderr


def test_bad_builtin_args_are_one_line(project: Path) -> None:
    r = assay("score", "items.jsonl", "--id-field", "id", "-e", "regex", "--arg",
              "pattern=([0-9]", "-q", cwd=project)
    assert (r.returncode, r.stderr.strip()) == (2, (
        "error: evaluators[0].args: evaluator 'regex': pattern '([0-9]' is not a valid regular "
        "expression: missing ), unterminated subpattern at position 0"))
    r = assay("score", "items.jsonl", "--id-field", "id", "-e", "numeric", "--arg",
              "tol=0.1", "-q", cwd=project)
    assert (r.returncode, r.stderr.strip()) == (2, (
        "error: evaluators[0].args: evaluator 'numeric': unknown option 'tol' (known: "
        "expected, abs, rel, pick, only_numbers, label)"))


def test_run_a_spec_with_checks_relative_to_its_folder(project: Path) -> None:
    sub = project / "evals"
    sub.mkdir()
    (project / "checks.py").rename(sub / "checks.py")
    (sub / "schema.json").write_text('{"type": "string"}', "utf-8")
    (sub / "spec.yaml").write_text("""\
name: checks
dataset: {path: ../items.jsonl, id_field: id}
targets: [{name: rec, type: recorded}]
evaluators:
  - {name: numeric, args: {rel: 0.001}}
  - {name: contains, args: {expected: 元}, label: has-yuan}
  - {name: length, args: {max: 10, unit: words}}
  - {python: checks.py:price_ok, args: {tolerance: 0.5}}
""", "utf-8")
    out = project / "r.jsonl"
    r = assay("run", "evals/spec.yaml", "-q", cwd=project)
    assert r.returncode == 0, r.stderr
    run_id = next(w for w in r.stdout.split() if w.startswith("r-"))
    r = assay("export", run_id, "--format", "jsonl", "--out", str(out), cwd=project)
    if r.returncode != 0:  # export's flags differ: read the summary instead
        pytest.fail(r.stderr)
    rows = [json.loads(x) for x in out.read_text("utf-8").splitlines()]
    got = {(x["item_id"], x["evaluator"]): x["score"] for x in rows}
    assert got[("a", "has-yuan")] == 1 and got[("c", "has-yuan")] == 0
    assert got[("a", "price_ok")] == 1 and got[("b", "numeric")] == 1
    assert got[("a", "length")] == 1  # 收盘价为 + 1,455.00 + 元: 6 words
    # rebuilt from their records (the label and args too), every score reproduces
    r = assay("replay", run_id, cwd=project)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "has-yuan" in r.stdout
    # -e on `assay run` replaces the spec's evaluators; a python check is relative to the cwd
    r = assay("run", "evals/spec.yaml", "-e", "python:evals/checks.py:boom", "-q", cwd=project)
    assert r.returncode == 0, r.stderr
    assert "boom on checks (3 items)" in r.stdout  # the spec is named checks


def test_list_and_show_the_checks(project: Path) -> None:
    r = assay("evaluators", "list", cwd=project)
    assert r.returncode == 0, r.stderr
    flat = " ".join(r.stdout.split())
    for name in ("exact", "contains-all", "contains-any", "regex", "numeric", "json-valid",
                 "json-schema", "length", "similarity", "python"):
        assert f"│ {name} " in r.stdout, name
    assert "pattern*" in flat  # options, * for a required one
    r = assay("evaluators", "show", "numeric", cwd=project)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("numeric (code evaluator, version ")
    assert "abs: absolute tolerance (default 0)" in r.stdout
