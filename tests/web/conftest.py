"""A store with two scored runs of the sample to look at: A, the recorded answers; B, every
item answered with its question's right answer (so items flip 0 → 1), one answer carrying a
<script> tag."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import SAMPLE

XSS = "<script>window.__pwned = 1</script>最新价1455.00元"


@dataclass
class Store:
    url: str
    run_a: str
    run_b: str
    path: Path


def _score(url: str, responses: Path | None) -> str:
    from assay.cli.score_cmd import run_score
    from assay.store import repo
    from assay.store.db import open_engine

    before = {r["id"] for r in repo.list_runs(open_engine(url), 1000)}
    code = run_score(dataset=SAMPLE, responses=responses, evaluators=["finance-rubric"],
                     out=None, fields=[], id_field=None, response_field="response",
                     fail_under=None, db=url, quiet=True)
    assert code == 0
    (new,) = {r["id"] for r in repo.list_runs(open_engine(url), 1000)} - before
    return new


@pytest.fixture(scope="session")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> Store:
    tmp = tmp_path_factory.mktemp("web")
    url = f"sqlite:///{tmp / 'ui.db'}"
    rows = json.loads(SAMPLE.read_text("utf-8"))
    right = {r["question_id"]: r["response"] for r in rows if r["answer_kind"] == "right"}
    answers = []
    for r in rows:
        text = right.get(r["question_id"], r["response"])
        if r["prompt_id"] == "(T1)Assay_Sample_S01_right":
            text = XSS
        answers.append({"item_id": r["prompt_id"], "answer": text})
    (tmp / "b.jsonl").write_text("".join(json.dumps(a, ensure_ascii=False) + "\n"
                                         for a in answers), "utf-8")
    run_a = _score(url, None)
    run_b = _score(url, tmp / "b.jsonl")
    return Store(url, run_a, run_b, tmp)
