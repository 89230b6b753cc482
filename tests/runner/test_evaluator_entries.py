"""Evaluator entries with arguments in a spec ({name, args}, {python: FILE:FUNCTION}) and on
the command line (-e NAME --arg k=v): parsed, paths made relative to the spec, and every
mistake one line naming the spec's file, line and entry."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.core.errors import ConfigError
from assay.runner.evaluator_entries import cli_entries
from assay.runner.spec import load_spec
from tests.conftest import SAMPLE

HEAD = f"""\
dataset: {SAMPLE}
targets: [{{name: a, type: recorded}}]
evaluators:
"""


def spec(tmp_path: Path, entries: str) -> Path:
    p = tmp_path / "spec.yaml"
    p.write_text(HEAD + entries, "utf-8")
    return p


def test_entries_with_args_python_and_paths(tmp_path: Path) -> None:
    (tmp_path / "checks").mkdir()
    (tmp_path / "checks" / "mine.py").write_text("def ok(item, answer, limit=1):\n"
                                                 "    return True\n", "utf-8")
    (tmp_path / "schema.json").write_text('{"type": "object"}', "utf-8")
    s = load_spec(spec(tmp_path, """\
  - finance-rubric
  - {name: numeric, args: {abs: 0.01, pick: last}}
  - {name: regex, args: {pattern: "^[0-9]+$"}, label: digits}
  - {name: json-schema, args: {schema: schema.json}}
  - {python: checks/mine.py:ok, args: {limit: 3}, label: mine}
  - python:checks/mine.py:ok
"""))
    got = [(e.name, e.args) for e in s.evaluators]
    assert got == [
        ("finance-rubric", {}),
        ("numeric", {"abs": 0.01, "pick": "last"}),
        ("regex", {"pattern": "^[0-9]+$", "label": "digits"}),
        ("json-schema", {"schema": str(tmp_path / "schema.json")}),
        ("python", {"path": str(tmp_path / "checks" / "mine.py"), "function": "ok",
                    "args": {"limit": 3}, "label": "mine"}),
        ("python", {"path": str(tmp_path / "checks" / "mine.py"), "function": "ok"}),
    ]


@pytest.mark.parametrize(("entries", "message"), [
    ("  - {name: regex, args: {pattern: '(unclosed'}}\n",
     "spec.yaml:4: evaluators[0].args: evaluator 'regex': pattern '(unclosed' is not a valid "
     "regular expression: missing ), unterminated subpattern at position 0"),
    ("  - finance-rubric\n  - {name: numeric, args: {tolerance: 0.01}}\n",
     "spec.yaml:5: evaluators[1].args: evaluator 'numeric': unknown option 'tolerance' "
     "(known: expected, abs, rel, pick, only_numbers, label)"),
    ("  - {name: exact, args: [a]}\n",
     "spec.yaml:4: evaluators[0].args: must be a mapping of NAME: VALUE"),
    ("  - {name: nummeric, args: {abs: 1}}\n",
     "spec.yaml:4: evaluators[0].name: unknown evaluator 'nummeric'; did you mean numeric?"),
    ("  - finance-rubric\n  - finance-rubrik\n",  # a bare name too names its line
     "spec.yaml:5: evaluators[1]: unknown evaluator 'finance-rubrik'; did you mean "
     "finance-rubric?"),
    ("  - {name: finance-rubric, args: {roundng: strict}}\n",  # built by the run: names now
     "spec.yaml:4: evaluators[0].args: evaluator 'finance-rubric': unknown option 'roundng'; "
     "did you mean rounding? (known: rounding)"),
    ("  - coze-corectness@judge\n",
     "spec.yaml:4: evaluators[0]: unknown evaluator 'coze-corectness'; did you mean "
     "coze-correctness?"),
    ("  - {name: length, label: l2, args: {max: 3}}\n  - {name: length}\n",
     "spec.yaml:5: evaluators[1]: evaluator 'length' needs 'min', 'max' or both"),
    ("  - regex\n", "spec.yaml:4: evaluators[0]: evaluator 'regex' needs 'pattern'"),
    ("  - {name: length, label: l2}\n",
     "spec.yaml:4: evaluators[0].label: evaluator 'l2' needs 'min', 'max' or both"),
    ("  - {name: numeric, python: x.py:f}\n",
     "spec.yaml:4: evaluators[0]: must be a name, or a mapping with 'name' (or 'python: "
     "FILE:FUNCTION')"),
    ("  - {name: numeric, argz: {}}\n",
     "spec.yaml:4: evaluators[0].argz: unknown key (known: name, python, model, mapping, args, "
     "label, when)"),
    ("  - {python: nowhere.py:f}\n",
     "spec.yaml:4: evaluators[0].python: python evaluator {tmp}/nowhere.py:f: no such file "
     "{tmp}/nowhere.py"),
    ("  - python:checks.py\n",
     "spec.yaml:4: evaluators[0].python: python evaluator 'checks.py': write "
     "FILE.py:FUNCTION (e.g. checks.py:price_ok)"),
])
def test_entry_errors_are_one_line_with_file_and_line(tmp_path: Path, entries: str,
                                                      message: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_spec(spec(tmp_path, entries))
    assert str(err.value) == str(tmp_path / message.replace("{tmp}", str(tmp_path)))


def test_cli_args_go_to_the_one_evaluator_or_to_the_named_one(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli_entries(["numeric"], ["abs=0.01", "pick=last"]) == [
        {"name": "numeric", "args": {"abs": 0.01, "pick": "last"}}]
    # values are YAML scalars, except a pattern and a text expected answer, kept as written
    assert cli_entries(["regex"], ["pattern=[0-9]+", "flags=[i, m]"]) == [
        {"name": "regex", "args": {"pattern": "[0-9]+", "flags": ["i", "m"]}}]
    assert cli_entries(["exact"], ["expected=007", "ignore_case=true"]) == [
        {"name": "exact", "args": {"expected": "007", "ignore_case": True}}]
    assert cli_entries(["contains-all"], ["expected=[茅台, '1455']"]) == [
        {"name": "contains-all", "args": {"expected": ["茅台", "1455"]}}]
    assert cli_entries(["finance-rubric", "numeric", "coze-correctness@judge"],
                       ["numeric.rel=0.001"]) == [
        "finance-rubric", {"name": "numeric", "args": {"rel": 0.001}},
        "coze-correctness@judge"]
    assert cli_entries(["python:checks.py:price_ok"], ["tolerance=0.5", "label=p"]) == [
        {"python": f"{tmp_path / 'checks.py'}:price_ok", "args": {"tolerance": 0.5},
         "label": "p"}]
    assert cli_entries(["exact", "python:c.py:f"], ["f.x=1"])[1]["args"] == {"x": 1}


@pytest.mark.parametrize(("evaluators", "arg", "message"), [
    (["numeric", "exact"], "abs=1", "--arg abs=1: several evaluators are given (numeric, "
     "exact); write --arg EVALUATOR.abs=1"),
    (["numeric"], "regex.pattern=x", "--arg regex.pattern=x: no evaluator 'regex' among -e "
     "numeric"),
    (["numeric"], "abs", "--arg takes KEY=VALUE (or EVALUATOR.KEY=VALUE), got 'abs'"),
])
def test_cli_arg_mistakes(evaluators: list[str], arg: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        cli_entries(evaluators, [arg])
    assert str(err.value) == message
