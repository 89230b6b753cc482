"""Outputs never destroy inputs (issue 27): `--out`, `export -o`, `report -o` and `--junit` naming
the dataset, the recorded answers or the SQLite store are refused in one line (exit 2) with the
input untouched; outputs are written to a temporary file and renamed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import threading
from pathlib import Path

import pytest

from tests.cli.test_hardening_numbers import cli
from tests.conftest import SAMPLE, wait_for_results
from tests.invoke import ASSAY, cli_env

Cap = pytest.CaptureFixture[str]
MP = pytest.MonkeyPatch


@pytest.fixture()
def here(tmp_path: Path, monkeypatch: MP) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSAY_DB", raising=False)
    shutil.copy(SAMPLE, tmp_path / "d.json")
    return tmp_path


def scored(capsys: Cap, monkeypatch: MP, *args: str) -> str:
    """A score run of d.json in the default store; its run id."""
    code, err = cli(capsys, monkeypatch, "score", "d.json", "--quiet", *args)
    assert code == 0, err
    with sqlite3.connect(Path.cwd() / ".assay" / "assay.db") as db:
        return str(db.execute("SELECT id FROM runs ORDER BY created_at DESC").fetchone()[0])


@pytest.mark.parametrize("args, message", [
    (["--out", "d.json"], "error: --out d.json is the dataset: writing it would destroy it; "
                          "write the output to another file"),
    (["--out", "sub/../d.json"], "error: --out sub/../d.json is the dataset: writing it would "
                                 "destroy it; write the output to another file"),
    (["--out", "link.json"], "error: --out link.json is the dataset: writing it would destroy "
                             "it; write the output to another file"),
    (["--junit", ".assay/assay.db"], "error: --junit .assay/assay.db is the store: writing it "
                                     "would destroy it; write the output to another file"),
    (["--out", "r.jsonl", "--junit", "r.jsonl"], "error: --junit r.jsonl is --out: writing it "
                                                 "would destroy it; write the output to another "
                                                 "file"),
])
def test_score_refuses_an_output_that_is_an_input(here: Path, args: list[str], message: str,
                                                  capsys: Cap, monkeypatch: MP) -> None:
    (here / "sub").mkdir()
    (here / "link.json").symlink_to(here / "d.json")
    scored(capsys, monkeypatch)  # the store exists
    store = (here / ".assay" / "assay.db").read_bytes()
    code, err = cli(capsys, monkeypatch, "score", "d.json", "--quiet", *args)
    assert (code, err) == (2, message)
    assert (here / "d.json").read_bytes() == SAMPLE.read_bytes()
    assert (here / ".assay" / "assay.db").read_bytes() == store
    assert not (here / "r.jsonl").exists()


def test_score_refuses_out_on_its_recorded_answers(here: Path, capsys: Cap,
                                                   monkeypatch: MP) -> None:
    (here / "answers.jsonl").write_text("", "utf-8")
    code, err = cli(capsys, monkeypatch, "score", "d.json", "--responses", "answers.jsonl",
                    "--out", "answers.jsonl")
    assert code == 2 and err.startswith("error: --out answers.jsonl is the recorded answers")


def test_export_report_and_compare_refuse_the_store(here: Path, capsys: Cap,
                                                    monkeypatch: MP) -> None:
    run = scored(capsys, monkeypatch)
    store = (here / ".assay" / "assay.db").read_bytes()
    for args in (["export", run, "--format", "csv", "-o", ".assay/assay.db"],
                 ["report", run, "-o", ".assay/assay.db"],
                 ["compare", run, run, "--junit", ".assay/assay.db"]):
        code, err = cli(capsys, monkeypatch, *args)
        option = "--junit" if args[0] == "compare" else "--out"
        assert (code, err) == (2, f"error: {option} .assay/assay.db is the store: writing it "
                                  "would destroy it; write the output to another file"), args
    assert (here / ".assay" / "assay.db").read_bytes() == store


def test_run_refuses_junit_on_its_dataset(here: Path, capsys: Cap, monkeypatch: MP) -> None:
    (here / "s.yaml").write_text("dataset: d.json\ntargets: [{name: r, type: recorded}]\n"
                                 "evaluators: [finance-rubric]\n", "utf-8")
    code, err = cli(capsys, monkeypatch, "run", "s.yaml", "--junit", "d.json")
    assert (code, err[:40]) == (2, "error: --junit d.json is the dataset: wr")
    assert (here / "d.json").read_bytes() == SAMPLE.read_bytes()


def test_outputs_are_renamed_into_place_and_a_failed_run_keeps_the_old_file(
        here: Path, capsys: Cap, monkeypatch: MP) -> None:
    # --out is a JSON-lines file written in place (a resume appends to it); --junit, export
    # and report are written whole by rename
    (here / "j.xml").write_text("keep me\n", "utf-8")
    code, err = cli(capsys, monkeypatch, "score", "d.json", "--quiet", "-e", "no-such-check",
                    "--junit", "j.xml")
    assert code == 2 and "no-such-check" in err
    assert (here / "j.xml").read_text("utf-8") == "keep me\n"
    run = scored(capsys, monkeypatch, "--out", "r.jsonl", "--junit", "j.xml")
    lines = (here / "r.jsonl").read_text("utf-8").splitlines()
    assert len(lines) == len(json.loads(SAMPLE.read_text("utf-8")))
    assert json.loads(lines[0])["evaluator"] == "finance-rubric"
    assert (here / "j.xml").read_text("utf-8").startswith("<?xml")
    code, _ = cli(capsys, monkeypatch, "export", run, "--format", "csv", "-o", "e.csv")
    assert code == 0 and (here / "e.csv").stat().st_size > 0
    assert not [p for p in os.listdir(here) if ".tmp" in p]  # no temporary file left behind


# ---- review of issue 27 -----------------------------------------------------------------------

def assay(*args: str, cwd: Path) -> subprocess.Popen[str]:
    """`assay ARGS` started as a process of the installed entry point (to be killed)."""
    return subprocess.Popen([ASSAY, *args], cwd=cwd, env=cli_env(), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.process  # kill -9
def test_out_after_kill_9_and_resume_holds_every_result_once(here: Path) -> None:
    """H1: the first run's lines are in --out as they are stored (no temporary file orphaned
    by `kill -9`), and the resume appends the rest: one line per item, the old content gone."""
    (here / "checks.py").write_text("import time\n\ndef slow(item, answer, **kw):\n"
                                    "    time.sleep(0.05)\n    return True\n", "utf-8")
    (here / "r.jsonl").write_text("OLD CONTENT\n", "utf-8")
    first = assay("score", "d.json", "-e", "python:checks.py:slow", "--quiet", "--out",
                  "r.jsonl", cwd=here)
    db = here / ".assay" / "assay.db"
    assert wait_for_results(db, 5) >= 5
    first.send_signal(signal.SIGKILL)
    first.wait(10)
    with sqlite3.connect(db) as conn:
        (run_id,) = conn.execute("SELECT id FROM runs").fetchone()
        stored = conn.execute("SELECT count(*) FROM results").fetchone()[0]
    assert 0 < stored < 99
    resume = assay("score", "--resume", run_id, "--quiet", "--out", "r.jsonl", cwd=here)
    _, err = resume.communicate(timeout=120)
    assert resume.returncode == 0, err
    ids = [json.loads(line)["item_id"] for line in
           (here / "r.jsonl").read_text("utf-8").splitlines()]
    assert len(ids) == len(set(ids)) == len(json.loads(SAMPLE.read_text("utf-8")))
    assert not [p for p in os.listdir(here) if ".tmp" in p]


def test_outputs_follow_symlinks_keep_permissions_and_never_use_a_predictable_name(
        here: Path, capsys: Cap, monkeypatch: MP) -> None:
    """L2: a symlink's target is written (the link stays a link); the old file's mode is
    kept; a link planted at the old predictable temporary name is not followed."""
    run = scored(capsys, monkeypatch)
    (here / "real").mkdir()
    (here / "real" / "target.jsonl").write_text("old\n", "utf-8")
    (here / "link.jsonl").symlink_to(here / "real" / "target.jsonl")
    (here / "victim").write_text("victim\n", "utf-8")
    (here / f".e.{os.getpid()}.tmp.jsonl").symlink_to(here / "victim")
    (here / "priv.html").write_text("secret\n", "utf-8")
    (here / "priv.html").chmod(0o600)
    assert cli(capsys, monkeypatch, "export", run, "--format", "jsonl", "-o", "link.jsonl")[0] == 0
    assert cli(capsys, monkeypatch, "export", run, "--format", "jsonl", "-o", "e.jsonl")[0] == 0
    assert cli(capsys, monkeypatch, "report", run, "-o", "priv.html")[0] == 0
    assert (here / "link.jsonl").is_symlink()
    assert (here / "real" / "target.jsonl").read_text("utf-8").count("\n") > 1
    assert (here / "victim").read_text("utf-8") == "victim\n"
    assert not (here / "e.jsonl").is_symlink() and (here / "e.jsonl").stat().st_size > 10
    assert (here / "priv.html").stat().st_mode & 0o777 == 0o600
    assert "<html" in (here / "priv.html").read_text("utf-8").lower()


def test_a_fifo_output_is_written_in_place(here: Path, capsys: Cap, monkeypatch: MP) -> None:
    """H3: a FIFO (as a device or /dev/stdout) is written, never replaced by a file."""
    run = scored(capsys, monkeypatch)
    os.mkfifo(here / "pipe.jsonl")
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append((here / "pipe.jsonl").read_bytes()),
                              daemon=True)
    reader.start()
    code, err = cli(capsys, monkeypatch, "export", run, "--format", "jsonl", "-o", "pipe.jsonl")
    reader.join(10)
    assert code == 0, err
    assert stat.S_ISFIFO(os.lstat(here / "pipe.jsonl").st_mode)
    assert got and got[0].count(b"\n") == len(json.loads(SAMPLE.read_text("utf-8")))


@pytest.mark.parametrize("args, message", [
    (["--out", "sub"], "error: --out sub is a folder: name a file to write"),
    (["--out", "."], "error: --out . is a folder: name a file to write"),
    (["--junit", "."], "error: --junit . is a folder: name a file to write"),
])
def test_a_folder_output_is_refused_before_the_run(here: Path, args: list[str], message: str,
                                                   capsys: Cap, monkeypatch: MP) -> None:
    """M3, L1: refused in one line before anything runs, with no temporary file left."""
    (here / "sub").mkdir()
    code, err = cli(capsys, monkeypatch, "score", "d.json", "--quiet", *args)
    assert (code, err) == (2, message)
    assert not (here / ".assay" / "assay.db").exists() or not sqlite3.connect(
        here / ".assay" / "assay.db").execute("SELECT count(*) FROM runs").fetchone()[0]
    assert not [p for p in os.listdir(here) if ".tmp" in p]
    assert not os.listdir(here / "sub")
    code, err = cli(capsys, monkeypatch, "export", "nope", "--format", "csv", "-o", "sub")
    assert code == 2 and "sub" in err and "\n" not in err


def test_outputs_naming_code_the_run_reads_are_refused_also_on_resume(
        here: Path, capsys: Cap, monkeypatch: MP) -> None:
    """M1, M2: a check's .py, a Python target's module and the models file are inputs too;
    a resumed run's dataset and checks (from its stored spec) are refused as for a fresh run."""
    check = "def ok(item, answer, **kw):\n    return True\n"
    (here / "checks.py").write_text(check, "utf-8")
    (here / "models.yaml").write_text("models: []\n", "utf-8")
    code, err = cli(capsys, monkeypatch, "score", "d.json", "-e", "python:checks.py:ok",
                    "--quiet", "--out", "checks.py")
    assert (code, err) == (2, "error: --out checks.py is the check file "
                              f"{here / 'checks.py'}: writing it would destroy it; write the "
                              "output to another file")
    code, err = cli(capsys, monkeypatch, "score", "d.json", "--quiet", "--models", "models.yaml",
                    "--junit", "models.yaml")
    assert code == 2 and err.startswith("error: --junit models.yaml is the models file")
    run = scored(capsys, monkeypatch, "-e", "python:checks.py:ok")
    for args, what in ((["--out", "d.json"], "the dataset"),
                       (["--junit", "checks.py"], f"the check file {here / 'checks.py'}")):
        code, err = cli(capsys, monkeypatch, "score", "--resume", run, "--quiet", *args)
        assert (code, err.split(": writing")[0]) == (2, f"error: {args[0]} {args[1]} is {what}")
    assert (here / "d.json").read_bytes() == SAMPLE.read_bytes()
    assert (here / "checks.py").read_text("utf-8") == check
    (here / "agent.py").write_text("def answer(item):\n    return 'x'\n", "utf-8")
    (here / "s.yaml").write_text("dataset: d.json\ntargets: [{name: a, type: python, "
                                 "function: 'agent:answer'}]\nevaluators: [finance-rubric]\n",
                                 "utf-8")
    code, err = cli(capsys, monkeypatch, "run", "s.yaml", "--junit", "agent.py")
    assert (code, err.split(": writing")[0]) == (
        2, "error: --junit agent.py is the module of target 'a'")
