"""What `tools/compile.py` built and whether it may run: no side effects, so the compile tool
reads it by path without importing (and so without guarding) the package.

`_compiled.json` names the compiled modules, mypyc's runtime library beside `assay` and every
Assay module the compiled ones import (their own sources and those whose constants mypyc may
copy into the C), each with its sha256."""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
SRC = HERE.parents[2]  # the folder that holds `assay`
MANIFEST = HERE / "_compiled.json"
# The reader and what it calls per answer. Not evaluator.py (its class derives from a Python
# class, which mypyc compiles no faster), nor criteria.py and truth.py (once per item).
MODULES = ("checks", "dates", "instruments", "lexer", "numbers", "reader", "statements",
           "words")


def extension(name: str) -> Path | None:
    """The compiled module `name` of this package, if there is one this Python can load."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if (HERE / f"{name}{suffix}").exists():
            return HERE / f"{name}{suffix}"
    return None


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read() -> dict[str, Any] | None:
    try:
        built = json.loads(MANIFEST.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return built if isinstance(built, dict) else None


def why_not(built: dict[str, Any] | None) -> str:
    """Why the compiled modules must not run ("" when they may)."""
    if built is None:
        return "no readable build record"
    modules, runtime, inputs = built.get("modules"), built.get("runtime"), built.get("inputs")
    if not (isinstance(modules, list) and isinstance(runtime, dict) and isinstance(inputs, dict)):
        return "an unreadable build record"
    own = {str((HERE / f"{m}.py").relative_to(SRC)) for m in MODULES}
    if not set(MODULES) <= set(modules) or not own <= set(inputs):
        return "a build record that does not cover the compiled modules"
    missing = [m for m in MODULES if extension(m) is None]
    if missing:
        return f"{', '.join(missing)} not compiled"
    lib = SRC / str(runtime.get("file", ""))
    if not lib.is_file() or sha(lib) != runtime.get("sha256"):
        return "mypyc's runtime library is missing or from another build"
    try:
        changed = [rel for rel, digest in inputs.items() if sha(SRC / rel) != digest]
    except OSError:
        return "a source it was built from is missing"
    return f"{changed[0]} changed since the build" if changed else ""
