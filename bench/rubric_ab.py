"""The statement reader (`finance-rubric`'s T1 decision) against an older rubric, in one process,
on `bench/score_bench.py`'s answers (the T1 sample's 99, repeated): the two alternate round by
round, so the machine's minute-to-minute speed cancels out of their ratio.

    PYTHONPATH=SWAPPED/src .venv/bin/python bench/rubric_ab.py [--items 2000] [--rounds 30]

SWAPPED is a tree made by `bench/swap_rubric.sh OLD_TREE SWAPPED` (it holds both rubrics).
Prints µs an answer (median and min over rounds) and the median of the per-round ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from assay.core.types import Answer, Item
from assay.evaluators.finance import FinanceRubricEvaluator

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "finsearch_t1_sample.json"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    try:
        from assay.evaluators.oldrubric.evaluator import (
            FinanceRubric as Old,
        )
    except ImportError:
        raise SystemExit("run with PYTHONPATH=SWAPPED/src (see bench/swap_rubric.sh)") from None
    base = json.loads(SAMPLE.read_text(encoding="utf-8"))
    items = [Item(f"bench-{i}", dict(base[i % len(base)]), line=i + 1) for i in range(args.items)]
    answers = [Answer(it.fields["response"]) for it in items]
    runs = {"reader": FinanceRubricEvaluator().t1.check, "old": Old().evaluate}
    for f in runs.values():  # warm: per-item preparation is cached by content in both
        for it, a in zip(items, answers, strict=True):
            f(it, a)
    times: dict[str, list[float]] = {k: [] for k in runs}
    for r in range(args.rounds):
        for name in (("reader", "old") if r % 2 == 0 else ("old", "reader")):
            f = runs[name]
            start = time.perf_counter()
            for it, a in zip(items, answers, strict=True):
                f(it, a)
            times[name].append(1e6 * (time.perf_counter() - start) / len(items))
    for name, ts in times.items():
        print(f"{name}: median {statistics.median(ts):.1f} µs an answer, min {min(ts):.1f}")
    ratios = [a / b for a, b in zip(times["reader"], times["old"], strict=True)]
    print(f"reader / old, per round: median {statistics.median(ratios):.3f} "
          f"(min {min(ratios):.3f}, max {max(ratios):.3f}, {args.rounds} rounds)")


if __name__ == "__main__":
    main()
