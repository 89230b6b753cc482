"""Experiment specs: what a user writes, and the one-line errors for what they get wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.core.errors import ConfigError
from assay.core.types import Item
from assay.datasets.loader import load_dataset
from assay.datasets.select import select_items
from assay.runner.spec import load_spec
from tests.conftest import SAMPLE

GOOD = f"""\
name: t1
dataset:
  path: {SAMPLE}
  filter: {{answer_kind: [right, stale]}}
  sample: 10
  seed: 3
targets:
  - {{name: a, type: recorded}}
  - {{name: b, type: model, model: m, prompt: "Q: {{prompt}}"}}
evaluators:
  - finance-rubric
  - {{name: coze-correctness, model: judge, mapping: {{input: prompt}}}}
concurrency: 4
repeats: 2
tags: [nightly]
"""


def write(tmp_path: Path, text: str, name: str = "spec.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text, "utf-8")
    return p


def test_a_full_spec(tmp_path: Path) -> None:
    spec = load_spec(write(tmp_path, GOOD))
    assert spec.name == "t1" and spec.concurrency == 4 and spec.repeats == 2
    assert [(t.name, t.type) for t in spec.targets] == [("a", "recorded"), ("b", "model")]
    assert spec.targets[1].options == {"model": "m", "prompt": "Q: {prompt}"}
    assert [(e.name, e.mapping) for e in spec.evaluators] == [
        ("finance-rubric", {}), ("coze-correctness@judge", {"input": "prompt"})]
    assert spec.dataset.filter == {"answer_kind": ["right", "stale"]}
    assert spec.tags == ["nightly"] and spec.ground_truth == "stored"


def test_toml_spec_and_relative_paths(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "x.jsonl").write_text('{"id": "a", "prompt": "q"}\n', "utf-8")
    p = write(tmp_path, 'evaluators = ["finance-rubric"]\n\n[dataset]\npath = "data/x.jsonl"\n\n'
                 '[[targets]]\nname = "r"\ntype = "recorded"\n', "spec.toml")
    spec = load_spec(p)
    assert spec.dataset.path == tmp_path / "data" / "x.jsonl"


@pytest.mark.parametrize(("text", "message"), [
    ("dataset: x.json\ntargets: [{type: robot}]\nevaluators: [finance-rubric]\n",
     "spec.yaml:2: targets[0].type: unknown target type 'robot' (known: model, http, "
     "python, command, recorded, baseline-quote-agent)"),
    ("dataset: x.json\ntargets:\n  - type: model\n    modle: m\nevaluators: [a]\n",
     "spec.yaml:4: targets[0].modle: not a model target option"),
    ("dataset: x.json\ntargets:\n  - type: http\nevaluators: [a]\n",
     "spec.yaml:3: targets[0]: a http target needs 'url'"),
    ("dataset:\n  path: x.json\n  limit: -1\ntargets: [{type: recorded}]\nevaluators: [a]\n",
     "spec.yaml:3: dataset.limit: must be a positive whole number"),
    ("dataset: x.json\ntargets: [{type: recorded}]\nevaluators: []\n",
     "spec.yaml:3: evaluators: must be a non-empty list"),
    ("dataset: x.json\ntargets: [{type: recorded}]\nevaluators: [a]\nconcurency: 3\n",
     "spec.yaml:4: concurency: unknown key"),
    ("dataset: x.json\ntargets: [{type: recorded}]\nevaluators: [exact]\nground_truth: fresh\n",
     "spec.yaml:4: ground_truth: ground-truth mode 'fresh' is not one of stored, live"),
    ("dataset: x.json\ntargets: [{type: recorded}]\nevaluators: [exact]\nground_truth: live\n"
     "truth: {provder: akshare}\n", "spec.yaml:5: truth: truth.provder: unknown key"),
    ("dataset: x.json\ntargets: [{type: recorded}]\nevaluators: [a]\n",
     "spec.yaml:3: evaluators[0]: unknown evaluator 'a'"),
    ("targets: [{type: recorded}]\nevaluators: [a]\n", "spec.yaml: missing 'dataset'"),
    ("dataset: x.json\ntargets: [{type: recorded}, {type: recorded}]\nevaluators: [a]\n",
     "spec.yaml:2: targets[1].name: target name 'recorded' is used twice"),
    ("dataset: [x\n", "spec.yaml:2: invalid YAML"),
])
def test_spec_errors_name_file_line_and_field(tmp_path: Path, text: str, message: str) -> None:
    p = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_spec(p)
    assert str(err.value).replace(str(tmp_path) + "/", "").startswith(message)


def test_selection_filters_samples_with_a_seed_and_limits(tmp_path: Path) -> None:
    spec = load_spec(write(tmp_path, GOOD))
    ds = load_dataset(SAMPLE)

    def pick(limit: int | None = None) -> list[Item]:
        d = spec.dataset
        return select_items(ds.items, filter=d.filter, sample=d.sample, seed=d.seed,
                            limit=limit or d.limit)

    chosen = pick()
    kinds = {it.fields["answer_kind"] for it in chosen}
    assert len(chosen) == 10 and kinds <= {"right", "stale"}
    assert [it.id for it in chosen] == [it.id for it in pick()]
    order = [it.id for it in ds.items]
    assert [order.index(i.id) for i in chosen] == sorted(order.index(i.id) for i in chosen)
    spec.dataset.seed = 4
    assert [it.id for it in pick()] != [it.id for it in chosen]
    assert [it.id for it in pick(3)] == [it.id for it in pick()[:3]]
    pool = [it for it in ds.items if it.fields["answer_kind"] in ("right", "stale")]
    assert len(pool) == 45
