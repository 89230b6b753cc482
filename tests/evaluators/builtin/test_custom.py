"""python:FILE:FUNCTION — a check of one's own: sync or async, returning a bool, a number or a
Score; an exception is that item's error; a wiring mistake is one line naming file and
function; the version is the file's source hash and the build record rebuilds it."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import pytest

from assay.core.errors import ConfigError
from assay.core.registry import built_from
from assay.core.types import Answer, Item, Score, ScoreStatus
from assay.evaluators.base import Evaluator
from assay.evaluators.registry import EVALUATORS

CHECKS = '''
import asyncio
from assay.core.types import Score, ScoreStatus


def price_ok(item, answer, tolerance=0.0):
    return abs(float(answer) - float(item["reference_output"])) <= tolerance


def closeness(item, answer):
    return 1 / (1 + abs(float(answer) - float(item["reference_output"])))


async def slow_ok(item, answer):
    await asyncio.sleep(0)
    return answer == "好"


def verdict(item, answer):
    return Score(0.5, ScoreStatus.SCORED, "half right", "whatever", "v0",
                 evidence={"why": "半对"})


def broken(item, answer):
    return {"a": 1}[answer]


def nothing(item, answer):
    return None


def nan(item, answer):
    return float("nan")


def numpy_verdict(item, answer):
    import numpy as np
    return np.isclose(float(answer), 10.0)


NOT_A_FUNCTION = 3
'''
ITEM = Item("q1", {"prompt": "价格", "reference_output": "10.0"}, "v", 7)


@pytest.fixture()
def checks(tmp_path: Path) -> Path:
    path = tmp_path / "checks.py"
    path.write_text(CHECKS, encoding="utf-8")
    return path


def build(path: Path, function: str, **args: object) -> Evaluator:
    extra = {"args": args} if args else {}
    ev: Evaluator = EVALUATORS.build("python", path=str(path), function=function, **extra)
    return ev


def run(ev: Evaluator, answer: str) -> Score:
    return asyncio.run(ev.evaluate(ITEM, Answer(answer)))


def test_bool_number_and_score_results(checks: Path) -> None:
    ev = build(checks, "price_ok", tolerance=0.5)
    assert ev.name == "price_ok"
    s = run(ev, "10.4")
    assert (s.value, s.status, s.reason) == (1.0, ScoreStatus.SCORED, "price_ok returned True")
    assert s.evidence == {"returned": True}
    assert run(ev, "10.6").value == 0.0
    assert run(build(checks, "closeness"), "11").value == 0.5
    s = run(build(checks, "verdict"), "x")
    # their Score, under this evaluator's name and version
    assert (s.value, s.reason, s.evidence) == (0.5, "half right", {"why": "半对"})
    assert (s.evaluator, s.evaluator_version) == ("verdict", build(checks, "verdict").version)


def test_numpy_scalars_are_their_python_values(checks: Path) -> None:
    ev = build(checks, "numpy_verdict")
    s = run(ev, "10.0")
    assert (s.value, s.evidence) == (1.0, {"returned": True})
    assert run(ev, "9").value == 0.0


def test_async_function(checks: Path) -> None:
    ev = build(checks, "slow_ok")
    assert run(ev, "好").value == 1.0
    assert run(ev, "坏").value == 0.0


def test_an_exception_is_that_items_error(checks: Path) -> None:
    s = run(build(checks, "broken"), "b")
    assert s.status == ScoreStatus.ERROR and s.value is None
    assert s.reason == "broken raised KeyError: 'b' (line 25)"
    assert s.evidence["exception"] == "KeyError"
    assert s.evidence["file"] == str(checks)


def test_a_non_finite_number_is_that_answers_error_not_the_runs(checks: Path) -> None:
    """0/0 on one answer is data, not wiring: that answer's error, and the run goes on (it
    stopped the run, and every resume met it again)."""
    s = run(build(checks, "nan"), "x")
    assert (s.status, s.value) == (ScoreStatus.ERROR, None)
    assert s.reason == "nan returned nan: it must be a finite number"


@pytest.mark.parametrize("function", ["nothing"])
def test_a_wrong_return_type_is_one_line_naming_file_and_function(checks: Path,
                                                                  function: str) -> None:
    with pytest.raises(ConfigError) as err:
        run(build(checks, function), "x")
    msg = str(err.value)
    assert msg.startswith(f"python evaluator {checks}:{function} returned ")
    assert msg.endswith("it must return a bool, a finite number or an assay Score")
    assert "\n" not in msg


def test_load_errors_name_file_and_function(tmp_path: Path, checks: Path) -> None:
    missing = tmp_path / "nope.py"
    with pytest.raises(ConfigError) as err:
        build(missing, "f")
    assert str(err.value) == f"python evaluator {missing}:f: no such file {missing}"
    with pytest.raises(ConfigError) as err:
        build(checks, "price_okk")
    assert str(err.value) == (f"python evaluator {checks}:price_okk: {checks} defines no "
                              "'price_okk' (it defines: broken, closeness, nan, nothing, "
                              "numpy_verdict, price_ok, slow_ok, verdict)")
    with pytest.raises(ConfigError, match="'NOT_A_FUNCTION' is a int, not a function"):
        build(checks, "NOT_A_FUNCTION")
    bad = tmp_path / "bad.py"
    bad.write_text("def f(item, answer)\n    return True\n", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        build(bad, "f")
    assert str(err.value) == (f"{bad}:1: syntax error in python evaluator {bad}:f: "
                              "expected ':'")
    boom = tmp_path / "boom.py"
    boom.write_text("import json\nraise RuntimeError('no config')\n", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        build(boom, "f")
    assert str(err.value) == (f"python evaluator {boom}:f: importing the file failed: "
                              "RuntimeError: no config (line 2)")


def test_args_must_fit_the_signature(checks: Path) -> None:
    with pytest.raises(ConfigError) as err:
        build(checks, "closeness", tolerance=1)
    assert str(err.value) == (f"python evaluator {checks}:closeness: cannot be called as "
                              "closeness(item, answer, tolerance=…): got an unexpected "
                              "keyword argument 'tolerance'")


def test_version_is_the_source_hash_and_the_record_rebuilds_it(checks: Path) -> None:
    ev = build(checks, "price_ok", tolerance=0.5)
    assert ev.version == hashlib.sha256(checks.read_bytes()).hexdigest()[:12]
    record = built_from(ev)
    assert record is not None
    assert record.as_dict() == {"registry": "evaluators", "name": "python",
                                "args": {"path": str(checks), "function": "price_ok",
                                         "args": {"tolerance": 0.5}}}
    again = EVALUATORS.rebuild(record)
    assert again.version == ev.version and run(again, "10.4").value == 1.0
    # the file changes: the rebuilt evaluator runs the new code, under a new version
    checks.write_text(CHECKS.replace("<= tolerance", "> tolerance"), encoding="utf-8")
    changed = EVALUATORS.rebuild(record)
    assert changed.version != ev.version
    assert run(changed, "10.4").value == 0.0
    assert run(ev, "10.4").value == 1.0  # the one already built keeps its code


def test_label_and_the_file_folder_on_the_path(tmp_path: Path) -> None:
    (tmp_path / "helpers_for_check.py").write_text("LIMIT = 3\n", encoding="utf-8")
    path = tmp_path / "limits.py"
    path.write_text("from helpers_for_check import LIMIT\n\n"
                    "def short(item, answer):\n    return len(answer) <= LIMIT\n",
                    encoding="utf-8")
    ev = EVALUATORS.build("python", path=str(path), function="short", label="short-answer")
    assert ev.name == "short-answer"
    assert run(ev, "abc").value == 1.0
    assert run(ev, "abcd").value == 0.0
