"""The Python API takes the same evaluator entries as a spec: names, {name, args} and
{python: FILE:FUNCTION, args}."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import assay

ROWS = [{"prompt_id": "p1", "prompt": "茅台收盘价", "reference_output": "1455元"},
        {"prompt_id": "p2", "prompt": "营收", "reference_output": "1.2亿"}]
ANSWERS = {"p1": "收盘价１，４５５．０元", "p2": "约1.5亿元"}


def agent(item: dict[str, Any]) -> str:
    return ANSWERS[item["prompt_id"]]


def test_checks_with_args_through_the_api(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "checks.py").write_text(
        "def says_yuan(item, answer, unit='元'):\n    return unit in answer\n", "utf-8")
    run = assay.evaluate(ROWS, agent, [
        {"name": "numeric", "args": {"rel": 0.01}},
        {"python": "checks.py:says_yuan", "args": {"unit": "亿"}, "label": "yi"},
        "contains"], db=f"sqlite:///{tmp_path / 'a.db'}")
    assert run.status == "finished"
    got = {(r["item_id"], r["evaluator"]): r["score"] for r in run.results()}
    assert got == {("p1", "numeric"): 1, ("p2", "numeric"): 0,
                   ("p1", "yi"): 0, ("p2", "yi"): 1,
                   ("p1", "contains"): 0, ("p2", "contains"): 0}
