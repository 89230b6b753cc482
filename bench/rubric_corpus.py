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
    """right, abstained, or the kind of wrong: a false accept (1 where the label is 0 or null:
    the worst), a false reject (0 where the label is 1), or wrong (null, error, another value)."""
    if score.status == ScoreStatus.ABSTAINED:
        return "abstained"
    if label == "null":
        if score.status == ScoreStatus.NULL:
            return "right"
        return "false accept" if score.value == 1.0 else "wrong"
    if score.status == ScoreStatus.SCORED and score.value == float(label):
        return "right"
    if score.status == ScoreStatus.SCORED and score.value == 1.0:
        return "false accept"
    if score.status == ScoreStatus.SCORED and label == 1:
        return "false reject"
    return "wrong"


WRONG = ("false accept", "false reject", "wrong")


def score_all(corpus: Path = CORPORA / "t1", cases_file: str = "cases.jsonl",
              label_key: str = "label", **options: Any
              ) -> list[tuple[dict[str, Any], Score, str]]:
    items, cases = load(corpus, cases_file)
    # what `-e finance-rubric` runs: T1 and T2/T3
    rubric = FinanceRubricEvaluator(**options) if options else FinanceRubricEvaluator()
    out = []
    # the T2/T3 corpus was labelled under the strict rounding reading; where the benchmark
    # reading (the default) decides otherwise, the case carries `label_benchmark`
    key = "label_benchmark" if label_key == "label" and options.get("rounding") != "strict" \
        else label_key
    for case in cases:
        item = items[case["item"]]
        s = rubric.check(Item(case["item"], item), Answer(case["response"]), None)
        out.append((case, s, outcome(s, case.get(key, case[label_key]))))
    return out


def _class(case: dict[str, Any]) -> str:
    return str(case.get("class") or case.get("style") or "")


def table(results: list[tuple[dict[str, Any], Score, str]]) -> str:
    by: dict[str, Counter[str]] = {}
    for case, _, result in results:
        by.setdefault(_class(case), Counter())[result] += 1
    total: Counter[str] = Counter()
    lines = [f"| {'class':<24} | right | false reject | false accept | other wrong | abstained "
             "| total |", f"|{'-' * 26}|------:|-------------:|-------------:|------------:|"
             "----------:|------:|"]

    def row(name: str, c: Counter[str]) -> str:
        return (f"| {name:<24} | {c['right']:>5} | {c['false reject']:>12} | "
                f"{c['false accept']:>12} | {c['wrong']:>11} | {c['abstained']:>9} "
                f"| {sum(c.values()):>5} |")

    for cls in sorted(by):
        total.update(by[cls])
        lines.append(row(cls, by[cls]))
    n = sum(total.values())
    lines.append(row("**total**", total))
    wrong = sum(total[w] for w in WRONG)
    lines.append(f"\nright {total['right'] / n:.1%}, wrong {wrong} (false accepts "
                 f"{total['false accept']}), abstained {total['abstained'] / n:.1%} of {n} cases")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", choices=["t1", "t23"], default="t1")
    ap.add_argument("--show", choices=["wrong", "abstained", "all"], default="wrong")
    ap.add_argument("--heldout", action="store_true",
                    help="the T1 held-out set (t1/heldout.jsonl) instead of t1/cases.jsonl")
    ap.add_argument("--class", dest="cls", default=None)
    ap.add_argument("--cases", default=None,
                    help="another answer file (JSONL, path relative to the corpus folder or "
                         "absolute), e.g. fresh/t1_A.jsonl")
    ap.add_argument("--label-key", default="label",
                    help="the label to compare with (label_strict: with --rounding strict)")
    ap.add_argument("--rounding", choices=["benchmark", "strict"], default=None,
                    help="T2/T3 rounding reading (default: the evaluator's, benchmark)")
    args = ap.parse_args()
    if args.heldout and args.corpus != "t1":
        ap.error("--heldout is a T1 set: use it with --corpus t1")
    cases = args.cases or (HELDOUT if args.heldout else "cases.jsonl")
    options = {"rounding": args.rounding} if args.rounding else {}
    results = score_all(CORPORA / args.corpus, cases, args.label_key, **options)
    print(table(results))
    for case, s, result in results:
        if result == "right" or (args.show not in ("all", "wrong") and result != args.show) or (
                args.show == "wrong" and result not in WRONG):
            continue
        if args.cls and _class(case) != args.cls:
            continue
        print(f"\n{case['id']} [{_class(case)}] label={case[args.label_key]} → {result}: "
              f"{s.status} {s.value} — {s.reason[:300]}")
        print(f"  answer: {case['response'][:400]!r}")
        print(f"  label reason: {case['reason']}")


if __name__ == "__main__":
    main()
