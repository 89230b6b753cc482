"""`finance-cause` on trajectories written and labelled blind (tests/data/cause_corpus): at
most one wrong, each cause represented, and the misses are the known ones."""

from __future__ import annotations

import json
from collections import Counter

from assay.core.types import Answer, Item, ScoreStatus
from assay.evaluators.cause.evaluator import FinanceCause
from tests.conftest import DATA

CORPUS = DATA / "cause_corpus" / "blind_a.jsonl"
KNOWN_MISSES = {"c020"}  # see tests/data/cause_corpus/README.md


def test_the_blind_corpus_is_judged_with_at_most_one_wrong() -> None:
    rows = [json.loads(line) for line in CORPUS.read_text("utf-8").splitlines() if line]
    assert len(rows) >= 60
    labels = Counter(r["cause"] for r in rows)
    assert set(labels) == {"truth_unavailable", "right", "no_retrieval", "wrong_instrument",
                           "stale_data", "misread"}
    ev = FinanceCause()
    wrong = {}
    for n, r in enumerate(rows, 1):
        fields = {k: v for k, v in r.items() if k not in ("cause", "why")}
        score = ev.check(Item(r["id"], fields, "v", n), Answer(r["response"]), None)
        got = "abstained" if score.status == ScoreStatus.ABSTAINED else score.evidence["cause"]
        if got != r["cause"]:
            wrong[r["id"]] = (r["cause"], got)
    assert len(wrong) <= 1, wrong
    assert set(wrong) <= KNOWN_MISSES, wrong
