"""Files Assay writes (`--out`, `export -o`, `report -o`, `--junit`) never destroy its inputs.

An output is refused, before anything runs, when it resolves to a file the command reads — the
dataset, the recorded answers, the SQLite store (`assay score d.jsonl --out d.jsonl` used to
empty the dataset before reading it). And a regular file is written to a temporary file
beside it and renamed over the target only once complete, so a failure half-way leaves the old
file whole; a device or FIFO is written in place (see `replaced`)."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
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
    """A one-line ConfigError, before anything runs, when `out` is one of `inputs`
    ({"the dataset": path, …}) or a folder."""
    if out is None:
        return
    if out.is_dir():
        raise ConfigError(f"{option} {out} is a folder: name a file to write")
    for what, path in inputs.items():
        if path is not None and same_file(out, path):
            raise ConfigError(f"{option} {out} is {what}: writing it would destroy it; "
                              "write the output to another file")


@contextlib.contextmanager
def replaced(out: Path) -> Iterator[Path]:
    """Yields a path to write. A regular file (or a new one) is written to a temporary file
    of an unpredictable name in its folder (mkstemp: never an existing file or link), renamed
    over it when the block ends without an exception (removed when it raises), with the old
    file's permissions, or the umask's for a new one. A symlink's target is the file
    replaced, never the link. Anything else that exists (a device such as /dev/null, a FIFO,
    /dev/stdout) is yielded as it is and written in place; a folder is a ConfigError."""
    try:
        st: os.stat_result | None = os.stat(out)  # follows symlinks
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise ConfigError(f"cannot write {out}: {exc.strerror or exc}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise ConfigError(f"cannot write {out}: it is a folder")
    if st is not None and not stat.S_ISREG(st.st_mode):
        yield out  # a device, FIFO or terminal: written in place, never replaced
        return
    target = Path(os.path.realpath(out))  # a (dangling) symlink: its target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".tmp{target.suffix}",
                                dir=target.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.chmod(tmp, stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
