"""The executable finance rubric: FinSearchComp's T1 judge rules done in code.

`tools/compile.py` (`make compile`) may have compiled the reader's modules with mypyc. They run
only while they are what a build from the code as it is now would give (`build_record`); if
anything is missing or different, every one of them is loaded from its .py file instead, with
one line on stderr saying why: a stale compiled module would silently run old rules."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from . import build_record


class _Sources(importlib.abc.MetaPathFinder):
    """Loads the named modules of this package from their .py files, not their extensions.
    All of them or none: compiled modules call each other directly, past the import system."""

    def __init__(self, names: set[str]) -> None:
        self.names = {f"{__name__}.{n}": build_record.HERE / f"{n}.py" for n in names}

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        source = self.names.get(fullname)
        return importlib.util.spec_from_file_location(fullname, source) if source else None


def compiled() -> bool:
    """Whether the reader runs compiled (`bench/score_bench.py` says which)."""
    mod = sys.modules.get(f"{__name__}.reader")
    return mod is not None and not str(getattr(mod, "__file__", "")).endswith(".py")


def _runtime(lib: Path) -> str:
    """Load mypyc's runtime library from our own tree ("" when done): the compiled modules
    import it by a name that is the same in every checkout, so another one's, earlier on the
    path or imported before, must never stand in for it."""
    name = lib.name.split(".")[0]
    loaded = sys.modules.get(name)
    if loaded is not None:
        file = getattr(loaded, "__file__", None)
        return "" if file and Path(file).resolve() == lib.resolve() else \
            "another build's runtime library is already loaded"
    spec = importlib.util.spec_from_file_location(name, lib)
    if spec is None or spec.loader is None:
        return "mypyc's runtime library cannot be loaded"
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return ""


def _use_compiled_or_sources() -> None:
    built = build_record.read()
    present = {p.name.split(".")[0] for p in build_record.HERE.iterdir()
               if p.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))}
    if not present and built is None:
        return  # never compiled here: the sources run, nothing to say
    reason = build_record.why_not(built)
    if not reason:
        assert built is not None
        reason = _runtime(build_record.SRC / str(built["runtime"]["file"]))
    if reason:
        sys.meta_path.insert(0, _Sources(present | set(build_record.MODULES)))
        print(f"assay: the compiled rubric is not used ({reason}); running its sources "
              "(`make compile` rebuilds it)", file=sys.stderr)


_use_compiled_or_sources()
