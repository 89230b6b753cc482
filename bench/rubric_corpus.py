"""`finance-rubric` on a labelled answer corpus (tests/data/rubric_corpus/t1: T1 live quotes;
t23: T2/T3 historical lookups): the confusion table right / wrong / abstained by class, and the
cases that are not right.

    .venv/bin/python bench/rubric_corpus.py [--corpus t1|t23] [--heldout]
                                            [--show wrong|abstained|all] [--class NAME]

`--heldout` reads the T1 held-out set instead (t1/heldout.jsonl: 120 answers to the same
items, written blind by a second writer after the rubric was built on cases.jsonl).

A case is right when the rubric decides its label (1, 0, or null for "null"), abstained when
it says it cannot decide, and wrong otherwise (another value, or an error).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT / "tests" / "data" / "rubric_corpus"
HELDOUT = "heldout.jsonl"  # in t1/: answers written blind after the rubric was built
sys.path.insert(0, str(ROOT / "src"))

from assay.core.types import Answer, Item, Score, ScoreStatus  # noqa: E402
from assay.evaluators.finance import FinanceRubricEvaluator  # noqa: E402


def load(corpus: Path, cases_file: str = "cases.jsonl"
         ) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    items = {}
    for line in (corpus / "items.jsonl").read_text("utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            items[row["id"]] = row
    cases = [json.loads(x) for x in (corpus / cases_file).read_text("utf-8").splitlines()
             if x.strip()]
    return items, cases


def outcome(score: Score, label: Any) -> str:
    if score.status == ScoreStatus.ABSTAINED:
        return "abstained"
    if label == "null":
        return "right" if score.status == ScoreStatus.NULL else "wrong"
    if score.status == ScoreStatus.SCORED and score.value == float(label):
        return "right"
    return "wrong"


def score_all(corpus: Path = CORPORA / "t1", cases_file: str = "cases.jsonl"
              ) -> list[tuple[dict[str, Any], Score, str]]:
    items, cases = load(corpus, cases_file)
    rubric = FinanceRubricEvaluator()  # what `-e finance-rubric` runs: T1 and T2/T3
    out = []
    for case in cases:
        item = items[case["item"]]
        s = rubric.check(Item(case["item"], item), Answer(case["response"]), None)
        out.append((case, s, outcome(s, case["label"])))
    return out


def table(results: list[tuple[dict[str, Any], Score, str]]) -> str:
    by: dict[str, Counter[str]] = {}
    for case, _, result in results:
        by.setdefault(case["class"], Counter())[result] += 1
    total: Counter[str] = Counter()
    lines = [f"| {'class':<24} | right | wrong | abstained | total |",
             f"|{'-' * 26}|------:|------:|----------:|------:|"]
    for cls in sorted(by):
        c = by[cls]
        total.update(c)
        lines.append(f"| {cls:<24} | {c['right']:>5} | {c['wrong']:>5} | {c['abstained']:>9} "
                     f"| {sum(c.values()):>5} |")
    n = sum(total.values())
    lines.append(f"| {'**total**':<24} | {total['right']:>5} | {total['wrong']:>5} "
                 f"| {total['abstained']:>9} | {n:>5} |")
    lines.append(f"\nright {total['right'] / n:.1%}, wrong {total['wrong']}, "
                 f"abstained {total['abstained'] / n:.1%} of {n} cases")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", choices=["t1", "t23"], default="t1")
    ap.add_argument("--show", choices=["wrong", "abstained", "all"], default="wrong")
    ap.add_argument("--heldout", action="store_true",
                    help="the T1 held-out set (t1/heldout.jsonl) instead of t1/cases.jsonl")
    ap.add_argument("--class", dest="cls", default=None)
    args = ap.parse_args()
    if args.heldout and args.corpus != "t1":
        ap.error("--heldout is a T1 set: use it with --corpus t1")
    results = score_all(CORPORA / args.corpus, HELDOUT if args.heldout else "cases.jsonl")
    print(table(results))
    for case, s, result in results:
        if result == "right" or (args.show != "all" and result != args.show):
            continue
        if args.cls and case["class"] != args.cls:
            continue
        print(f"\n{case['id']} [{case['class']}] label={case['label']} → {result}: "
              f"{s.status} {s.value} — {s.reason[:300]}")
        print(f"  answer: {case['response'][:400]!r}")
        print(f"  label reason: {case['reason']}")


if __name__ == "__main__":
    main()
