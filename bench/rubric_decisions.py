"""Every decision `finance-rubric` makes on the labelled corpora and both examples, written one
JSON line each (status, value, reason, evidence), so two source trees can be compared byte for
byte: a change meant to make the rubric faster must leave every line as it was.

    PYTHONPATH=TREE/src .venv/bin/python bench/rubric_decisions.py OUT.jsonl
    cmp OUT_BEFORE.jsonl OUT_AFTER.jsonl

Corpora: tests/data/rubric_corpus (t1 cases and held-out set, t23 cases, the fresh blind sets,
the hostile set) and examples/finsearch_t1_sample.json, finsearch_t23_sample.json. Each answer
is read as written and rewritten seven ways (lower case, upper case, without commas, on one
line, with full-width commas, with 。 for ., doubled), under both rounding readings (benchmark and strict).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from assay.core.types import Answer, Item
from assay.evaluators.finance import FinanceRubricEvaluator

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT / "tests" / "data" / "rubric_corpus"
EXAMPLES = (ROOT / "examples" / "finsearch_t1_sample.json",
            ROOT / "examples" / "finsearch_t23_sample.json")


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]


def cases() -> Iterator[tuple[str, dict[str, Any], str]]:
    """(case id, item fields, answer) for every answer of every corpus, in a fixed order."""
    items = {name: {row["id"]: row for row in _jsonl(CORPORA / name / "items.jsonl")}
             for name in ("t1", "t23")}
    files = [CORPORA / "t1" / "cases.jsonl", CORPORA / "t1" / "heldout.jsonl",
             CORPORA / "t23" / "cases.jsonl"]
    files += sorted(p for p in (CORPORA / "fresh").glob("*.jsonl")
                    if not p.name.endswith("_blind_labels.jsonl"))
    for path in files:
        corpus = "t23" if path.name.startswith("t23") or path.parent.name == "t23" else "t1"
        for k, case in enumerate(_jsonl(path)):
            yield f"{path.relative_to(CORPORA)}:{k}", items[corpus][case["item"]], \
                case["response"]
    for k, case in enumerate(_jsonl(CORPORA / "hostile" / "session9.jsonl")):
        yield f"hostile:{k}", items[case["corpus"]][case["item"]], case["response"]
    for path in EXAMPLES:
        for k, row in enumerate(json.loads(path.read_text("utf-8"))):
            yield f"{path.name}:{k}", row, str(row["response"])


def variants(text: str) -> list[tuple[str, str]]:
    return [("as written", text), ("lower", text.lower()), ("upper", text.upper()),
            ("no commas", text.replace(",", "").replace("，", "")),
            ("one line", " ".join(text.split())), ("full-width commas", text.replace(",", "，")),
            ("。 for .", text.replace(".", "。")), ("doubled", text + "\n" + text)]


def main() -> None:
    out = open(sys.argv[1], "w", encoding="utf-8")  # noqa: SIM115 - written to the end
    rubrics = [(r, FinanceRubricEvaluator(rounding=r)) for r in ("benchmark", "strict")]
    n = 0
    for case_id, fields, response in cases():
        for how, text in variants(response):
            for rounding, rubric in rubrics:
                s = rubric.check(Item(case_id, dict(fields)), Answer(text), None)
                out.write(json.dumps([case_id, how, rounding, str(s.status), s.value, s.reason,
                                      s.evidence], ensure_ascii=False, sort_keys=True,
                                     default=str) + "\n")
                n += 1
    out.close()
    print(f"{n} decisions written to {sys.argv[1]}")


if __name__ == "__main__":
    main()
