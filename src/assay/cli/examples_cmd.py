"""`assay examples copy DIR`: the bundled examples (sample datasets, specs, a CI workflow, an
online agent) copied where a user can run and edit them — from a wheel as from a checkout."""

from __future__ import annotations

import shutil
from pathlib import Path

from rich.console import Console

import assay
from assay.core.errors import ConfigError


def examples_dir() -> Path:
    """The examples: shipped inside the wheel (`assay/_examples`), else a checkout's
    `examples/` beside `src/`."""
    package = Path(assay.__file__).parent
    for where in (package / "_examples", package.parents[1] / "examples"):
        if (where / "specs").is_dir():
            return where
    raise ConfigError("the examples are not installed with this copy of Assay (a wheel built "
                      "from Assay's checkout ships them)")


def copy(dest: Path) -> int:
    source = examples_dir()
    occupied = any(dest.iterdir()) if dest.is_dir() else dest.exists()
    if occupied:
        raise ConfigError(f"{dest} exists and is not an empty folder: choose a new one")
    shutil.copytree(source, dest, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".assay"))
    out = Console(highlight=False)
    out.print(f"copied the examples to {dest}; try:")
    out.print(f"  cd {dest} && assay score finsearch_t1_sample.json --by answer_kind")
    out.print("  assay run specs/demo.yaml && assay view")
    return 0
