"""tests/invoke.py: the `assay` command run in this process answers as its process does (exit
code, stdout, stderr), fails as the interpreter would, and leaves the interpreter as it found
it — so that a CLI test moved in-process still tests the command, and never the test before."""

from __future__ import annotations

import logging
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import assay.core.calls as calls
from tests.conftest import SAMPLE
from tests.invoke import assay_in_process, assay_process, cli_env

CASES = [["--version"], ["evaluators", "list"], ["evaluators", "show", "coze-qualty"],
         ["score", "missing.json"],
         ["score", str(SAMPLE), "--evaluator", "finance-rubric", "--quiet", "--out", "."],
         ["runs", "--db", "nope://x"], ["nonsense"]]


@pytest.mark.process  # the entry point's process, to compare with
@pytest.mark.parametrize("args", CASES, ids=[" ".join(a[:2]) for a in CASES])
def test_in_process_answers_as_the_process_does(tmp_path: Path, args: list[str]) -> None:
    here = assay_in_process(*args, cwd=tmp_path)
    there = assay_process(*args, cwd=tmp_path)
    assert (here.returncode, here.stdout, here.stderr) == \
        (there.returncode, there.stdout, there.stderr)


def snapshot() -> tuple[object, ...]:
    root = logging.getLogger()
    return (os.getcwd(), dict(os.environ), list(sys.path), sys.modules["__main__"],
            signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM),
            list(root.handlers), root.level, sys.stdin, sys.stdout, sys.stderr, sys.argv)


def imported_from(folder: Path) -> list[str]:
    return [name for name, m in list(sys.modules.items())
            if str(getattr(m, "__file__", None) or "").startswith(str(folder))]


AGENT = "def answer(item):\n    return {!r}\n\nasync def answer_async(item):\n    return {!r}\n"


def answers(project: Path) -> list[str]:
    with sqlite3.connect(project / ".assay" / "assay.db") as db:
        return [t for (t,) in db.execute("SELECT text FROM answers ORDER BY rowid")]


def test_a_call_leaves_the_interpreter_as_it_found_it(tmp_path: Path) -> None:
    """A Python target and a check from the project's folder, async user code, an environment
    of its own: afterwards the working directory, environment, sys.path, modules, signal
    handlers, logging and streams are as before, and no loop of user code is kept."""
    (tmp_path / "items.jsonl").write_text('{"id": "a", "prompt": "q"}\n', "utf-8")
    (tmp_path / "agents.py").write_text(AGENT.format("first", "first"), "utf-8")
    (tmp_path / "checks.py").write_text("import os\n\ndef ok(item, answer):\n"
                                        "    return os.environ['ONLY_IN_THE_CALL'] == '1'\n",
                                        "utf-8")
    (tmp_path / "s.yaml").write_text(
        "dataset: {path: items.jsonl, id_field: id}\n"
        "targets: [{name: fn, type: python, function: 'agents:answer'},\n"
        "          {name: fa, type: python, function: 'agents:answer_async'}]\n"
        "evaluators: [{python: 'checks.py:ok'}]\n", "utf-8")
    before = snapshot()
    r = assay_in_process("run", "s.yaml", "--quiet", cwd=tmp_path,
                         env=cli_env({"ONLY_IN_THE_CALL": "1"}))
    assert r.returncode == 0, r.stderr
    assert snapshot() == before and "ONLY_IN_THE_CALL" not in os.environ
    assert imported_from(tmp_path) == [] and "agents" not in sys.modules
    assert calls._user_loop is None
    with sqlite3.connect(tmp_path / ".assay" / "assay.db") as db:
        assert db.execute("SELECT DISTINCT reason FROM results").fetchall() == [
            ("ok returned True",)]
    # the next call imports the module as it is now, as a new process would
    (tmp_path / "agents.py").write_text(AGENT.format("second!", "second!"), "utf-8")
    r = assay_in_process("run", "s.yaml", "--quiet", cwd=tmp_path,
                         env=cli_env({"ONLY_IN_THE_CALL": "1"}))
    assert r.returncode == 0, r.stderr
    assert answers(tmp_path) == ["first", "first", "second!", "second!"]


def test_what_escapes_main_is_a_traceback_and_exit_1(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    def app() -> None:
        print("on stdout")
        raise RuntimeError("escaped")

    monkeypatch.setattr("assay.cli.main.app", app)
    r = assay_in_process("runs", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (1, "on stdout\n")
    assert r.stderr.startswith("Traceback (most recent call last):\n")
    assert r.stderr.endswith("RuntimeError: escaped\n")


def test_a_call_past_its_timeout_raises_as_subprocess_run_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("assay.cli.main.app", lambda: time.sleep(30))
    before = snapshot()
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        assay_in_process("runs", cwd=tmp_path, timeout=0.2)
    assert time.monotonic() - started < 10
    assert snapshot() == before
