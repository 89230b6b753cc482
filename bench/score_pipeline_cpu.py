"""What `assay score` costs without the rubric: the pipeline, the store, start-up and the
summary, with `finance-rubric`'s decision replaced by a constant score (same evidence size for
every answer). Works on trees before and after issue 10 (the evaluator's class differs).

    PYTHONPATH=TREE/src .venv/bin/python bench/score_pipeline_cpu.py DATASET DB OUT

Prints the process's CPU seconds on stderr. Run it for two trees alternately, on N and on N/10
items, to separate the per-sample cost from the fixed one (BENCHMARKS.md, issue 10)."""

from __future__ import annotations

import contextlib
import sys
import time
from typing import Any

from assay.core.types import Score, ScoreStatus

EVIDENCE = {"rule": "x", "values": [{"field": "last", "value": "1455.00", "pass": True}]}


def _score() -> Score:
    return Score(1.0, ScoreStatus.SCORED, "ok", "finance-rubric", "v1", evidence=dict(EVIDENCE))


try:  # after issue 10
    from assay.evaluators.finance import FinanceRubricEvaluator

    def check(self: Any, item: Any, answer: Any, truth: Any = None) -> Score:
        return _score()

    FinanceRubricEvaluator.check = check  # type: ignore[method-assign]
except ImportError:  # before: the rubric's own class
    from assay.evaluators.rubric.evaluator import FinanceRubric  # type: ignore[attr-defined]

    def evaluate(self: Any, item: Any, answer: Any) -> Score:
        return _score()

    FinanceRubric.evaluate = evaluate

from assay.cli.main import main  # noqa: E402

sys.argv = ["assay", "score", sys.argv[1], "-q", "--db", "sqlite:///" + sys.argv[2], "--out",
            sys.argv[3]]
with contextlib.suppress(SystemExit):
    main()
print(f"cpu {time.process_time():.2f} s", file=sys.stderr)
