"""`@record` (core/record.py): the domain types and the model call stay read-only — for the
type checker, which the project runs on every change — while costing a plain dataclass's
construction."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from assay.core.record import record
from assay.core.types import Answer, Item, Score, ScoreStatus


@pytest.mark.process  # mypy, as a process
def test_mypy_refuses_an_assignment_to_a_records_field(tmp_path: Path) -> None:
    """Checked with the project's own mypy settings and cache (`make test` runs mypy first),
    as tests/core/test_model_call.py checks a misspelt field."""
    probe = tmp_path / "mutates.py"
    probe.write_text(textwrap.dedent("""\
        from assay.core.model_call import ModelCall
        from assay.core.types import Answer, Item, Score, ScoreStatus
        item = Item("q1", {"prompt": "p"})
        item.id = "q2"
        answer = Answer("a")
        answer.text = "b"
        score = Score(1.0, ScoreStatus.SCORED, "ok", "exact", "1")
        score.value = 0.0
        call = ModelCall("m")
        call.cost = 1.0
        print(item.fields["prompt"], answer.extras, score.reason, call.model)
    """), "utf-8")
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "pyproject.toml",
                        str(probe)], capture_output=True, text=True, cwd=root, check=False,
                       env={**os.environ, "MYPYPATH": str(root / "src")})
    errors = [line for line in r.stdout.splitlines() if ": error: " in line]
    assert r.returncode == 1, r.stdout + r.stderr
    assert [(int(e.split(":")[1]), e.split(": error: ")[1]) for e in errors] == [
        (4, 'Property "id" defined in "Item" is read-only  [misc]'),
        (6, 'Property "text" defined in "Answer" is read-only  [misc]'),
        (8, 'Property "value" defined in "Score" is read-only  [misc]'),
        (10, 'Property "cost" defined in "ModelCall" is read-only  [misc]'),
    ]


def test_a_record_is_a_dataclass_with_slots_equality_and_replace() -> None:
    score = Score(1.0, ScoreStatus.SCORED, "ok", "exact", "1")
    assert dataclasses.is_dataclass(score) and not hasattr(score, "__dict__")
    assert score == Score(1.0, ScoreStatus.SCORED, "ok", "exact", "1")
    assert score != Score(0.0, ScoreStatus.SCORED, "ok", "exact", "1")
    again = dataclasses.replace(score, value=0.0)
    assert (again.value, score.value, again.evidence, again.full_score) == (0.0, 1.0, {}, (0.0, 1.0))
    assert Item("q", {}).with_field("x", 1) == Item("q", {"x": 1})
    assert Answer("a").extras == {} and Answer("a").extras is not Answer("a").extras


def test_a_record_is_not_hashable_as_its_values_are_not() -> None:
    @record
    class Pair:
        left: int
        right: int

    assert Pair(1, 2) == Pair(1, 2)
    with pytest.raises(TypeError):
        hash(Pair(1, 2))
