"""User code that tries to take the run down with it (issue 27), through the command (run in
this process, tests/invoke.py; as the entry point's process where its exit or a Ctrl-C matters):
`sys.exit()` in a Python target or check is that item's error and the run finishes (it used to
end `assay run` with exit 0, nothing stored, the run left `running`); `timeout_s` ends a check
that hangs, sync or async, as it ends a target."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.cli.test_hardening_run import db_rows, run, run_id_of, run_process, write_items
from tests.conftest import wait_for_results
from tests.invoke import ASSAY, cli_env


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    write_items(tmp_path)
    (tmp_path / "agents.py").write_text(
        "import sys\n\n"
        "def answer(item):\n"
        "    if item['id'] == 'a1':\n"
        "        sys.exit(0)\n"
        "    if item['id'] == 'a2':\n"
        "        raise KeyboardInterrupt  # its own, in its thread: not the user's Ctrl-C\n"
        "    return '最新价1455.00元'\n\n"
        "async def answer_async(item):\n"
        "    if item['id'] == 'a3':\n"
        "        sys.exit(3)\n"
        "    return '最新价1455.00元'\n\n"
        "def fine(item):\n"
        "    return '最新价1455.00元'\n", "utf-8")
    (tmp_path / "checks.py").write_text(
        "import asyncio, sys, time\n\n"
        "def exits(item, answer):\n"
        "    if item['id'] == 'a0':\n"
        "        sys.exit(0)\n"
        "    return True\n\n"
        "def hangs(item, answer):\n"
        "    if item['id'] == 'a1':\n"
        "        time.sleep(3600)\n"
        "    return True\n\n"
        "async def hangs_async(item, answer):\n"
        "    if item['id'] == 'a2':\n"
        "        await asyncio.sleep(3600)\n"
        "    return True\n", "utf-8")
    return tmp_path


def spec(project: Path, function: str, evaluators: str, extra: str = "") -> str:
    (project / "s.yaml").write_text(
        "dataset: {path: items.jsonl, id_field: id}\n"
        f"targets: [{{name: fn, type: python, function: \"agents:{function}\"}}]\n"
        f"evaluators: {evaluators}\n{extra}", "utf-8")
    return "s.yaml"


def test_sys_exit_in_a_target_is_that_items_error(project: Path) -> None:
    r = run("run", spec(project, "answer", "[finance-rubric]"), cwd=project, timeout=60)
    assert r.returncode == 0, r.stderr
    assert dict(db_rows(project, "SELECT item_id, error FROM answers")) == {
        "a0": None, "a1": "called sys.exit(0)", "a2": "KeyboardInterrupt", "a3": None}
    assert db_rows(project, "SELECT status FROM runs") == [("finished",)]
    assert len(db_rows(project, "SELECT * FROM results")) == 4


def test_sys_exit_in_an_async_target_is_that_items_error(project: Path) -> None:
    r = run("run", spec(project, "answer_async", "[finance-rubric]"), cwd=project, timeout=60)
    assert r.returncode == 0, r.stderr
    assert dict(db_rows(project, "SELECT item_id, error FROM answers"))["a3"] == \
        "called sys.exit(3)"
    assert db_rows(project, "SELECT status FROM runs") == [("finished",)]


def test_sys_exit_in_a_check_is_that_items_error(project: Path) -> None:
    r = run("run", spec(project, "answer_async", '[{python: "checks.py:exits"}]'),
            cwd=project, timeout=60)
    assert r.returncode == 0, r.stderr
    got = dict(db_rows(project, "SELECT item_id, reason FROM results"))
    assert got["a0"] == "exits raised SystemExit: 0 (line 5)"
    assert got["a1"] == "exits returned True"
    assert db_rows(project, "SELECT status FROM runs") == [("finished",)]


@pytest.mark.process  # the process exits while the checks still hang
def test_timeout_s_ends_a_check_that_hangs_sync_or_async(project: Path) -> None:
    started = time.monotonic()
    r = run_process("run", spec(project, "fine", '[{python: "checks.py:hangs"}, '
                                                 '{python: "checks.py:hangs_async"}]',
                                "timeout_s: 1\n"), cwd=project, timeout=60)
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - started < 30  # not 3600 s, and the process did not linger
    got = {(i, e): reason for i, e, reason in
           db_rows(project, "SELECT item_id, evaluator, reason FROM results")}
    assert got == {
        **{(f"a{i}", "hangs"): "hangs returned True" for i in (0, 2, 3)},
        **{(f"a{i}", "hangs_async"): "hangs_async returned True" for i in (0, 1, 3)},
        ("a1", "hangs"): "evaluator timeout after 1 s",
        ("a2", "hangs_async"): "evaluator timeout after 1 s"}
    assert db_rows(project, "SELECT status FROM runs") == [("finished",)]


def test_a_check_returning_a_non_finite_or_malformed_score_is_that_items_error(
        project: Path) -> None:
    """H5 (review): Score(nan) / Score(inf) were stored as scored with a NaN mean that passed
    --fail-under and JUnit; now each is that item's error, as a bad status or full_score."""
    (project / "odd.py").write_text(
        "from assay.core.types import Score, ScoreStatus\n\n"
        "def odd(item, answer):\n"
        "    value, status, full = {'a0': (float('nan'), ScoreStatus.SCORED, (0.0, 1.0)),\n"
        "                           'a1': (float('inf'), ScoreStatus.SCORED, (0.0, 1.0)),\n"
        "                           'a2': (1.0, 'weird', (0.0, 1.0)),\n"
        "                           'a3': (1.0, ScoreStatus.SCORED, (0.0, float('nan')))}"
        "[item['id']]\n"
        "    return Score(value, status, 'r', 'x', 'v', full)\n", "utf-8")
    r = run("run", spec(project, "fine", '[{python: "odd.py:odd"}]'), "--fail-under", "0.5",
            "--junit", "j.xml", cwd=project, timeout=60)
    got = {i: (s, st, reason) for i, s, st, reason in
           db_rows(project, "SELECT item_id, score, status, reason FROM results")}
    assert {i: v[:2] for i, v in got.items()} == {f"a{i}": (None, "error") for i in range(4)}
    assert got["a0"][2] == "odd returned a Score with value nan: it must be a finite number"
    assert got["a1"][2] == "odd returned a Score with value inf: it must be a finite number"
    assert got["a2"][2].startswith("odd returned a Score with status 'weird', not one of")
    assert got["a3"][2].startswith("odd returned a Score with full_score (0.0, nan)")
    assert r.returncode != 0, r.stdout
    assert 'errors="4"' in (project / "j.xml").read_text("utf-8")


def test_what_an_async_target_raises_through_the_loop_is_that_items_error(
        project: Path) -> None:
    """H2, M4 (review): sys.exit() from a callback or a task an async target scheduled used to
    end `asyncio.run` (exit 0, nothing stored, the run left `running`); a BaseException of its
    own or a CancelledError it raised crashed the run. Each is now that item's error."""
    (project / "loopy.py").write_text(
        "import asyncio, sys\n\n"
        "class Boom(BaseException):\n    pass\n\n"
        "async def escapes(item):\n"
        "    if item['id'] == 'a0':\n"
        "        asyncio.get_running_loop().call_soon(sys.exit, 0)\n"
        "    if item['id'] == 'a1':\n"
        "        async def boom():\n            sys.exit(4)\n"
        "        asyncio.ensure_future(boom())\n"
        "        await asyncio.sleep(0.01)\n"
        "    if item['id'] == 'a2':\n"
        "        raise Boom('custom base')\n"
        "    if item['id'] == 'a3':\n"
        "        raise asyncio.CancelledError()\n"
        "    return '最新价1455.00元'\n\n"
        "async def check(item, answer):\n"
        "    if item['id'] == 'a0':\n"
        "        asyncio.get_running_loop().call_soon(sys.exit, 0)\n"
        "    if item['id'] == 'a1':\n"
        "        raise Boom('in a check')\n"
        "    return True\n", "utf-8")
    (project / "s.yaml").write_text(
        "dataset: {path: items.jsonl, id_field: id}\n"
        "targets: [{name: fn, type: python, function: 'loopy:escapes'}]\n"
        "evaluators: [{python: 'loopy.py:check'}]\n", "utf-8")
    r = run("run", "s.yaml", cwd=project, timeout=60)
    assert r.returncode == 0, r.stderr
    assert dict(db_rows(project, "SELECT item_id, error FROM answers")) == {
        "a0": "called sys.exit(0)", "a1": "called sys.exit(4)", "a2": "Boom: custom base",
        "a3": "CancelledError"}
    assert db_rows(project, "SELECT status FROM runs") == [("finished",)]
    r = run("run", spec(project, "fine", '[{python: "loopy.py:check"}]'), cwd=project,
            timeout=60)
    assert r.returncode == 0, r.stderr
    got = dict(db_rows(project, "SELECT item_id, reason FROM results WHERE run_id = "
                                f"'{run_id_of(r.stdout)}'"))
    assert got["a0"].startswith("check raised SystemExit: 0")
    assert got["a1"].startswith("check raised Boom: in a check")
    assert got["a2"] == "check returned True"
    assert [s for (s,) in db_rows(project, "SELECT status FROM runs")] == ["finished"] * 2


@pytest.mark.process  # a Ctrl-C
def test_a_real_ctrl_c_still_stops_a_run_of_an_async_target_resumably(tmp_path: Path) -> None:
    write_items(tmp_path, 30)
    (tmp_path / "slow.py").write_text(
        "import asyncio\n\nasync def answer(item):\n    await asyncio.sleep(0.2)\n"
        "    return '最新价1455.00元'\n", "utf-8")
    (tmp_path / "s.yaml").write_text(
        "dataset: {path: items.jsonl, id_field: id}\nconcurrency: 2\n"
        "targets: [{name: fn, type: python, function: 'slow:answer'}]\n"
        "evaluators: [finance-rubric]\n", "utf-8")
    env = cli_env()
    proc = subprocess.Popen([ASSAY, "run", "s.yaml", "-q"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_results(tmp_path / ".assay" / "assay.db", 2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert db_rows(tmp_path, "SELECT status FROM runs") == [("interrupted",)]
    assert not db_rows(tmp_path, "SELECT error FROM answers WHERE error IS NOT NULL")


def test_a_module_or_check_file_that_fails_at_import_is_one_line(project: Path) -> None:
    """L9, M5 (review of issue 27): a target module with a syntax error was a traceback;
    sys.exit(0) while a target module or a check file imports ended with exit 0 and nothing."""
    (project / "broken.py").write_text("def answer(item:\n", "utf-8")
    (project / "exits.py").write_text("import sys\nsys.exit(0)\ndef answer(item):\n"
                                      "    return 'x'\n", "utf-8")
    (project / "chk_exit.py").write_text("import sys\nsys.exit(0)\ndef ok(item, answer):\n"
                                         "    return True\n", "utf-8")
    for module, message in (("broken", "importing module 'broken' failed: SyntaxError: "),
                            ("exits", "importing module 'exits' failed: called sys.exit(0)")):
        (project / "t.yaml").write_text(
            "dataset: {path: items.jsonl, id_field: id}\n"
            f"targets: [{{name: fn, type: python, function: '{module}:answer'}}]\n"
            "evaluators: [finance-rubric]\n", "utf-8")
        r = run("run", "t.yaml", "--quiet", cwd=project, timeout=60)
        assert r.returncode == 2, r.stderr
        assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    r = run("run", spec(project, "fine", '[{python: "chk_exit.py:ok"}]'), "--quiet",
            cwd=project, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "importing the file failed: called sys.exit(0) (line 2)" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
