"""The store's read functions that reports and views call (they hold no SQL of their own): what
each returns on a small real SQLite store, and the response cache keeping the first reply."""

from __future__ import annotations

from typing import Any

import pytest

from assay.core.model_call import ModelCall, Usage
from assay.core.types import Item
from assay.store import answers, cache, datasets, repo, results, reviews, runs
from assay.store.db import Engine, open_engine
from assay.store.rows import call_columns


def _result(item: str, evaluator: str, score: float | None, status: str, *,
            call: ModelCall | None = None, **extra: Any) -> dict[str, Any]:
    row = {"run_id": "r1", "item_id": item, "target": "recorded", "epoch": 0,
           "evaluator": evaluator, "evaluator_version": "v", "score": score,
           "status": status, "reason": f"{evaluator} on {item}", "created_at": repo.now(),
           "evidence": extra or None}
    return {**row, **call_columns(call)} if call is not None else row


@pytest.fixture()
def engine(db_url: str) -> Engine:
    engine = open_engine(db_url)
    repo.save_dataset(engine, version="d1", name="d", path="d.json", fmt="json", rows=[
        Item("a", {"label": "stock", "sector": ["bank", "tech"]}, "d1", 1),
        Item("b", {"label": "bond"}, "d1", 2),
        Item("c", {}, "d1", 3)])
    repo.create_run(engine, run_id="r1", kind="score", dataset_id="d1",
                    manifest={"name": "first"})
    repo.write_rows(engine, {
        "answers": [{"run_id": "r1", "item_id": i, "target": "recorded", "epoch": 0,
                     "text": "t", "error": None if i != "c" else "boom", "latency_s": lat,
                     "extras": None, **call_columns(ModelCall("m", usage=Usage(4, 6)))}
                    for i, lat in (("a", 0.5), ("b", 1.5), ("c", None))],
    })
    for row in (_result("a", "rubric", 1.0, "scored", k=1, call=ModelCall("m", cost=0.25)),
                _result("b", "rubric", 0.0, "scored"),
                _result("c", "rubric", None, "null"),
                _result("a", "judge", 0.5, "scored", call=ModelCall("m", reply="答案正确。")),
                _result("b", "judge", None, "error")):
        repo.write_rows(engine, {"results": [row]})  # in this order (one shape per insert)
    return engine


def test_aggregate_rows_carry_cost_and_the_group_field(engine: Engine) -> None:
    rows = results.aggregate_rows(engine, "r1", "sector")
    assert [(r.item_id, r.evaluator, r.score, r.status) for r in rows] == [
        ("a", "rubric", 1.0, "scored"), ("b", "rubric", 0.0, "scored"), ("c", "rubric", None, "null"),
        ("a", "judge", 0.5, "scored"), ("b", "judge", None, "error")]
    assert [r[6] for r in rows] == [0.25, None, None, None, None]
    assert [r.group for r in rows] == [["bank", "tech"], None, None, ["bank", "tech"], None]
    assert not hasattr(results.aggregate_rows(engine, "r1", None)[0], "group")


def test_status_counts_group_by_evaluator_and_status(engine: Engine) -> None:
    counts = {(r[1], r[2]): tuple(r[3:]) for r in results.status_counts(engine, "r1")}
    assert counts == {("rubric", "scored"): (2, 1.0, 1.0, 0),
                      ("rubric", "null"): (1, None, None, 0),
                      ("judge", "scored"): (1, 0.5, 0.25, 1),
                      ("judge", "error"): (1, None, None, 0)}


def test_sample_scores_of_some_items(engine: Engine) -> None:
    everything = results.sample_scores(engine, "r1")
    assert len(everything) == 5
    only_b = {(r.evaluator, r.score, r.status) for r in results.sample_scores(engine, "r1", {"b"})}
    assert only_b == {("rubric", 0.0, "scored"), ("judge", None, "error")}
    judge = results.sample_scores(engine, "r1", evaluators=["judge"])
    assert sorted((r.item_id, r.score) for r in judge) == [("a", 0.5), ("b", None)]


def test_reasons_of_some_items_with_the_judges_reply(engine: Engine) -> None:
    got = sorted((r["item_id"], r["evaluator"], r["reason"], r["reply"], r["target"], r["epoch"])
                 for r in results.reasons(engine, "r1", ["a", "b"], ["judge", "rubric"], chunk=1))
    assert got == [("a", "judge", "judge on a", "答案正确。", "recorded", 0),
                   ("a", "rubric", "rubric on a", None, "recorded", 0),
                   ("b", "judge", "judge on b", None, "recorded", 0),
                   ("b", "rubric", "rubric on b", None, "recorded", 0)]
    assert results.reasons(engine, "r1", ["c"], ["judge"]) == []


def test_results_stream_in_insertion_order_in_batches(engine: Engine) -> None:
    streamed = [(r["item_id"], r["evaluator"], r["evidence"])
                for r in results.iter_results(engine, "r1", batch=2)]
    assert streamed[0] == ("a", "rubric", {"k": 1})
    assert [s[:2] for s in streamed] == [("a", "rubric"), ("b", "rubric"), ("c", "rubric"),
                                         ("a", "judge"), ("b", "judge")]


def test_results_page_filters_counts_and_pages(engine: Engine) -> None:
    total, rows = results.results_page(engine, "r1", "d1", limit=2, offset=2)
    assert total == 5
    assert [(r["item_id"], r["evaluator"], r["label"]) for r in rows] == [
        ("c", "rubric", None), ("a", "judge", "stock")]
    assert results.results_page(engine, "r1", "d1", no_score=True)[0] == 2
    assert [r["item_id"] for r in results.results_page(engine, "r1", "d1", score=0.0)[1]] == ["b"]
    assert results.results_page(engine, "r1", "d1", status="error")[1][0]["evaluator"] == "judge"
    total, rows = results.results_page(engine, "r1", "d1", evaluator="judge", label="stock")
    assert total == 1 and rows[0]["reason"] == "judge on a"
    assert results.results_page(engine, "r1", "d1", label="none-such") == (0, [])


def test_item_results_and_evaluator_names(engine: Engine) -> None:
    assert [r["evaluator"] for r in results.item_results(engine, "r1", "a")] == ["rubric", "judge"]
    assert sorted(results.evaluator_names(engine, "r1")) == ["judge", "rubric"]


def test_answer_stats(engine: Engine) -> None:
    stats = sorted((r.latency_s or 0, r.error, r.total_tokens)
                   for r in answers.answer_stats(engine, "r1"))
    assert stats == [(0, "boom", 10), (0.5, None, 10), (1.5, None, 10)]


def test_runs_datasets_and_reviews(engine: Engine) -> None:
    (run,) = runs.list_with_summaries(engine)
    assert (run["id"], run["name"], run["summary"]) == ("r1", "first", None)
    assert "manifest" not in run
    assert [d["id"] for d in datasets.list_datasets(engine)] == ["d1"]
    assert datasets.item_labels(engine, "d1") == ["bond", "stock"]
    assert reviews.newest_review_id(engine, "r1") == 0
    repo.add_review(engine, run_id="r1", item_id="b", evaluator="rubric", score=1.0,
                    reason="right after all", reviewer="li")
    first = reviews.newest_review_id(engine, "r1")
    repo.add_review(engine, run_id="r1", item_id="a", evaluator="judge", score=1.0,
                    reason="full marks", reviewer="li")
    assert reviews.newest_review_id(engine, "r1") > first > 0


def test_the_cache_keeps_the_first_reply(engine: Engine) -> None:
    assert cache.cached_response(engine, "k") is None
    assert cache.keep_response(engine, "k", "m", {"text": "first"}) is True
    assert cache.keep_response(engine, "k", "m", {"text": "second"}) is False
    assert cache.cached_response(engine, "k") == {"text": "first"}
