"""`@record` (core/record.py): the domain types stay read-only — for the type checker, which the
project runs on every change — while costing a plain dataclass's construction."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest
from mypy import api as mypy_api

from assay.core.record import record
from assay.core.types import Answer, Item, Score, ScoreStatus


SRC = Path(__file__).resolve().parents[2] / "src"


def test_mypy_refuses_an_assignment_to_a_records_field(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "mutates.py"
    source.write_text(textwrap.dedent("""
        from assay.core.types import Answer, Item, Score, ScoreStatus

        item = Item("q1", {"prompt": "p"})
        item.id = "q2"
        answer = Answer("a")
        answer.text = "b"
        score = Score(1.0, ScoreStatus.SCORED, "ok", "exact", "1")
        score.value = 0.0
        print(item.fields["prompt"], answer.extras, score.reason)
    """), "utf-8")
    # the project's settings and cache, as `make check` and `make test` leave it just before
    # (only this file is then read afresh; a cold cache takes a minute)
    monkeypatch.setenv("MYPYPATH", str(SRC))
    monkeypatch.chdir(SRC.parent)
    out, _, status = mypy_api.run([str(source)])
    assert status == 1
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert [e.split(": error: ")[1] for e in errors] == [
        'Property "id" defined in "Item" is read-only  [misc]',
        'Property "text" defined in "Answer" is read-only  [misc]',
        'Property "value" defined in "Score" is read-only  [misc]',
    ]
    assert [int(e.split(":")[1]) for e in errors] == [5, 7, 9]


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
