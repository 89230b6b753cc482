"""`finance-rubric` on the labelled T1 corpus (tests/data/rubric_corpus/t1, 744 answers, 731 written
blind in the styles real agents produce, each labelled by the written judge rules) and on its
held-out set (t1/heldout.jsonl, 120 answers written blind by a second writer after the rubric
was built): no wrong decision on either, and at most 3 % abstentions. Run with `-s` to see the
confusion tables by class (also: bench/rubric_corpus.py [--heldout])."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "data" / "rubric_corpus" / "t1"


def _bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("rubric_corpus", ROOT / "bench" /
                                                  "rubric_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module", params=["cases.jsonl", "heldout.jsonl"])
def results(request):  # type: ignore[no-untyped-def]
    bench = _bench()
    out = bench.score_all(CORPUS, request.param)
    print(f"\n{request.param}\n" + bench.table(out))
    return out


def test_the_corpus_is_the_one_described() -> None:
    cases = [json.loads(x) for x in (CORPUS / "cases.jsonl").read_text("utf-8").splitlines()]
    items = {json.loads(x)["id"] for x in (CORPUS / "items.jsonl").read_text("utf-8")
             .splitlines()}
    assert len(cases) >= 420 and len(items) >= 30
    assert {c["item"] for c in cases} <= items
    assert Counter(str(c["label"]) for c in cases).keys() == {"0", "1", "null"}


def test_the_heldout_set_is_the_one_described() -> None:
    cases = [json.loads(x) for x in (CORPUS / "heldout.jsonl").read_text("utf-8").splitlines()]
    items = {json.loads(x)["id"] for x in (CORPUS / "items.jsonl").read_text("utf-8")
             .splitlines()}
    main = {json.loads(x)["id"] for x in (CORPUS / "cases.jsonl").read_text("utf-8")
            .splitlines()}
    assert len(cases) == 120 and {c["item"] for c in cases} <= items
    assert not main & {c["id"] for c in cases}  # its own answers, not the corpus's
    assert Counter(str(c["label"]) for c in cases) == {"1": 60, "0": 56, "null": 4}


def test_no_wrong_decision(results) -> None:  # type: ignore[no-untyped-def]
    wrong = [(c["id"], c["label"], str(s.status), s.value, s.reason[:160])
             for c, s, r in results if r == "wrong"]
    assert wrong == []


def test_abstentions_at_most_3_percent(results) -> None:  # type: ignore[no-untyped-def]
    abstained = [c["id"] for c, _, r in results if r == "abstained"]
    assert len(abstained) <= 0.03 * len(results), abstained


def test_every_abstention_names_its_candidates(results) -> None:  # type: ignore[no-untyped-def]
    for _, s, r in results:
        if r == "abstained":
            assert s.value is None and s.evidence["candidates"]
