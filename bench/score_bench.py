"""Score N items with finance-rubric through `assay score`, end to end (load, rubric, store, JSONL).

    .venv/bin/python bench/score_bench.py [--items 100000]

Items are the sample dataset's 99 (question, answer) pairs repeated with fresh ids, so the mix of
languages, rules and answer kinds is the sample's. Prints wall time and items/s for a cold store
(dataset written too) and a warm one (dataset already stored, as in a re-score), and whether the
rubric's reader ran compiled (`make compile`) or as Python.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "finsearch_t1_sample.json"
ASSAY = str(Path(sys.executable).parent / "assay")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100_000)
    args = parser.parse_args()
    base = json.loads(SAMPLE.read_text(encoding="utf-8"))
    items = [dict(base[i % len(base)], prompt_id=f"bench-{i}") for i in range(args.items)]
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "bench.json"
        data.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k != "ASSAY_DB"}
        print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
              f"Python {platform.python_version()}; rubric: {_rubric()}")
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


def _rubric() -> str:
    """How `assay score` will run the rubric's reader: compiled by `make compile`, or as Python."""
    r = subprocess.run([sys.executable, "-c", "import assay.evaluators.rubric as r, "
                        "assay.evaluators.rubric.reader; print(r.compiled())"],
                       capture_output=True, text=True, check=True)
    return "compiled (mypyc)" if r.stdout.strip() == "True" else "Python sources"


if __name__ == "__main__":
    main()
