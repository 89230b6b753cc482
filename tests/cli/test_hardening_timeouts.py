"""A check that hangs ends its answer, in every command that calls checks (issue 27, M6): `assay
score --timeout` (kept for `--resume`), `assay replay` under the run's own `timeout_s`, and a
python: check's default when none is set. And a non-finite score from any evaluator is its
error, never a NaN mean that passes `--fail-under` (H5's rest)."""

from __future__ import annotations

import asyncio
import json
import math
import time
from pathlib import Path

import pytest

from assay.core.types import Answer, Item, Score, ScoreStatus, TruthSnapshot
from assay.evaluators.base import CodeEvaluator
from assay.evaluators.builtin.custom import PythonEvaluator
from assay.runner.evaluate import CHECK_TIMEOUT_S, evaluate, evaluate_now, time_limit
from tests.cli.test_hardening_run import db_rows, run, run_id_of, run_process
from tests.cli.test_hardening_usercode import project  # noqa: F401  (the fixture)


def answers(project: Path) -> Path:  # noqa: F811
    rows = [{"id": f"a{i}", "prompt": f"q{i}", "response": "1455.00元"} for i in range(4)]
    path = project / "answers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return path


@pytest.mark.process  # the process exits while the checks still hang
def test_score_timeout_ends_a_check_that_hangs_sync_or_async(project: Path) -> None:  # noqa: F811
    answers(project)
    started = time.monotonic()
    r = run_process("score", "answers.jsonl", "--id-field", "id", "-e",
                    "python:checks.py:hangs", "-e", "python:checks.py:hangs_async", "--timeout",
                    "1", "--quiet", cwd=project, timeout=60)
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - started < 30  # not 3600 s, and no thread kept the process
    got = {(i, e): reason for i, e, reason in
           db_rows(project, "SELECT item_id, evaluator, reason FROM results")}
    assert got == {
        **{(f"a{i}", "hangs"): "hangs returned True" for i in (0, 2, 3)},
        **{(f"a{i}", "hangs_async"): "hangs_async returned True" for i in (0, 1, 3)},
        ("a1", "hangs"): "evaluator timeout after 1 s",
        ("a2", "hangs_async"): "evaluator timeout after 1 s"}
    (manifest,) = db_rows(project, "SELECT manifest FROM runs WHERE id = ?", run_id_of(r.stdout))
    assert json.loads(manifest[0])["spec"]["timeout_s"] == 1  # a --resume bounds checks alike


@pytest.mark.parametrize(("args", "message"), [
    (["--timeout", "nan"], "--timeout (seconds) must be a finite number > 0, not nan"),
    (["--timeout", "0"], "--timeout (seconds) must be a finite number > 0, not 0"),
    (["--timeout", "-1"], "--timeout (seconds) must be a finite number > 0, not -1"),
])
def test_score_timeout_refuses_what_sets_no_bound(project: Path, args: list[str],  # noqa: F811
                                                 message: str) -> None:
    answers(project)
    r = run("score", "answers.jsonl", "--id-field", "id", "-e", "python:checks.py:hangs", *args,
            cwd=project, timeout=60)
    assert r.returncode == 2, r.stdout
    assert message in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_replay_is_bounded_by_the_runs_timeout(project: Path) -> None:  # noqa: F811
    """The check answered at run time; on replay it hangs (a flag file says so): the replay
    ends, within the run's `timeout_s`, and says the score did not reproduce."""
    answers(project)
    (project / "slow.py").write_text(
        "import asyncio, os, time\n\n"
        "def maybe(item, answer):\n"
        "    if item['id'] == 'a1' and os.path.exists('HANG'):\n"
        "        time.sleep(3600)\n"
        "    return True\n\n"
        "async def maybe_async(item, answer):\n"
        "    if item['id'] == 'a2' and os.path.exists('HANG'):\n"
        "        await asyncio.sleep(3600)\n"
        "    return True\n", "utf-8")
    r = run("score", "answers.jsonl", "--id-field", "id", "-e", "python:slow.py:maybe",
            "-e", "python:slow.py:maybe_async", "--timeout", "1", "--quiet", cwd=project,
            timeout=60)
    assert r.returncode == 0, r.stderr
    (project / "HANG").write_text("", "utf-8")
    started = time.monotonic()
    r = run("replay", run_id_of(r.stdout), cwd=project, timeout=60)
    assert time.monotonic() - started < 30
    assert r.returncode == 1, r.stdout  # a code evaluator did not reproduce
    assert "a1 (recorded): stored 1.0 scored → now None error: evaluator timeout after 1 s" \
        in r.stdout
    assert "a2 (recorded): stored 1.0 scored → now None error: evaluator timeout after 1 s" \
        in r.stdout


def test_a_python_check_gets_a_default_bound_and_built_in_checks_none(project: Path  # noqa: F811
                                                                      ) -> None:
    check = PythonEvaluator(path=str(project / "checks.py"), function="hangs")
    assert time_limit(check, None) == CHECK_TIMEOUT_S == 60.0
    assert time_limit(check, 5.0) == 5.0
    # a built-in check runs on the loop's own thread: no timer could end it, none is set
    assert time_limit(_Returns(1.0), 5.0) is None


class _Returns(CodeEvaluator):
    """An evaluator of one's own that returns whatever value it was given."""

    name = "returns"

    def __init__(self, value: float | None) -> None:
        self.value = value

    @property
    def version(self) -> str:
        return "1"

    def check(self, item: Item, answer: Answer, truth: TruthSnapshot | None = None) -> Score:
        return Score(self.value, ScoreStatus.SCORED, "as given", self.name, self.version)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_non_finite_score_from_any_evaluator_is_its_error(value: float) -> None:
    item, answer = Item("x", {}, "d", 1), Answer("1.0")
    for score in (asyncio.run(evaluate(_Returns(value), item, answer)),
                  evaluate_now(_Returns(value), item, answer)):
        assert (score.value, score.status) == (None, ScoreStatus.ERROR)
        assert score.reason == f"evaluator returned a non-finite score ({value!r})"
    fine = evaluate_now(_Returns(0.5), item, answer)
    assert (fine.value, fine.status) == (0.5, ScoreStatus.SCORED)


@pytest.mark.process  # the process exits while a check still blocks its thread
def test_an_async_check_that_blocks_or_ignores_cancelling_still_ends(project: Path  # noqa: F811
                                                                     ) -> None:
    """Async user code runs on a loop of its own (core/calls.py): one that blocks in
    `async def` (time.sleep, a sync HTTP call) or swallows its cancellation no longer holds
    the run — it ran 15 s under --timeout 1, or forever."""
    answers(project)
    (project / "stubborn.py").write_text(
        "import asyncio, time\n\n"
        "async def blocks(item, answer):\n"
        "    if item['id'] == 'a1':\n"
        "        time.sleep(20)\n"
        "    return True\n\n"
        "async def stubborn(item, answer):\n"
        "    if item['id'] == 'a2':\n"
        "        while True:\n"
        "            try:\n"
        "                await asyncio.sleep(3600)\n"
        "            except asyncio.CancelledError:\n"
        "                pass\n"
        "    return True\n", "utf-8")
    started = time.monotonic()
    r = run_process("score", "answers.jsonl", "--id-field", "id", "-e",
                    "python:stubborn.py:stubborn", "--timeout", "1", "--quiet", cwd=project,
                    timeout=60)
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - started < 15
    assert dict(db_rows(project, "SELECT item_id, reason FROM results")) == {
        "a0": "stubborn returned True", "a1": "stubborn returned True",
        "a2": "evaluator timeout after 1 s", "a3": "stubborn returned True"}
    # one that blocks holds back the async calls after it (they share its loop), not the run:
    # it ends, on time, with the blocked call and those behind it timed out
    started = time.monotonic()
    r = run_process("score", "answers.jsonl", "--id-field", "id", "-e",
                    "python:stubborn.py:blocks", "--timeout", "1", "--quiet", cwd=project,
                    timeout=60)
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - started < 15  # not 20 s: the blocked thread is left behind
    got = dict(db_rows(project, "SELECT item_id, reason FROM results WHERE run_id = ?",
                       run_id_of(r.stdout)))
    assert (got["a0"], got["a1"]) == ("blocks returned True", "evaluator timeout after 1 s")


def test_timeout_is_raised_after_the_fact_on_replay_retry_and_run(project: Path  # noqa: F811
                                                                  ) -> None:
    """A bound too short for a slow check is not final (review M3): `replay --timeout`,
    `retry --timeout` replace the run's own, and `run --timeout` is kept for its resumes."""
    answers(project)
    (project / "slow.py").write_text(
        "import os, time\n\n"
        "def slow(item, answer):\n"
        "    if item['id'] == 'a1':\n"
        "        time.sleep(3)\n"
        "    return True\n", "utf-8")
    r = run("score", "answers.jsonl", "--id-field", "id", "-e", "python:slow.py:slow",
            "--timeout", "1", "--quiet", cwd=project, timeout=60)
    assert r.returncode == 0, r.stderr
    run_id = run_id_of(r.stdout)
    reasons = "SELECT item_id, reason FROM results WHERE run_id = ?"
    assert dict(db_rows(project, reasons, run_id))["a1"] == "evaluator timeout after 1 s"
    r = run("replay", run_id, "--timeout", "10", cwd=project, timeout=60)
    assert "a1 (recorded): stored None error → now 1.0 scored: slow returned True" in r.stdout
    r = run("replay", run_id, cwd=project, timeout=60)  # under the run's own: as stored
    assert r.returncode == 0 and "100.0%" in r.stdout, r.stdout
    r = run("retry", run_id, "--timeout", "10", "--quiet", cwd=project, timeout=60)
    assert r.returncode == 0, r.stderr
    assert dict(db_rows(project, reasons, run_id)) == {
        f"a{i}": "slow returned True" for i in range(4)}
    r = run("replay", run_id, cwd=project, timeout=60)  # under the retry's bound, kept
    assert r.returncode == 0 and "100.0%" in r.stdout, r.stdout
    r = run("retry", run_id, "--timeout", "inf", cwd=project, timeout=60)
    assert r.returncode == 2 and "--timeout (seconds) must be a finite number > 0, not inf" \
        in r.stderr
    (project / "s.yaml").write_text(
        "dataset: {path: answers.jsonl, id_field: id}\n"
        "targets: [{name: recorded, type: recorded, field: response}]\n"
        "evaluators: [{python: slow.py:slow}]\n", "utf-8")
    r = run("run", "s.yaml", "--timeout", "1", "--quiet", cwd=project, timeout=60)
    assert r.returncode == 0, r.stderr
    run_id = run_id_of(r.stdout)
    assert dict(db_rows(project, reasons, run_id))["a1"] == "evaluator timeout after 1 s"
    (manifest,) = db_rows(project, "SELECT manifest FROM runs WHERE id = ?", run_id)
    assert json.loads(manifest[0])["overrides"]["timeout_s"] == 1  # a --resume keeps it
    r = run("replay", run_id, cwd=project, timeout=60)  # and replay bounds as the run did
    assert r.returncode == 0 and "100.0%" in r.stdout, r.stdout
