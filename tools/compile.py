"""Compile the T1 rubric's reader to C with mypyc, in place, so `assay score` reads answers in
about 30 % less time (BENCHMARKS.md, "Seventh session"). Optional: without it the same modules
run as Python and decide exactly the same (tests/evaluators/rubric/test_compiled.py).

    .venv/bin/python tools/compile.py          # what `make compile` runs; a no-op when current
    .venv/bin/python tools/compile.py --force  # compile even if current, or after a failure
    .venv/bin/python tools/compile.py --clean  # remove the compiled modules and the build

The compiled modules sit beside their sources and mypyc's runtime library beside `assay` (git
ignores them), with `_compiled.json`: the sha256 of the runtime library and of every Assay module
the compiled ones import, directly or not (their own sources, and those whose constants mypyc may
copy into the C). `assay.evaluators.rubric` runs the compiled modules only while all of those
still match (`build_record.py`)."""

from __future__ import annotations

import argparse
import ast
import importlib.machinery
import importlib.util
import json
import os
import shlex
import shutil
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
PACKAGE = SRC / "assay" / "evaluators" / "rubric"
BUILD = ROOT / "build" / "mypyc"
FAILED = BUILD / "failed.json"  # the inputs of a build that failed: not retried until they change


def _build_record():  # type: ignore[no-untyped-def]
    """The package's `build_record`, read by path: importing the package would guard it."""
    spec = importlib.util.spec_from_file_location("assay_build_record",
                                                  PACKAGE / "build_record.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RECORD = _build_record()
MANIFEST: Path = RECORD.MANIFEST
MODULES: tuple[str, ...] = RECORD.MODULES


def _module_file(name: str) -> Path | None:
    base = SRC.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def inputs() -> list[Path]:
    """The compiled modules' sources and, transitively, every `assay` module they import."""
    todo = [f"assay.evaluators.rubric.{m}" for m in MODULES]
    seen: dict[str, Path] = {}
    while todo:
        name = todo.pop()
        path = _module_file(name)
        if name in seen or path is None:
            continue
        seen[name] = path
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    parent = ".".join(parts[:len(parts) - node.level + 1])
                    base = f"{parent}.{base}" if base else parent
                todo += [base, *(f"{base}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                todo += [a.name for a in node.names]
    return sorted(p for n, p in seen.items() if n.startswith("assay"))


def _digests() -> dict[str, str]:
    return {str(p.relative_to(SRC)): RECORD.sha(p) for p in inputs()}


def compiled_files() -> list[Path]:
    """The extension modules in the package, and mypyc's runtime library beside `assay`."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return [p for p in PACKAGE.iterdir() if p.name.endswith(suffixes)] + [
        p for p in SRC.glob("*__mypyc*") if p.name.endswith(suffixes)]


def clean() -> None:
    for path in [*compiled_files(), MANIFEST]:
        path.unlink(missing_ok=True)


def _current(digests: dict[str, str]) -> bool:
    built = RECORD.read()
    return not RECORD.why_not(built) and (built or {}).get("inputs") == digests


def _failed_before(digests: dict[str, str]) -> bool:
    try:
        return bool(json.loads(FAILED.read_text(encoding="utf-8")) == digests)
    except (OSError, ValueError):
        return False  # no marker, or one that cannot be read: try


def _c_compiler() -> str | None:
    cc = os.environ.get("CC") or str(sysconfig.get_config_var("CC") or "cc")
    words = shlex.split(cc)
    return shutil.which(words[0]) if words else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules")
    parser.add_argument("--force", action="store_true", help="compile even if current")
    args = parser.parse_args()
    if args.clean:
        clean()
        shutil.rmtree(BUILD, ignore_errors=True)
        return 0
    digests = _digests()
    if not args.force and _current(digests):
        print("the compiled rubric is current")
        return 0
    if not args.force and _failed_before(digests):
        print("tools/compile.py: compiling these sources failed before (above, or --force to "
              "retry); the rubric runs as Python", file=sys.stderr)
        return 1
    if _c_compiler() is None:
        print("tools/compile.py: no C compiler found (CC, or Python's own); the rubric runs as "
              "Python", file=sys.stderr)
        return 1
    try:
        from mypyc.build import mypycify
        from setuptools import setup
    except ImportError as exc:
        print(f"tools/compile.py: {exc.name} is not installed (pip install -e '.[dev]'); "
              "the rubric runs as Python", file=sys.stderr)
        return 1
    clean()
    os.chdir(SRC)  # module names come from paths relative to the source root
    paths = [str((PACKAGE / f"{m}.py").relative_to(SRC)) for m in MODULES]
    try:
        setup(name="assay-rubric-compiled", ext_modules=mypycify(paths, target_dir=str(BUILD)),
              script_args=["--quiet", "build_ext", "--inplace", "--build-temp",
                           str(BUILD / "temp"), "--build-lib", str(BUILD / "lib")])
    except (SystemExit, Exception) as exc:  # setuptools exits on a compiler error
        clean()
        BUILD.mkdir(parents=True, exist_ok=True)
        FAILED.write_text(json.dumps(digests), encoding="utf-8")
        print(f"tools/compile.py: compiling failed ({exc}); the rubric runs as Python",
              file=sys.stderr)
        return 1
    FAILED.unlink(missing_ok=True)
    runtime = [p for p in compiled_files() if p.parent == SRC]
    if len(runtime) != 1:
        clean()
        print(f"tools/compile.py: expected one mypyc runtime library in {SRC}, found "
              f"{len(runtime)}; the rubric runs as Python", file=sys.stderr)
        return 1
    MANIFEST.write_text(json.dumps({
        "modules": list(MODULES),
        "runtime": {"file": runtime[0].name, "sha256": RECORD.sha(runtime[0])},
        "inputs": digests}, indent=1) + "\n", encoding="utf-8")
    print(f"compiled {len(MODULES)} rubric modules with mypyc "
          f"({len(digests)} sources recorded in {MANIFEST.relative_to(ROOT)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
