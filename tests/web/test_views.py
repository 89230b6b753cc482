"""The query functions behind the issue-28 views, on the richer store (tests/web/rich.py)."""

from __future__ import annotations

import pytest

from assay.core.errors import ConfigError
from assay.report.reasons import stated_reason
from assay.store.db import open_engine
from assay.web import queries
from tests.web.conftest import Store
from tests.web.rich import JUDGE, PROSE, RIGHT, STALE, Rich, make_rich


@pytest.fixture(scope="module")
def rich(two_runs: Store, tmp_path_factory: pytest.TempPathFactory) -> Rich:
    return make_rich(two_runs, tmp_path_factory.mktemp("views") / "ui.db")


def test_stated_reason_is_the_judges_prose_not_the_parse_rule() -> None:
    reply = PROSE + "\n最终分数：{\"score\":1}"
    assert stated_reason("last JSON object", "last JSON object", reply) == PROSE
    fenced = "<think>draft</think>The price 12.3 matches.\n```json\n{\"score\": 1}\n```"
    assert stated_reason("fenced block", "fenced block", fenced) == "The price 12.3 matches."
    # a judge that gave a reason keeps it; a code evaluator's reason is its own
    assert stated_reason("回答正确", "last JSON object", '{"Score":1,"Reason":"回答正确"}') \
        == "回答正确"
    assert stated_reason("按规则得1分", None, None) == "按规则得1分"
    # nothing but the verdict: the parse rule is all there is to say
    assert stated_reason("last JSON object", "last JSON object", '{"score":1}') \
        == "last JSON object"


def test_results_show_the_judges_reason(rich: Rich) -> None:
    engine = open_engine(rich.url)
    page = queries.results_page(engine, rich.run_b, evaluator=JUDGE)
    assert page["total"] == 3
    row = next(r for r in page["rows"] if r["item_id"] == RIGHT)
    assert row["reason"] == PROSE and row["parse_note"] == "last JSON object"
    assert row["question"] == "贵州茅台最新股价" and "1455.00" in row["answer"]
    assert "reply" not in row


def test_text_search_field_filters_and_sort(rich: Rich) -> None:
    engine = open_engine(rich.url)
    # text in the reason: exactly the results whose reason says it
    every = queries.results_page(engine, rich.run_a, size=500)["rows"]
    hits = queries.results_page(engine, rich.run_a, text="不在", size=500)
    assert hits["total"] == sum("不在" in r["reason"] for r in every) > 0
    # text in the question
    moutai = queries.results_page(engine, rich.run_a, text="贵州茅台")
    assert moutai["total"] > 0 and all("贵州茅台" in (r["question"] or "") or
                                       "贵州茅台" in (r["answer"] or "")
                                       or "贵州茅台" in r["reason"] for r in moutai["rows"])
    # a LIKE wildcard is a literal character
    assert queries.results_page(engine, rich.run_a, text="%")["total"] < 99
    # any item field, as text
    stock = queries.results_page(engine, rich.run_a, where=["tags=Stock"], size=500)
    assert 0 < stock["total"] < 99
    both = queries.results_page(engine, rich.run_a, where=["tags=Stock", "question_id=S01"])
    assert {r["item_id"] for r in both["rows"]} <= {r["item_id"] for r in stock["rows"]}
    assert all(r["item_id"].startswith("(T1)Assay_Sample_S01") for r in both["rows"])
    # sort by score, descending: ones first, unscored last
    ordered = queries.results_page(engine, rich.run_a, sort="-score", size=500)["rows"]
    scores = [r["score"] for r in ordered]
    assert scores[0] == 1.0 and scores[-1] is None
    assert [s for s in scores if s is not None] == sorted(
        (s for s in scores if s is not None), reverse=True)
    with pytest.raises(ConfigError):
        queries.results_page(engine, rich.run_a, sort="bogus")
    with pytest.raises(ConfigError):
        queries.results_page(engine, rich.run_a, where=["tags"])
    with pytest.raises(ConfigError, match="FIELD has a control character: '\\\\x00'"):
        queries.results_page(engine, rich.run_a, where=["\x00=1"])
    assert "tags" in queries.item_fields(engine, rich.run_a)


def test_compare_matrix_three_runs_and_changed_only(rich: Rich) -> None:
    engine = open_engine(rich.url)
    runs = [rich.run_a, rich.run_b, rich.run_c]
    m = queries.compare_matrix(engine, runs, size=500)
    assert m["evaluator"] == "finance-rubric"  # the one every run has comes first
    assert m["evaluators"] == ["finance-rubric", JUDGE] and m["total"] == 99
    row = next(r for r in m["rows"] if r["item_id"] == RIGHT)
    assert [c["score"] for c in row["cells"]] == [1.0, 0.0, 1.0] and row["changed"]
    same = [r for r in m["rows"] if len({c["score"] for c in r["cells"]}) == 1]
    assert same and not any(r["changed"] for r in same)
    changed = queries.compare_matrix(engine, runs, changed_only=True, size=500)
    assert 0 < changed["total"] < 99 and all(r["changed"] for r in changed["rows"])
    assert changed["total"] == sum(r["changed"] for r in m["rows"])
    # a run without the evaluator: an empty cell, and every sample counts as changed
    j = queries.compare_matrix(engine, runs, evaluator=JUDGE, changed_only=True)
    assert j["total"] == 3 and all(r["cells"][0] is None and r["cells"][1] is not None
                                   for r in j["rows"])
    page2 = queries.compare_matrix(engine, runs, page=2, size=10)
    assert page2["rows"][0]["item_id"] == m["rows"][10]["item_id"] and page2["pages"] == 10
    with pytest.raises(ConfigError):
        queries.compare_matrix(engine, runs, evaluator="nope")


def test_side_by_side(rich: Rich) -> None:
    engine = open_engine(rich.url)
    v = queries.side_by_side(engine, [rich.run_a, rich.run_b], RIGHT)
    assert v["fields"]["prompt"] == "贵州茅台最新股价"
    a, b = v["columns"]
    assert [r["evaluator"] for r in a["results"]] == ["finance-rubric"]
    judge = next(r for r in b["results"] if r["evaluator"] == JUDGE)
    assert judge["stated"] == PROSE and "<script>" in judge["answer"]["text"]
    with pytest.raises(LookupError):
        queries.side_by_side(engine, [rich.run_a], "no-such-item")


def test_runs_list_search_and_run_charts(rich: Rich) -> None:
    engine = open_engine(rich.url)
    runs = queries.runs_list(engine)
    assert {r["id"] for r in runs} >= {rich.run_a, rich.run_b, rich.run_c}
    a = next(r for r in runs if r["id"] == rich.run_a)
    assert a["targets"] == ["recorded"] and a["items"] == 99 and a["tags"] == []
    assert [r["id"] for r in queries.runs_list(engine, text=rich.run_b[-6:])] == [rich.run_b]
    assert queries.runs_list(engine, text="no-such-run") == []
    c = queries.run_charts(engine, rich.run_a)
    assert c["overall"].startswith("<svg") and "finance-rubric" in c["overall"]
    assert "0.557" in c["overall"] and 'class="ci"' in c["overall"]  # the mean and its CI
    (label_chart,) = c["by_label"].values()
    assert "Time-Sensitive_Data_Fetching(Global)"[:34] in label_chart  # charts.bars cuts at 34
    assert "0.588" in label_chart
    assert c["latency"] == {}  # recorded answers: no latency
    assert queries.run_charts(engine, rich.run_a) is c  # kept for a finished run


def test_review_queue_disagreements_first(rich: Rich) -> None:
    engine = open_engine(rich.url)
    q = queries.review_queue(engine, rich.run_b)
    assert q["left"] == 99 and q["reviewed"] == 0
    disagree, uncertain, rest = q["counts"]
    # the judge passed S01_right (the rules failed its script's "1") and failed S01_stale
    assert disagree == 2 and uncertain >= 1 and disagree + uncertain + rest == 99
    n = q["next"]
    assert n["kind"] == "evaluators disagree" and n["item_id"] in (RIGHT, STALE)
    assert [s["target"] for s in n["view"]["samples"]] == ["recorded"]
    second = queries.review_queue(engine, rich.run_b, skip=1)["next"]
    assert second["kind"] == "evaluators disagree" and second["item_id"] != n["item_id"]
    third = queries.review_queue(engine, rich.run_b, skip=2)["next"]
    assert third["kind"] == "abstained, unscored or failed"
    assert queries.review_queue(engine, rich.run_b, skip=10_000)["next"] is not None
