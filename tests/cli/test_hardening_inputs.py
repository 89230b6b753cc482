"""Hardening of inputs and outputs (issue 13) through the command (run in this process,
tests/invoke.py): review scores, files that are not text, empty files, ids, registry fields,
and CSV cells a spreadsheet would run as formulas."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import pytest

from tests.invoke import assay_in_process

BINARY = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`assay ARGS` in this process, in `cwd`, with this environment but for ASSAY_DB and
    ASSAY_MODELS."""
    return assay_in_process(*args, cwd=cwd)


def one_line(r: subprocess.CompletedProcess[str]) -> str:
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    return lines[0]


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")


ROW = {"prompt": "贵州茅台最新股价", "response": "最新价1455.00元",
       "response_reference": "必答点：最新股价", "ground_truth": '{"最新价": "1455.0"}'}


# ---- 5. review scores ----------------------------------------------------------------------

def test_a_review_score_is_checked_in_the_cli(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "items.jsonl", [{**ROW, "prompt_id": "p1"}])
    r = run("score", "items.jsonl", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    run_id = r.stdout.split("run ")[-1].split()[0]
    for bad in ("nan", "inf", "-inf", "-5", "7"):
        r = run("review", run_id, "p1", "-e", "finance-rubric", "--score", bad, "--reason",
                "x", "--reviewer", "li", cwd=tmp_path)
        assert r.returncode == 2
        assert one_line(r).startswith("error: finance-rubric scores from 0 to 1: ")
    r = run("review", run_id, "p1", "-e", "finance-rubric", "--score", "0", "--reason", "x",
            "--reviewer", "li", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = run("show", run_id, cwd=tmp_path)
    assert r.returncode == 0 and "inf" not in r.stdout and "0.000" in r.stdout


# ---- 8. files that are not text --------------------------------------------------------------

def test_a_spec_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "spec.yaml").write_bytes(BINARY)
    r = run("run", "spec.yaml", cwd=tmp_path)
    assert r.returncode == 2
    assert one_line(r).startswith("error: spec.yaml: not UTF-8 text (")


def test_a_binary_models_registry_is_one_line_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "assay-models.yaml").write_bytes(BINARY)
    for args in (("models", "list"), ("models", "remove", "m"),
                 ("models", "add", "m", "--base-url", "http://127.0.0.1:9/v1", "--model", "x")):
        r = run(*args, cwd=tmp_path)
        assert r.returncode == 2, args
        assert one_line(r).startswith("error: assay-models.yaml: not UTF-8 text ("), args
    write_jsonl(tmp_path / "items.jsonl", [{**ROW, "prompt_id": "p1"}])
    (tmp_path / "spec.yaml").write_text(
        "dataset: items.jsonl\ntargets: [{name: t, type: model, model: m}]\n"
        "evaluators: [finance-rubric]\n", "utf-8")
    r = run("run", "spec.yaml", cwd=tmp_path)  # the file is blamed, not the target
    assert r.returncode == 2
    assert one_line(r).startswith("error: assay-models.yaml: not UTF-8 text (")


# ---- 10. inconsistent input handling ---------------------------------------------------------

@pytest.mark.parametrize("name, body", [("empty.jsonl", ""), ("blank.jsonl", "\n\n"),
                                        ("empty.csv", ""), ("header.csv", "prompt,response\n"),
                                        ("empty.json", "[]")])
def test_a_file_without_items_is_an_error_in_every_format(tmp_path: Path, name: str,
                                                          body: str) -> None:
    (tmp_path / name).write_text(body, "utf-8")
    r = run("score", name, cwd=tmp_path)
    assert r.returncode == 3
    assert one_line(r) == f"error: {name}: no items in the file"


def test_items_without_prompt_id_beside_real_ids_are_an_error(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "mixed.jsonl", [{**ROW, "prompt_id": "p1"}, ROW,
                                           {**ROW, "prompt_id": "p3"}])
    r = run("score", "mixed.jsonl", cwd=tmp_path)
    assert r.returncode == 3
    assert one_line(r) == (
        "error: mixed.jsonl:2: field 'prompt_id': missing or empty, while other items have "
        "one (line 1): give every item a prompt_id, or choose the id field (--id-field, or "
        "id_field in a spec)")
    # none has one: content hashes, as documented; or an explicit id field
    write_jsonl(tmp_path / "none.jsonl", [ROW, {**ROW, "prompt": "另一个问题"}])
    assert run("score", "none.jsonl", cwd=tmp_path).returncode == 0
    write_jsonl(tmp_path / "own.jsonl", [{**ROW, "prompt_id": "p1", "k": "a"},
                                         {**ROW, "k": "b"}])
    assert run("score", "own.jsonl", "--id-field", "k", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("field, value, what", [
    ("max_concurrency", '"many"', "an integer"), ("timeout_s", "[1]", "a number"),
    ("params", '"temperature=0"', "a mapping"), ("stream", '"yes"', "true or false"),
    ("max_retries", "true", "an integer")])
def test_a_registry_field_of_the_wrong_type_is_named(tmp_path: Path, field: str, value: str,
                                                     what: str) -> None:
    (tmp_path / "assay-models.yaml").write_text(
        "models:\n  m:\n    base_url: http://127.0.0.1:9/v1\n    model: x\n"
        f"    {field}: {value}\n", "utf-8")
    r = run("models", "list", cwd=tmp_path)
    assert r.returncode == 2
    assert one_line(r).startswith(f"error: assay-models.yaml: model 'm': field '{field}' "
                                  f"must be {what}, not ")


def test_the_csv_export_never_writes_a_formula(tmp_path: Path) -> None:
    answers = ["=HYPERLINK(\"http://evil.example\",\"1455\")", "+1455", "-1455", "@SUM(A1)",
               "\t=1+1", "最新价1455.00元"]
    write_jsonl(tmp_path / "items.jsonl", [{**ROW, "prompt_id": f"p{i}", "response": a}
                                           for i, a in enumerate(answers)])
    r = run("score", "items.jsonl", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    run_id = r.stdout.split("run ")[-1].split()[0]
    r = run("export", run_id, "-f", "csv", "-o", "out.csv", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    with (tmp_path / "out.csv").open(encoding="utf-8-sig", newline="") as fh:
        got = {row["item_id"]: row["answer"] for row in csv.DictReader(fh)}
    assert [got[f"p{i}"] for i in range(len(answers))] == [
        "'" + a for a in answers[:5]] + ["最新价1455.00元"]


# ---- review of issue 27: identifiers and NULs at one boundary (H4, L8, M9) ----------------

def test_an_item_id_over_255_characters_is_one_line_before_the_run(tmp_path: Path) -> None:
    """L8: PostgreSQL's varchar(255) ended `score` mid-run with a traceback; SQLite took it."""
    write_jsonl(tmp_path / "d.jsonl", [{**ROW, "prompt_id": "x" * 256}])
    r = run("score", "d.jsonl", "--quiet", cwd=tmp_path)
    assert r.returncode == 3  # a data error
    assert "item id 'xxxxx" in one_line(r) and "is over 255 characters" in one_line(r)


@pytest.mark.parametrize("spec, field", [
    ("name: n\ndescription: \"d\\0\"\n", "description"),
    ("name: \"n\\0\"\n", "name"),
    ("name: n\nevaluators: [{python: chk.py:ok, args: {a: \"\\0\"}}]\n", "evaluators[0].args.a"),
])
def test_a_nul_in_a_run_spec_is_refused_in_one_line(tmp_path: Path, spec: str,
                                                    field: str) -> None:
    """M9: a NUL in a spec's name, description or check args was a SQL traceback on
    PostgreSQL (stored raw on SQLite)."""
    write_jsonl(tmp_path / "d.jsonl", [ROW])
    (tmp_path / "chk.py").write_text("def ok(item, answer, **kw):\n    return True\n", "utf-8")
    (tmp_path / "s.yaml").write_text(
        spec + ("" if "evaluators" in spec else "evaluators: [finance-rubric]\n")
        + "dataset: d.jsonl\ntargets: [{name: r, type: recorded}]\n", "utf-8")
    r = run("run", "s.yaml", "--quiet", cwd=tmp_path)
    assert r.returncode == 2
    line = one_line(r)
    assert "holds a NUL character (\\0), which no store keeps: remove it" in line, line
    assert line.startswith("error: s.yaml:") and f": {field}: " in line, line


def test_a_nul_in_a_watch_spec_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "w.yaml").write_text('name: "w\\0"\nsource: {otlp: "127.0.0.1:0"}\n'
                                     "evaluators: [finance-rubric]\n", "utf-8")
    r = run("watch", "w.yaml", cwd=tmp_path)
    assert r.returncode == 2
    assert one_line(r).endswith("name: holds a NUL character (\\0), which no store keeps: "
                                "remove it")
