"""Watch specs through their pydantic models (online/spec.py): each kind of mistake is one
whole line naming the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.core.errors import ConfigError
from assay.online.spec import load_watch_spec

HEAD = 'name: prod-agent\nsource: {otlp: "127.0.0.1:0"}\nevaluators: [finance-rubric]\n'


@pytest.mark.parametrize(("text", "message"), [
    # missing: at the mapping that lacks it, with what it takes
    ('source: {otlp: "127.0.0.1:0"}\nevaluators: [finance-rubric]\n',
     "watch.yaml: missing 'name' (the online run's name; the same name resumes it)"),
    ("name: x\nsource:\n  port: 4318\nevaluators: [finance-rubric]\n",
     "watch.yaml:2: source: missing 'otlp' (HOST:PORT)"),
    # a wrong type
    (HEAD + "seed: 0.5\n", "watch.yaml:4: seed: must be a whole number"),
    (HEAD + "filter: [a, b]\n",
     "watch.yaml:4: filter: must be a mapping of attribute: value (or list of values)"),
    ('name: "  "\nsource: {otlp: "127.0.0.1:0"}\nevaluators: [finance-rubric]\n',
     "watch.yaml:1: name: must not be blank: the online run's name; the same name resumes it"),
    # an unknown key
    (HEAD + "rubric:\n  required: latest price\n  tolerance: 0.5\n",
     "watch.yaml:6: rubric.tolerance: unknown key (known: precision, required)"),
    (HEAD + "quite_s: 2\n", "watch.yaml:4: quite_s: unknown key (known: concurrency, description, "
     "evaluators, filter, ground_truth, judge_model, jury, max_pending_mb, max_trace_mb, name, "
     "orphan_s, queue, quiet_s, rubric, sample, seed, source, tags, timeout_s, truth)"),
    # a bad value in a nested list entry
    ("name: x\nsource: {otlp: \"127.0.0.1:0\"}\nevaluators:\n  - finance-rubric\n"
     "  - {name: regex, args: {pattern: '(unclosed'}}\n",
     "watch.yaml:5: evaluators[1].args: evaluator 'regex': pattern '(unclosed' is not a valid "
     "regular expression: missing ), unterminated subpattern at position 0"),
    ('name: x\nsource: {otlp: "localhost"}\nevaluators: [finance-rubric]\n',
     "watch.yaml:2: source.otlp: 'localhost' is not HOST:PORT"),
])
def test_each_kind_of_mistake_is_the_whole_line(tmp_path: Path, text: str, message: str) -> None:
    p = tmp_path / "watch.yaml"
    p.write_text(text, "utf-8")
    with pytest.raises(ConfigError) as err:
        load_watch_spec(p)
    assert str(err.value) == f"{tmp_path}/{message}"


def test_a_good_spec_as_the_watcher_reads_it(tmp_path: Path) -> None:
    p = tmp_path / "watch.yaml"
    p.write_text(HEAD + "sample: 0.5\nfilter: {service.name: agent}\nconcurrency: auto\n"
                 "rubric: {required: latest price, precision: rounding}\nqueue: 10\n", "utf-8")
    spec = load_watch_spec(p)
    assert (spec.name, spec.host, spec.port, spec.sample, spec.concurrency, spec.queue) == (
        "prod-agent", "127.0.0.1", 0, 0.5, 0, 10)
    assert spec.filter == {"service.name": ["agent"]}
    assert spec.rubric == {"required": "latest price", "precision": "rounding"}
    assert [e.name for e in spec.evaluators] == ["finance-rubric"]
    assert spec.raw["source"] == {"otlp": "127.0.0.1:0"}
