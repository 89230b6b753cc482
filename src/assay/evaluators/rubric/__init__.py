"""The executable finance rubric: FinSearchComp's T1 judge rules done in code.

`tools/compile.py` (`make compile`) may have compiled the reader's modules with mypyc; they are
used only while they were built from the sources as they are now (`_compiled.json` holds the
hashes). After an edit the sources are loaded instead, with one line on stderr: a stale
compiled module would silently run old rules."""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

_HERE = Path(__file__).parent


def _compiled() -> list[str]:
    return sorted({p.name.split(".")[0] for p in (*_HERE.glob("*.so"), *_HERE.glob("*.pyd"))})


def _stale(names: list[str]) -> bool:
    try:
        built = json.loads((_HERE / "_compiled.json").read_text(encoding="utf-8"))
        return any(built.get(n) != hashlib.sha256((_HERE / f"{n}.py").read_bytes()).hexdigest()
                   for n in names)
    except (OSError, ValueError):
        return True


class _Sources(importlib.abc.MetaPathFinder):
    """Loads the named modules of this package from their .py files, not their extensions.
    All of them or none: compiled modules call each other directly, past the import system."""

    def __init__(self, names: list[str]) -> None:
        self.names = {f"{__name__}.{n}": _HERE / f"{n}.py" for n in names}

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        source = self.names.get(fullname)
        return importlib.util.spec_from_file_location(fullname, source) if source else None


def compiled() -> bool:
    """Whether the reader runs compiled (for the bench and `assay --version`)."""
    mod = sys.modules.get(f"{__name__}.reader")
    return mod is not None and not str(getattr(mod, "__file__", "")).endswith(".py")


_NAMES = _compiled()
if _NAMES and _stale(_NAMES):
    sys.meta_path.insert(0, _Sources(_NAMES))
    print("assay: the compiled rubric is older than its sources; running the sources "
          "(`make compile` rebuilds it)", file=sys.stderr)
