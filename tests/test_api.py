"""The Python API: `assay.evaluate` runs what `assay run` runs and reads back as a DataFrame."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import assay
from tests.conftest import SAMPLE
from tests.openai_server import OpenAIServer

ROWS = json.loads(SAMPLE.read_text("utf-8"))


def recorded_agent(item: dict[str, Any]) -> str:
    return str(item["response"])


async def async_agent(item: dict[str, Any]) -> dict[str, Any]:
    await asyncio.sleep(0)
    return {"text": str(item["response"]), "metadata": {"agent": "async"}}


def test_evaluate_a_function_on_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run = assay.evaluate(dataset=SAMPLE, target=recorded_agent, evaluators=["finance-rubric"],
                         db=f"sqlite:///{tmp_path / 'a.db'}")
    assert run.status == "finished" and run.id.startswith("r-")
    expected = {r["prompt_id"]: r["expected_score"] for r in ROWS}
    df = run.to_pandas()
    assert len(df) == len(ROWS)
    assert list(df.columns[:7]) == ["item_id", "target", "epoch", "evaluator", "score",
                                    "status", "reason"]
    got = {row.item_id: (None if row.score != row.score else row.score)
           for row in df.itertuples()}
    assert got == expected
    assert run.summary["finance-rubric"]["scored"] == sum(1 for v in expected.values()
                                                          if v is not None)
    assert set(df["target"]) == {"recorded_agent"}


def test_evaluate_rows_in_memory_with_an_async_function(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    rows = ROWS[:5]
    run = assay.evaluate(rows, async_agent, db=f"sqlite:///{tmp_path / 'a.db'}", limit=3)
    res = run.results()
    assert sorted(r["item_id"] for r in res) == sorted(r["prompt_id"] for r in rows[:3])
    assert [r["score"] for r in sorted(res, key=lambda r: r["item_id"])] == [
        r["expected_score"] for r in sorted(rows[:3], key=lambda r: r["prompt_id"])]
    assert list((tmp_path / ".assay" / "inline").glob("*.jsonl"))


def test_evaluate_a_registered_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     openai_server: OpenAIServer) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "assay-models.yaml").write_text(json.dumps({"models": {"m": {
        "base_url": openai_server.base_url, "model": "x"}}}), "utf-8")
    openai_server.default = lambda messages: "最新价1455.00元"
    run = assay.evaluate(ROWS[:2], "model:m", ["finance-rubric"],
                         db=f"sqlite:///{tmp_path / 'a.db'}")
    assert [r["answer"] for r in run.results()] == ["最新价1455.00元"] * 2
    assert [m["messages"][-1]["content"] for m in openai_server.requests] == [
        r["prompt"] for r in ROWS[:2]]


def test_bad_target_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(assay_errors().ConfigError, match="give a function, 'model:NAME'"):
        assay.evaluate(ROWS[:1], "gpt", db=f"sqlite:///{tmp_path / 'a.db'}")


def assay_errors() -> Any:
    from assay.core import errors

    return errors


def _coarse_answer(row: dict[str, Any]) -> str:
    return "约63亿元"


def test_finance_rubric_takes_the_strict_rounding_reading_as_an_argument(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`{name: finance-rubric, args: {rounding: strict}}` in a spec or the API: "63亿元" for a
    reference of 62.57亿元 is right under the default benchmark reading, wrong under strict."""
    monkeypatch.chdir(tmp_path)
    rows = [{"prompt_id": "(T2)Simple_Historical_Lookup_x", "prompt": "保利发展经营活动现金流净额？"
             "（数值保留2位小数）", "response_reference": "62.57亿元，答案允许四舍五入的误差"}]
    scores = []
    for evaluator in ("finance-rubric", {"name": "finance-rubric", "args": {"rounding": "strict"}}):
        run = assay.evaluate(rows, _coarse_answer, evaluators=[evaluator],
                             db=f"sqlite:///{tmp_path / 'a.db'}")
        scores.append([r["score"] for r in run.results()])
    assert scores == [[1.0], [0.0]]
