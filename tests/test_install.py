"""Issue 28: what a user installs — a wheel built from the tree carries the package, its
examples (for `assay examples copy`) and the license, and is pure Python (the compiled wheel is
opt-in: tests/evaluators/rubric/test_compiled_wheel.py); the examples copy into a new folder."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT


def _assay(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(Path(sys.executable).parent / "assay"), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.process  # pip wheel
def test_the_wheel_carries_the_examples_and_the_license(tmp_path: Path) -> None:
    pytest.importorskip("hatchling")
    # a plain build, as `pip install .` makes it: the compiled wheel's hook stays off
    env = {k: v for k, v in os.environ.items()
           if k not in ("HATCH_BUILD_HOOK_ENABLE_MYPYC", "HATCH_BUILD_HOOKS_ENABLE")}
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps",
                            "--no-build-isolation", "-q", "-w", str(tmp_path)],
                           capture_output=True, text=True, timeout=300, check=False, env=env)
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("assay_eval-*.whl")
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name  # pure Python
    names = set(zipfile.ZipFile(wheel).namelist())
    assert not [n for n in names if n.endswith((".so", ".pyd"))]
    assert "assay/cli/main.py" in names
    assert "assay/_examples/specs/demo.yaml" in names
    assert "assay/_examples/finsearch_t1_sample.json" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") or n.endswith(".dist-info/LICENSE")
               for n in names), sorted(n for n in names if "dist-info" in n)
    assert not any(n.startswith("tests/") for n in names)
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA")))
    assert b"Name: assay-eval" in meta


def test_the_license_file_is_apache_2() -> None:
    text = (ROOT / "LICENSE").read_text("utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text


@pytest.mark.process  # the installed entry point, as a wheel user runs it
def test_examples_copy_gives_a_runnable_folder(tmp_path: Path) -> None:
    r = _assay("examples", "copy", "mine", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("copied the examples to mine; try:")
    assert (tmp_path / "mine" / "specs" / "demo.yaml").is_file()
    scored = _assay("score", "finsearch_t1_sample.json", "--by", "answer_kind", "--db",
                    "sqlite:///e.db", "--quiet", cwd=tmp_path / "mine")
    assert scored.returncode == 0, scored.stderr
    again = _assay("examples", "copy", "mine", cwd=tmp_path)
    assert (again.returncode, again.stderr.strip()) == (
        2, "error: mine exists and is not an empty folder: choose a new one")
