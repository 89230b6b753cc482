"""Experiment specs: what a user writes, and the one-line errors for what they get wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.core.errors import ConfigError
from assay.core.types import Item
from assay.datasets.loader import load_dataset
from assay.datasets.select import select_items
from assay.online.spec import parse_watch_spec
from assay.runner.spec import load_spec, parse_spec
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
     "truth: {provder: akshare}\n", "spec.yaml:5: truth.provder: unknown key (known: cache_s, "
     "field, market, min_interval_s, provider, token_env, window_s)"),
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


# -- through the pydantic models (runner/spec.py, core/specmodel.py): the whole line -----------

TWO = f"dataset: {SAMPLE}\ntargets:\n  - {{name: a, type: recorded}}\n  - name: b\n    type: model\n"


@pytest.mark.parametrize(("text", "message"), [
    # a missing field: at the mapping that lacks it (the top: no line), with what it takes
    (f"dataset: {SAMPLE}\ntargets: [{{type: recorded}}]\n",
     "spec.yaml: missing 'evaluators' (a non-empty list of evaluator names or mappings)"),
    (f"dataset: {SAMPLE}\ntargets: [{{type: recorded}}]\nevaluators: [exact]\nbudget: {{}}\n",
     "spec.yaml:4: budget: missing 'usd' (an amount in US dollars)"),
    (f"dataset: {SAMPLE}\ntargets: [{{name: a}}]\nevaluators: [exact]\n",
     "spec.yaml:2: targets[0]: missing 'type' (known: model, http, python, command, recorded, "
     "baseline-quote-agent)"),
    # a wrong type
    (f"dataset:\n  path: {SAMPLE}\n  sample: 2.5\ntargets: [{{type: recorded}}]\n"
     "evaluators: [exact]\n", "spec.yaml:3: dataset.sample: must be a positive whole number"),
    (f"dataset:\n  path: {SAMPLE}\n  fields: {{response: [a, b]}}\ntargets: [{{type: recorded}}]"
     "\nevaluators: [exact]\n", "spec.yaml:3: dataset.fields: must be a mapping of NAME: COLUMN"),
    (f"dataset: {SAMPLE}\ntargets: [{{type: recorded}}]\nevaluators: [exact]\nconcurrency: "
     "many\n", "spec.yaml:4: concurrency: must be a whole number ≥ 1, or auto"),
    # the conversation section (docs/agents.md)
    (f"dataset: {SAMPLE}\ntargets: [{{type: recorded}}]\nevaluators: [exact]\nconversation:\n"
     "  score: median\n", "spec.yaml:5: conversation.score: must be one of min, mean, "
     "product, last"),
    (f"dataset: {SAMPLE}\ntargets: [{{type: recorded}}]\nevaluators: [exact]\nconversation:\n"
     "  max_turns: 0\n", "spec.yaml:5: conversation.max_turns: must be a whole number from 1 "
     "to 1000"),
    (f"dataset: {SAMPLE}\ntargets: [{{type: recorded}}]\nevaluators: [exact]\nconversation:\n"
     "  evaluate: sometimes\n", "spec.yaml:5: conversation.evaluate: must be one of "
     "each_turn, final_turn, never"),
    (f"dataset: {SAMPLE}\ntargets: [{{type: recorded}}]\nevaluators: [exact]\ngroup_by: [a]\n",
     "spec.yaml:4: group_by: must be text"),
    # an unknown key, at any depth, with the keys its section knows
    (f"dataset: {SAMPLE}\ntargets: [{{type: recorded}}]\nevaluators: [exact]\nbudget:\n"
     "  usd: 1\n  eur: 2\n", "spec.yaml:6: budget.eur: unknown key (known: usd)"),
    (f"dataset: {SAMPLE}\ntargets: [{{type: recorded}}]\nevaluator: [exact]\n",  # not 'missing'
     "spec.yaml:3: evaluator: unknown key (known: budget, commit, concurrency, conversation, dataset, "
     "description, evaluators, executor, ground_truth, group_by, judge_model, jury, name, otlp, "
     "repeats, seed, tags, target, targets, timeout_s, truth)"),
    (f"dataset: {SAMPLE}\ntarget: {{type: recorded}}\ntargets: [{{type: recorded}}]\n"
     "evaluators: [exact]\n", "spec.yaml:2: target: write 'targets' (a list) or 'target' (one), "
     "not both"),
    # a bad value in a nested list entry: the entry's own line, and the key in it
    (TWO + "    model: m\n    modle: m\nevaluators: [exact]\n",
     "spec.yaml:7: targets[1].modle: not a model target option (known: model, params, "
     "placeholders, prompt, system)"),
    (TWO + "    model: m\nevaluators:\n  - exact\n  - name: numeric\n    args: {abs: -1}\n",
     "spec.yaml:10: evaluators[1].args: evaluator 'numeric': 'abs' must be a number ≥ 0, not -1"),
    (TWO + "    model: m\nevaluators: [exact]\nexecutor:\n  type: ray\n  workers: 1.5\n",
     "spec.yaml:10: executor.workers: must be a whole number ≥ 1"),
    (f"dataset: {SAMPLE}\ntargets: [{{type: recorded}}]\nevaluators: [exact]\nground_truth: live"
     "\ntruth:\n  provider: akshare\n  window_s: soon\n",
     "spec.yaml:7: truth.window_s: must be a finite number ≥ 0 (seconds)"),
])
def test_each_kind_of_mistake_is_the_whole_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_spec(write(tmp_path, text))
    assert str(err.value) == f"{tmp_path}/{message}"


def test_a_toml_spec_names_the_field_without_a_line(tmp_path: Path) -> None:
    p = write(tmp_path, f'evaluators = ["exact"]\n\n[dataset]\npath = "{SAMPLE}"\nlimit = 0\n\n'
                        '[[targets]]\ntype = "recorded"\n', "spec.toml")
    with pytest.raises(ConfigError) as err:
        load_spec(p)
    assert str(err.value) == f"{p}: dataset.limit: must be a positive whole number"


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 20_000), st.floats(),
                    st.sampled_from(["", "auto", "x", "ray", "live", "recorded", "exact",
                                     "numeric", "a:b", "snapshot:x", "127.0.0.1:9"]))
KEYS = st.sampled_from(["name", "type", "path", "usd", "args", "abs", "model", "otlp", "python",
                        "workers", "limit", "provider", "window_s", "zz", True, 1])  # on: is True
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(KEYS, inner, max_size=3), max_leaves=8)
RUN_KEYS = ["name", "dataset", "targets", "target", "evaluators", "concurrency", "repeats",
            "ground_truth", "truth", "tags", "timeout_s", "commit", "jury", "executor", "budget",
            "otlp", "group_by", "zz", True]
WATCH_KEYS = ["name", "source", "sample", "seed", "filter", "evaluators", "rubric", "quiet_s",
              "queue", "max_trace_mb", "max_pending_mb", "concurrency", "truth", "zz", True]
GOOD_RUN = {"dataset": "x.json", "targets": [{"type": "recorded"}], "evaluators": ["exact"]}
GOOD_WATCH = {"name": "w", "source": {"otlp": "127.0.0.1:9"}, "evaluators": ["exact"]}


@settings(max_examples=150, deadline=None)
@given(run=st.dictionaries(st.sampled_from(RUN_KEYS), VALUES, max_size=4),
       watch=st.dictionaries(st.sampled_from(WATCH_KEYS), VALUES, max_size=4))
def test_any_spec_is_read_or_refused_in_one_line(tmp_path_factory: pytest.TempPathFactory,
                                                 run: dict[Any, object],
                                                 watch: dict[Any, object]) -> None:
    """Whatever a spec holds, it is read, or refused with one ConfigError line that names the
    spec: never a traceback, never pydantic's own text."""
    base = tmp_path_factory.getbasetemp()
    for parse, good, given_keys in ((parse_spec, GOOD_RUN, run),
                                    (parse_watch_spec, GOOD_WATCH, watch)):
        try:
            parse({**good, **given_keys}, base / "s.yaml")
        except ConfigError as exc:
            text = str(exc)
            assert text.startswith(f"{base}/s.yaml: ") and "\n" not in text, text
            assert "Input should" not in text and "validation error" not in text, text
