"""The executable finance rubric: FinSearchComp's T1 judge rules done in code.

`tools/compile.py` (`make compile`) may have compiled the reader's modules with mypyc. They are
used only while they are what a build from the code as it is now would give: `_compiled.json`
names the compiled modules, mypyc's runtime library beside `assay` and every source they were
built from (their own and the modules whose constants mypyc copied into them), each with its
sha256. Anything missing or different, and every one of those modules is loaded from its .py
file instead, with one line on stderr: a stale compiled module would silently run old rules."""

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
from typing import Any

_HERE = Path(__file__).parent
_SRC = _HERE.parents[2]  # the folder that holds `assay`
MANIFEST = _HERE / "_compiled.json"


def _extension(name: str) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if (_HERE / f"{name}{suffix}").exists():
            return _HERE / f"{name}{suffix}"
    return None


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _read_manifest() -> dict[str, Any] | None:
    try:
        built = json.loads(MANIFEST.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return built if isinstance(built, dict) else None


def why_not_compiled(built: dict[str, Any] | None) -> str:
    """Why the compiled modules must not run ("" when they may)."""
    if built is None:
        return "no readable build record"
    modules, runtime, inputs = built.get("modules"), built.get("runtime"), built.get("inputs")
    if not (isinstance(modules, list) and isinstance(runtime, dict) and isinstance(inputs, dict)):
        return "an unreadable build record"
    missing = [m for m in modules if _extension(str(m)) is None]
    if missing:
        return f"{', '.join(map(str, missing))} not compiled"
    lib = _SRC / str(runtime.get("file", ""))
    if not lib.is_file() or _sha(lib) != runtime.get("sha256"):
        return "mypyc's runtime library is missing or from another build"
    try:
        changed = [rel for rel, sha in inputs.items() if _sha(_SRC / rel) != sha]
    except OSError:
        return "a source it was built from is missing"
    return f"{changed[0]} changed since the build" if changed else ""


class _Sources(importlib.abc.MetaPathFinder):
    """Loads the named modules of this package from their .py files, not their extensions.
    All of them or none: compiled modules call each other directly, past the import system."""

    def __init__(self, names: set[str]) -> None:
        self.names = {f"{__name__}.{n}": _HERE / f"{n}.py" for n in names}

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        source = self.names.get(fullname)
        return importlib.util.spec_from_file_location(fullname, source) if source else None


def compiled() -> bool:
    """Whether the reader runs compiled (`bench/score_bench.py` says which)."""
    mod = sys.modules.get(f"{__name__}.reader")
    return mod is not None and not str(getattr(mod, "__file__", "")).endswith(".py")


def _use_compiled_or_sources() -> None:
    built = _read_manifest()
    present = {p.name.split(".")[0] for p in _HERE.iterdir()
               if p.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))}
    if not present and built is None:
        return  # never compiled here: the sources run, nothing to say
    reason = why_not_compiled(built)
    if reason:
        names = present | {str(m) for m in (built or {}).get("modules") or ()
                           if isinstance(m, str)}
        sys.meta_path.insert(0, _Sources(names))
        print(f"assay: the compiled rubric is not used ({reason}); running its sources "
              "(`make compile` rebuilds it)", file=sys.stderr)
        return
    # mypyc's runtime library is imported by name: load ours, so that another checkout's
    # earlier on sys.path can never stand in for it
    assert built is not None
    lib = _SRC / str(built["runtime"]["file"])
    name = lib.name.split(".")[0]
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, lib)
        if spec is not None and spec.loader is not None:
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)


_use_compiled_or_sources()
