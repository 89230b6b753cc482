"""The architecture contracts in pyproject.toml ([tool.importlinter]) hold for this tree, and each
one fails on the wrong arrow it is there to catch — so a wrong import fails a plain pytest run,
not only `make test`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.process  # lint-imports in a fresh interpreter
CONTRACTS = {c["id"]: c["name"] for c in tomllib.loads(
    (ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]["contracts"]}


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` on the tree at `root`: its config, and its own `src` first on the path, so
    the package analysed is that tree's, whatever is installed."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(root / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()",
         "--no-cache"], cwd=root, env=env, capture_output=True, text=True, timeout=120)


def test_the_contracts_hold() -> None:
    assert set(CONTRACTS) == {"layers", "cycles", "core", "store", "session", "top", "sql"}
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in done.stdout


# (file under src/assay, line appended, contracts it breaks); an arrow back up a path that
# already exists is a cycle too
WRONG_ARROWS = [
    ("core/tally.py", "from assay.store import repo", {"core", "layers", "cycles"}),
    ("store/results.py", "from assay.report import stats", {"store", "layers", "cycles"}),
    ("runner/stop.py", "from assay.report import aggregate", {"layers"}),
    ("targets/model.py", "from assay.evaluators.judge import parse", {"layers"}),
    ("web/queries.py", "from assay.cli import main", {"top", "layers", "cycles"}),
    ("report/aggregate.py", "from sqlalchemy import select", {"sql"}),
    ("models/cache.py", "from sqlalchemy.exc import IntegrityError", {"sql"}),
    ("runner/checks.py", "from assay.runner import execute", {"cycles"}),
    # traces sit below the run and the watch: a span module reaching up is a wrong arrow
    ("traces/spans.py", "from assay.runner import pipeline", {"layers", "cycles"}),
    ("online/reading.py", "from assay.runner import execute", {"session"}),
    ("newthing/__init__.py", "", {"layers"}),  # a package placed in no layer
]


@pytest.mark.parametrize(("path", "line", "broken"), WRONG_ARROWS,
                         ids=[f"{p}:{sorted(b)}" for p, _, b in WRONG_ARROWS])
def test_each_wrong_arrow_breaks_its_contract(tmp_path: Path, path: str, line: str,
                                              broken: set[str]) -> None:
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    shutil.copytree(ROOT / "src" / "assay", tmp_path / "src" / "assay",
                    ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path / "src" / "assay" / path
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("a", encoding="utf-8") as fh:
        fh.write(f"\n{line}\n")
    done = lint_imports(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    out = " ".join(done.stdout.split())  # long contract names are wrapped
    assert {cid for cid, name in CONTRACTS.items() if f"{name} BROKEN" in out} == broken
