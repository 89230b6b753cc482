"""Score N items with finance-rubric through `assay score`, end to end (load, rubric, store, JSONL).

    .venv/bin/python bench/score_bench.py [--items 100000] [--tree TREE]

Items are the sample dataset's 99 (question, answer) pairs repeated with fresh ids, so the mix of
languages, rules and answer kinds is the sample's. Prints wall time and items/s for a cold store
(dataset written too) and a warm one (dataset already stored, as in a re-score), and whether the
rubric's reader ran compiled (mypyc) or as Python. Without --tree, Assay as the venv imports it
(a checkout: its sources); with it, the code of TREE first on the path: a checkout's root, or a
built wheel, unpacked or not (the compiled one: `make wheel-compiled`, then --tree dist/*-cp*.whl).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "finsearch_t1_sample.json"
ASSAY = str(Path(sys.executable).parent / "assay")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--tree", type=Path, help="a checkout's root, or a built wheel (unpacked "
                        "or not), whose code runs instead of the venv's Assay")
    args = parser.parse_args()
    base = json.loads(SAMPLE.read_text(encoding="utf-8"))
    items = [dict(base[i % len(base)], prompt_id=f"bench-{i}") for i in range(args.items)]
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "bench.json"
        data.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k != "ASSAY_DB"}
        if args.tree is not None:
            env["PYTHONPATH"] = str(_code(args.tree, Path(tmp)))
        print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
              f"Python {platform.python_version()}; rubric: {_rubric(env)}")
        for label in ("cold store", "warm store"):
            start = time.perf_counter()
            r = subprocess.run([ASSAY, "score", str(data), "-q", "--out",
                                str(Path(tmp) / "out.jsonl")], cwd=tmp, env=env,
                               capture_output=True, text=True, check=False)
            elapsed = time.perf_counter() - start
            if r.returncode != 0:
                sys.exit(f"assay score failed: {r.stderr}")
            print(f"{label}: {args.items} items in {elapsed:.2f} s = "
                  f"{args.items / elapsed:,.0f} items/s (whole command, one process)")


def _code(tree: Path, tmp: Path) -> Path:
    """The folder that holds `assay` for TREE: a checkout's src, an unpacked wheel, or a wheel
    unpacked into `tmp`."""
    if tree.is_file() and tree.suffix == ".whl":
        with zipfile.ZipFile(tree) as wheel:
            wheel.extractall(tmp / "wheel")
        return tmp / "wheel"
    for code in (tree / "src", tree):
        if (code / "assay").is_dir():
            return code.resolve()
    sys.exit(f"{tree}: not a checkout, an unpacked wheel or a wheel")


def _rubric(env: dict[str, str]) -> str:
    """How `assay score` will run the rubric's reader: compiled (a compiled wheel's), or as
    Python; and from where."""
    r = subprocess.run([sys.executable, "-c", "import assay.evaluators.rubric.reader as m; "
                        "print(m.__file__)"], env=env, capture_output=True, text=True, check=True)
    file = r.stdout.strip()
    kind = "Python sources" if file.endswith(".py") else "compiled (mypyc)"
    return f"{kind}, {Path(file).parents[3]}"


if __name__ == "__main__":
    main()
