"""What a run pins so it can be understood and recomputed later (never secrets)."""

from __future__ import annotations

import platform
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import assay


@cache
def git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=2, cwd=Path(assay.__file__).parent, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def build_manifest(**entries: Any) -> dict[str, Any]:
    return {
        "assay_version": assay.__version__,
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "command": sys.argv[:1] and [Path(sys.argv[0]).name, *sys.argv[1:]],
        **entries,
    }
