"""runner/spec.py builds a spec that has only `assay score`'s keys, in their plain forms,
without the pydantic models (a score run's start-up): the same ExperimentSpec as the models
build, and, for any value in another form or one the models refuse, nothing, so the models read
it and say what is wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay.core.errors import ConfigError
from assay.runner.experiment_spec import ExperimentSpec
from assay.runner.spec import _plain, located, parse_spec
from assay.runner.spec_models import read_spec

CHECK = "def ok(item, answer):\n    return 1.0\n"


def score_data(folder: Path, **changes: Any) -> dict[str, Any]:
    """What runner/score.py's `score_spec` writes, with `changes`."""
    data: dict[str, Any] = {
        "name": "items", "dataset": {"path": str(folder / "items.jsonl"), "fields": {}},
        "targets": [{"name": "recorded", "type": "recorded", "field": "response"}],
        "evaluators": ["json-valid"], "ground_truth": "stored", "commit": "batch",
        "concurrency": "auto", "group_by": "label"}
    for key, value in changes.items():
        if value is ...:
            data.pop(key)
        else:
            data[key] = value
    return data


def modelled(data: dict[str, Any], path: Path) -> ExperimentSpec:
    """`data` as the models build it, located as parse_spec locates it."""
    spec = read_spec(data, path)
    located(spec.evaluators, path, None)
    return spec


PLAIN = {
    "as score writes it": {},
    "every option of score": dict(
        dataset={"path": "items.jsonl", "fields": {"reference_output": "gold"},
                 "id_field": "id"},
        targets=[{"name": "recorded", "type": "recorded", "field": "answer",
                  "file": "answers.jsonl"}],
        evaluators=["json-valid", "numeric", "coze-correctness@judge", "python:checks.py:ok",
                    "finance-rubric"],
        jury="majority", judge_model="judge", executor="ray", budget={"usd": 2},
        timeout_s=1.5, group_by="category"),
    "a named dataset": dict(dataset={"name": "prices@3"}),
    "a named dataset's latest": dict(dataset={"name": "prices"}),
    "fewest keys": dict(name=..., ground_truth=..., commit=..., concurrency=..., group_by=...),
    "nulls": dict(name=None, jury=None, judge_model=None, executor=None, budget=None,
                  timeout_s=None, dataset={"path": "items.jsonl", "fields": None,
                                           "id_field": None}),
    "a concurrency, an executor": dict(concurrency=3, commit="group", executor="local",
                                       budget={"usd": 0.25}, timeout_s=7),
    "a target without a name": dict(targets=[{"type": "recorded"}]),
    "an empty name": dict(name="", judge_model=""),
}


@pytest.mark.parametrize("changes", PLAIN.values(), ids=PLAIN.keys())
def test_a_plain_spec_is_what_the_models_build(tmp_path: Path, changes: dict[str, Any]) -> None:
    (tmp_path / "checks.py").write_text(CHECK, "utf-8")
    data, path = score_data(tmp_path, **changes), tmp_path / "assay-score.yaml"
    plain = _plain(data, path)
    assert plain is not None
    located(plain.evaluators, path, None)
    assert plain == modelled(data, path) == parse_spec(data, path)


REFUSED = {
    # another key, or another form of one: the models' to read
    "repeats": dict(repeats=2),
    "target": dict(targets=..., target={"type": "recorded"}),
    "an entry as a mapping": dict(evaluators=[{"name": "numeric", "args": {"abs": 1}}]),
    "an entry with when": dict(evaluators=[{"name": "numeric",
                                            "when": {"reference": "number"}}]),
    "a dataset as text": dict(dataset="items.jsonl"),
    "a filter": dict(dataset={"path": "items.jsonl", "filter": {"label": "x"}}),
    "an executor as a mapping": dict(executor={"type": "ray", "workers": 3}),
    "ground truth live": dict(ground_truth="live"),
    "a name as a number": dict(name=7),
    "a field as a number": dict(dataset={"path": "items.jsonl", "fields": {"a": 1}}),
    # values the models refuse
    "no evaluator": dict(evaluators=[]),
    "an unknown evaluator": dict(evaluators=["json-valid", "no-such-check"]),
    "a missing check file": dict(evaluators=["python:missing.py:f"]),
    "an unknown jury": dict(jury="median"),
    "an unknown executor": dict(executor="k8s"),
    "a budget of 0": dict(budget={"usd": 0}),
    "a budget as text": dict(budget={"usd": "2"}),
    "another budget key": dict(budget={"usd": 2, "eur": 1}),
    "a negative timeout": dict(timeout_s=-1),
    "an infinite timeout": dict(timeout_s=float("inf")),
    "a concurrency of 0": dict(concurrency=0),
    "a concurrency true": dict(concurrency=True),
    "a commit": dict(commit="never"),
    "a NUL": dict(group_by="la\0bel"),
    "a bad dataset version": dict(dataset={"name": "prices@0x"}),
    "path and name": dict(dataset={"path": "items.jsonl", "name": "prices"}),
    "no dataset": dict(dataset=...),
    "an unknown target type": dict(targets=[{"name": "r", "type": "nope"}]),
    "an unknown target option": dict(targets=[{"name": "r", "type": "recorded",
                                               "model": "m"}]),
    "a target twice": dict(targets=[{"type": "recorded"}, {"type": "recorded"}]),
    "no target": dict(targets=[]),
}


@pytest.mark.parametrize("changes", REFUSED.values(), ids=REFUSED.keys())
def test_anything_else_is_left_to_the_models(tmp_path: Path, changes: dict[str, Any]) -> None:
    data, path = score_data(tmp_path, **changes), tmp_path / "assay-score.yaml"
    assert _plain(data, path) is None
    try:
        built = modelled(data, path)
    except ConfigError as exc:  # refused: parse_spec says it as the models do
        with pytest.raises(ConfigError) as said:
            parse_spec(data, path)
        assert str(said.value) == str(exc)
    else:
        assert parse_spec(data, path) == built
