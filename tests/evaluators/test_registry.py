"""Every evaluator — code, judge templates (built in, in ./evaluators/, or a file), item-judge,
finance-hybrid, juries — comes from one registry, is built with a record of its arguments and
rebuilt from that record to the same evaluator."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from assay.core.errors import ConfigError
from assay.core.registry import built_from
from assay.core.types import Answer, Item, Score, ScoreStatus
from assay.evaluators.build import EvaluatorFactory
from assay.evaluators.finance import FinanceRubricEvaluator
from assay.evaluators.judge.templates import template_paths
from assay.evaluators.registry import EVALUATORS
from assay.evaluators.rubric.evaluator import FinanceRubric
from assay.models.config import ModelConfig, save_models
from assay.store.db import open_engine
from tests.openai_server import OpenAIServer

STATIC = ["finance-rubric", "finance-cause", "item-judge", "finance-hybrid", "judge-file",
          "jury-majority", "jury-mean"]
CHECKS = ["exact", "contains", "contains-all", "contains-any", "regex", "numeric", "json-valid",
          "json-schema", "length", "similarity", "tool-used", "tool-sequence", "tool-args",
          "max-steps", "no-tool-errors", "python"]  # evaluators/builtin/
TEMPLATES = ["coze-correctness", "coze-ecommerce", "coze-persona", "coze-quality",
             "finsearch-t1-judge-en", "finsearch-t1-judge"]
ITEM = Item("q1", {"prompt": "贵州茅台最新股价", "response_reference": "必答点：最新股价",
                   "truth_text": '{"最新价": "1455.0"}'}, "v", 1)
MY_JUDGE = """---
name: my-judge
placeholders: single
score: {min: 0, max: 1}
---
[user]
Question {prompt}. Answer {response}. Reply {{"score": 1}} or {{"score": 0}}.
"""


@pytest.fixture()
def factory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            openai_server: OpenAIServer) -> EvaluatorFactory:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_TEST_KEY", "sk-test")
    openai_server.default = lambda messages: 'fine.\n{"score": 1}'
    models = tmp_path / "models.yaml"
    save_models({"judge": ModelConfig("judge", openai_server.base_url, "judge-1",
                                      api_key_env="ASSAY_TEST_KEY")}, models)
    return EvaluatorFactory(open_engine(f"sqlite:///{tmp_path / 'a.db'}"), use_cache=False,
                            models_file=models)


def test_every_builtin_is_registered() -> None:
    assert EVALUATORS.names() == [*STATIC, *CHECKS, *TEMPLATES]
    assert list(template_paths()) == TEMPLATES
    kinds = {e["name"]: e["kind"] for e in EVALUATORS.describe()}
    assert [kinds[n] for n in STATIC] == ["code", "code", "judge", "hybrid", "judge", "jury",
                                          "jury"]
    assert {kinds[n] for n in TEMPLATES} == {"judge template"}
    assert {kinds[n] for n in CHECKS} == {"code"}


def test_listed_reads_are_what_the_rubric_reads() -> None:
    listed = {e["name"]: e for e in EVALUATORS.describe()}
    # every item: prompt and reference; a T1 item also its ground truth
    rubric = FinanceRubricEvaluator()
    assert tuple(listed["finance-rubric"]["reads"]) == (*rubric.requires, "ground_truth (T1)")
    assert tuple(listed["finance-hybrid"]["reads"]) == FinanceRubric().requires


def test_a_judge_records_model_and_mapping_and_rebuilds_to_the_same_judgment(
        factory: EvaluatorFactory) -> None:
    async def go() -> list[Any]:
        try:
            ev = factory.build("finsearch-t1-judge-en@judge", {"ground_truth": "truth_text"})
            record = json.loads(json.dumps(built_from(ev).as_dict()))  # type: ignore[union-attr]
            assert record == {"registry": "evaluators", "name": "finsearch-t1-judge-en",
                              "args": {"model": "judge",
                                       "mapping": {"ground_truth": "truth_text"}}}
            again = factory.rebuild(record)
            assert (again.name, again.version, again.requires) == (ev.name, ev.version,
                                                                    ev.requires)
            answer = Answer("最新价1455元")
            return [await e.evaluate(ITEM, answer) for e in (ev, again)]
        finally:
            await factory.close()
    first, second = asyncio.run(go())
    assert (first.value, first.status) == (second.value, second.status) == (1.0,
                                                                          ScoreStatus.SCORED)
    assert first.call is not None and second.call is not None
    assert first.call.messages == second.call.messages
    assert "1455.0" in first.call.messages[-1]["content"]


def test_the_default_judge_model_is_recorded(factory: EvaluatorFactory) -> None:
    factory.judge_model = "judge"

    async def go() -> None:
        try:
            ev = factory.build("item-judge")
            assert ev.name == "item-judge@judge"
            assert built_from(ev).args == {"model": "judge"}  # type: ignore[union-attr]
            hybrid = factory.build("finance-hybrid")
            assert type(hybrid).__name__ == "FinanceHybrid"
            assert built_from(hybrid).args == {"model": "judge"}  # type: ignore[union-attr]
            rubric = factory.build("finance-rubric")  # a code evaluator takes no model
            assert built_from(rubric).args == {}  # type: ignore[union-attr]
        finally:
            await factory.close()
    asyncio.run(go())


def test_a_template_file_and_a_project_template(factory: EvaluatorFactory,
                                                tmp_path: Path) -> None:
    (tmp_path / "mine.md").write_text(MY_JUDGE, "utf-8")
    (tmp_path / "evaluators").mkdir()
    (tmp_path / "evaluators" / "house.md").write_text(MY_JUDGE.replace("my-judge", "house"),
                                                      "utf-8")

    async def go() -> None:
        try:
            ev = factory.build("mine.md@judge")
            assert ev.name == "my-judge@judge"
            assert built_from(ev).as_dict() == {  # type: ignore[union-attr]
                "registry": "evaluators", "name": "judge-file",
                "args": {"path": "mine.md", "model": "judge"}}
            assert factory.rebuild(built_from(ev)).name == "my-judge@judge"  # type: ignore[arg-type]
            assert factory.build("house@judge").name == "house@judge"
        finally:
            await factory.close()
    asyncio.run(go())
    assert EVALUATORS.names()[-1] == "house"


def test_a_project_template_may_not_take_a_registered_name(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "evaluators").mkdir()
    (tmp_path / "evaluators" / "x.md").write_text(
        MY_JUDGE.replace("my-judge", "finance-rubric"), "utf-8")
    with pytest.raises(ConfigError) as err:
        EVALUATORS.names()
    assert str(err.value) == ("evaluator 'finance-rubric' is defined twice: "
                              "assay.evaluators.finance:FinanceRubricEvaluator and "
                              "evaluators/x.md")


@pytest.mark.parametrize(("spec", "mapping", "message"), [
    ("coze-corectness@judge", None,
     "unknown evaluator 'coze-corectness'; did you mean coze-correctness?"),
    ("finance-rubrik", None, "unknown evaluator 'finance-rubrik'; did you mean finance-rubric?"),
    ("finance-rubric@judge", None,
     "evaluator 'finance-rubric' calls no model: write it without @judge"),
    ("finance-rubric", {"a": "b"}, "evaluator 'finance-rubric' takes no variable mapping"),
    ("finance-hybrid@judge", {"a": "b"}, "evaluator 'finance-hybrid' takes no variable mapping"),
    ("finance-hybrid", None, "finance-hybrid reads answers with a model: give --judge-model "
     "MODEL or write finance-hybrid@MODEL"),
    ("coze-quality", None, "evaluator 'coze-quality' is an LLM judge: give --judge-model MODEL "
     "or write coze-quality@MODEL"),
    ("coze-quality@judge", {"answer": "x"}, "evaluator 'coze-quality@judge': mapping names "
     "variable(s) the template does not have: answer (it has input, output)"),
    ("jury-majority", None, "'jury-majority' combines the run's model judges: give the judges "
     "and --jury majority"),
])
def test_mistakes_are_one_line(factory: EvaluatorFactory, spec: str,
                               mapping: dict[str, str] | None, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        factory.build(spec, mapping)
    assert str(err.value) == message


def test_juries_are_registered_combiners() -> None:
    jury = EVALUATORS.build("jury-majority")
    assert jury.name == "jury-majority"
    members = [Score(v, ScoreStatus.SCORED, "", f"j{i}", "1") for i, v in enumerate((1, 1, 0))]
    combined = jury.combine(members)
    assert (combined.value, combined.evaluator) == (1, "jury-majority")
    assert EVALUATORS.build("jury-mean").combine(members).value == pytest.approx(2 / 3)
