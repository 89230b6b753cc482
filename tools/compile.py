"""Compile the T1 rubric's reader to C with mypyc, in place, so `assay score` reads answers about
a third faster (BENCHMARKS.md, "Seventh session"). Optional: without it the same modules run as
Python and decide exactly the same (tests/evaluators/rubric/test_compiled.py).

    .venv/bin/python tools/compile.py          # what `make compile` runs
    .venv/bin/python tools/compile.py --clean  # remove the compiled modules

The compiled modules sit beside their sources (git ignores them), with `_compiled.json`: the
sha256 of each source they were built from. `assay.evaluators.rubric` loads them only while every
hash still matches; after an edit it loads the sources and says so (run this again)."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
PACKAGE = SRC / "assay" / "evaluators" / "rubric"
BUILD = ROOT / "build" / "mypyc"
# The reader and what it calls per answer. Not evaluator.py (its class derives from a Python
# class, which mypyc compiles no faster), nor criteria.py and truth.py (once per item).
MODULES = ("checks", "dates", "instruments", "lexer", "numbers", "reader", "statements",
           "words")
MANIFEST = PACKAGE / "_compiled.json"


def compiled_files() -> list[Path]:
    """The extension modules in the package, and mypyc's shared runtime beside `assay`."""
    return [*PACKAGE.glob("*.so"), *PACKAGE.glob("*.pyd"), *SRC.glob("*__mypyc*")]


def clean() -> None:
    for path in [*compiled_files(), MANIFEST]:
        path.unlink(missing_ok=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules")
    args = parser.parse_args()
    clean()
    if args.clean:
        return 0
    try:
        from mypyc.build import mypycify
        from setuptools import setup
    except ImportError as exc:
        print(f"tools/compile.py: {exc.name} is not installed (pip install -e '.[dev]'); "
              "the rubric runs as Python", file=sys.stderr)
        return 1
    sources = {m: PACKAGE / f"{m}.py" for m in MODULES}
    digests = {m: hashlib.sha256(p.read_bytes()).hexdigest() for m, p in sources.items()}
    os.chdir(SRC)  # module names come from paths relative to the source root
    paths = [str(p.relative_to(SRC)) for p in sources.values()]
    setup(name="assay-rubric-compiled", ext_modules=mypycify(paths, target_dir=str(BUILD)),
          script_args=["--quiet", "build_ext", "--inplace", "--parallel",
                       str(os.cpu_count() or 1), "--build-temp", str(BUILD / "temp"),
                       "--build-lib", str(BUILD / "lib")])
    MANIFEST.write_text(json.dumps(digests, indent=1) + "\n", encoding="utf-8")
    print(f"compiled {len(MODULES)} rubric modules with mypyc")
    return 0


if __name__ == "__main__":
    sys.exit(main())
