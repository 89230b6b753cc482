"""examples/specs/checks.yaml runs as documented: every built-in check it uses and its own
python check give the scores below, each verified by hand against the sample's answers."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.cli.test_run_cli import run, run_id_of
from tests.conftest import ROOT

# item: price, has-yuan, format, short, json-valid, names_ticker
EXPECTED = {
    "q1": [1, 1, 0, 1, 0, 1],  # full-width １，４５５．００元 reads as 1455.00; not [0-9]
    "q2": [0, 1, 1, 1, 0, 0],  # 1,455 is not 1452.00 within 0.1%; names no ticker
    "q3": [0, 0, 0, 0, 0, 1],  # $231.20 vs 229.87; 41 characters
    "q4": [1, 0, 0, 0, 0, 1],  # 3839.8 within 0.1% of 3839.76 (the first number)
    "q5": [1, 0, 0, 0, 1, 1],  # a fenced JSON block; its first number is the price
}
ORDER = ["price", "has-yuan", "format", "short", "json-valid", "names_ticker"]


def test_checks_example(tmp_path: Path) -> None:
    r = run("run", str(ROOT / "examples" / "specs" / "checks.yaml"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(tmp_path / ".assay" / "assay.db") as db:
        rows = db.execute("SELECT item_id, evaluator, score FROM results WHERE run_id = ?",
                          (run_id_of(r.stdout),)).fetchall()
    got = {i: [None] * len(ORDER) for i in EXPECTED}
    for item, evaluator, score in rows:
        got[item][ORDER.index(evaluator)] = score
    assert got == EXPECTED
