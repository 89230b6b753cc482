"""A check of one's own under hostile code (issue 27): its text is made safe like every other
source's; `sys.exit` and other BaseExceptions are that item's error."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from assay.core.text import REPLACEMENT as R
from assay.core.types import Answer, Item, Score, ScoreStatus
from assay.evaluators.base import Evaluator
from assay.evaluators.registry import EVALUATORS

CHECKS = '''
import sys
from assay.core.types import Score, ScoreStatus


def nul_score(item, answer):
    return Score(1.0, ScoreStatus.SCORED, "ok\\x00", "x", "v", evidence={"k\\x00": ["v\\x00"]})


def nul_raise(item, answer):
    raise ValueError("bad\\x00byte")
'''
ITEM = Item("q1", {"prompt": "价格"}, "v", 1)


@pytest.fixture()
def checks(tmp_path: Path) -> Path:
    path = tmp_path / "checks.py"
    path.write_text(CHECKS, encoding="utf-8")
    return path


def run(path: Path, function: str) -> Score:
    ev: Evaluator = EVALUATORS.build("python", path=str(path), function=function)
    return asyncio.run(ev.evaluate(ITEM, Answer("x")))


def test_the_text_of_a_users_score_and_exception_is_made_safe(checks: Path) -> None:
    s = run(checks, "nul_score")
    assert (s.reason, s.evidence) == (f"ok{R}", {f"k{R}": [f"v{R}"]})
    s = run(checks, "nul_raise")
    assert s.status == ScoreStatus.ERROR
    assert s.reason == f"nul_raise raised ValueError: bad{R}byte (line 11)"
    assert s.evidence["message"] == f"bad{R}byte"
