"""`finance-rubric` loads the T2/T3 reader only for the first T2/T3 item: its modules compile
their patterns at import, and a run of T1 items (the live-quote benchmark) paid for them once
the `rounding` argument imported its check from the reader (BENCHMARKS.md, twelfth session).
Checked in a fresh interpreter: this process has loaded every module already."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.process

EXAMPLES = Path(__file__).parents[2] / "examples"
PROBE = """
import json, sys
from assay.core.types import Answer, Item
from assay.evaluators.finance import FinanceRubricEvaluator
reader = [m for m in ("assay.evaluators.historical.reference",
                      "assay.evaluators.historical.tolerance",
                      "assay.evaluators.historical.evaluator")]
loaded = lambda: [m for m in reader if m in sys.modules]
e = FinanceRubricEvaluator(rounding="strict")
out = {"built": loaded()}
for row in json.loads(sys.argv[1]):
    item = Item(id=row["prompt_id"], fields=row)
    e.check(item, Answer(text=row["response"]))
    out.setdefault("after", []).append(loaded())
print(json.dumps(out))
"""


def _probe(rows: list[dict]) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(rows, ensure_ascii=False)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def test_a_t1_item_never_loads_the_t2_t3_reader() -> None:
    t1 = json.loads((EXAMPLES / "finsearch_t1_sample.json").read_text("utf-8"))[:3]
    assert _probe(t1) == {"built": [], "after": [[], [], []]}


def test_the_first_t2_t3_item_loads_it() -> None:
    t23 = json.loads((EXAMPLES / "finsearch_t23_sample.json").read_text("utf-8"))[:1]
    loaded = _probe(t23)
    assert loaded["built"] == []
    assert loaded["after"] == [["assay.evaluators.historical.reference",
                                "assay.evaluators.historical.tolerance",
                                "assay.evaluators.historical.evaluator"]]


def test_a_score_built_in_code_loads_no_yaml_and_on_sqlite_no_postgresql(tmp_path: Path) -> None:
    # YAML is read where a spec file, a judge template or a command-line option is: a run
    # whose spec is built in code (the API, the score bench) does not pay ~30 ms to load it.
    # PostgreSQL's dialect is loaded by a PostgreSQL engine only (~0.13 G instructions).
    probe = f"""
import asyncio, json, sys
from pathlib import Path
from assay.runner.score import score, score_spec
from assay.store.db import open_engine
d = Path({str(tmp_path)!r})
rows = json.loads(Path({str(EXAMPLES / "finsearch_t1_sample.json")!r}).read_text("utf-8"))[:2]
(d / "data.json").write_text(json.dumps(rows, ensure_ascii=False), "utf-8")
asyncio.run(score(open_engine(f"sqlite:///{{d / 'db.sqlite'}}"),
                  score_spec(d / "data.json", ["finance-rubric"]), out=d / "out.jsonl"))
print(json.dumps(["yaml" in sys.modules, "sqlalchemy.dialects.postgresql" in sys.modules,
                  len((d / "out.jsonl").read_text().splitlines())]))
"""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert json.loads(done.stdout.splitlines()[-1]) == [False, False, 2]
