"""Files Assay writes (`--out`, `export -o`, `report -o`, `--junit`) never destroy its inputs.

An output is refused, before anything runs, when it resolves to a file the command reads — the
dataset, the recorded answers, the SQLite store (`assay score d.jsonl --out d.jsonl` used to
empty the dataset before reading it). And it is written to a temporary file beside it and
renamed over the target only once complete, so a failure half-way leaves the old file whole."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from .errors import ConfigError


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file: the same resolved path (symlinks followed), or, both
    existing, the same inode (a hard link)."""
    try:
        if a.resolve() == b.resolve():
            return True
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def refuse_inputs(out: Path | None, option: str, inputs: Mapping[str, Path | None]) -> None:
    """A one-line ConfigError when `out` is one of `inputs` ({"the dataset": path, …})."""
    if out is None:
        return
    for what, path in inputs.items():
        if path is not None and same_file(out, path):
            raise ConfigError(f"{option} {out} is {what}: writing it would destroy it; "
                              "write the output to another file")


def temporary_beside(out: Path) -> Path:
    """A name in the output's folder (so the rename is atomic), with its suffix (writers that
    read the format from it see the same)."""
    return out.with_name(f".{out.stem}.{os.getpid()}.tmp{out.suffix}")


@contextlib.contextmanager
def replaced(out: Path) -> Iterator[Path]:
    """Yields a temporary path to write; renamed over `out` when the block ends without an
    exception, removed when it raises."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_beside(out)
    try:
        yield tmp
        os.replace(tmp, out)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
