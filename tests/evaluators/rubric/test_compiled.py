"""The rubric compiled with mypyc (`make compile`, tools/compile.py) decides exactly as its Python
sources do, and a compiled build older than its sources is never run.

The sources are loaded a second time as their own package (a copy of the .py files only), so
both run side by side on the labelled corpora and on random answers."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import assay.evaluators.rubric as rubric
from assay.core.types import Answer, Item, Score
from assay.evaluators.rubric.evaluator import FinanceRubric

from .test_corpus import _bench
from .test_rubric_fuzz import answer_text

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "src" / "assay" / "evaluators" / "rubric"
CORPUS = ROOT / "tests" / "data" / "rubric_corpus" / "t1"
SAMPLE = ROOT / "examples" / "finsearch_t1_sample.json"

needs_compiled = pytest.mark.skipif(
    not rubric.compiled(), reason="the rubric is not compiled here (make compile)")


@pytest.fixture(scope="module")
def source_rubric(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The rubric's evaluator loaded from a copy of its .py files, as package `rubric_source`."""
    where = tmp_path_factory.mktemp("source")
    shutil.copytree(PACKAGE, where / "rubric_source", ignore=shutil.ignore_patterns(
        "*.so", "*.pyd", "_compiled.json", "__pycache__"))
    sys.path.insert(0, str(where))
    try:
        module = importlib.import_module("rubric_source.evaluator")
        assert module.__file__ is not None and module.__file__.endswith(".py")
        reader = sys.modules["rubric_source.reader"]
        assert reader.__file__ is not None and reader.__file__.endswith(".py")
        yield module
    finally:
        sys.path.remove(str(where))
        for name in [n for n in sys.modules if n.startswith("rubric_source")]:
            del sys.modules[name]


def _decision(s: Score) -> tuple[Any, ...]:
    return (str(s.status), s.value, s.reason, json.dumps(s.evidence, ensure_ascii=False,
                                                        sort_keys=True, default=str))


def _cases() -> list[tuple[str, dict[str, Any], str]]:
    out = []
    for name in ("cases.jsonl", "heldout.jsonl"):  # read as bench/rubric_corpus.py reads them
        items, cases = _bench().load(CORPUS, name)
        out += [(case["item"], items[case["item"]], case["response"]) for case in cases]
    for k, item in enumerate(json.loads(SAMPLE.read_text("utf-8"))):
        out.append((f"sample-{k}", item, item["response"]))
    return out


@needs_compiled
def test_compiled_and_source_decide_alike_on_the_corpora(source_rubric: ModuleType) -> None:
    compiled, source = FinanceRubric(), source_rubric.FinanceRubric()
    cases = _cases()
    differ = []
    for case_id, fields, response in cases:
        item = Item(case_id, fields)
        a, b = compiled.check(item, Answer(response)), source.check(item, Answer(response))
        if _decision(a) != _decision(b):
            differ.append((case_id, _decision(a)[:3], _decision(b)[:3]))
    assert len(cases) > 960 and differ == []


@needs_compiled
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(text=answer_text)
def test_compiled_and_source_decide_alike_on_random_answers(source_rubric: ModuleType,
                                                            text: str) -> None:
    fields = json.loads(SAMPLE.read_text("utf-8"))[0]
    item = Item("x", fields)
    compiled = FinanceRubric().check(item, Answer(text))
    source = source_rubric.FinanceRubric().check(item, Answer(text))
    assert _decision(compiled) == _decision(source)


@needs_compiled
def test_a_compiled_build_older_than_its_sources_is_not_run(tmp_path: Path) -> None:
    tree = tmp_path / "src"
    shutil.copytree(ROOT / "src", tree, ignore=shutil.ignore_patterns("__pycache__"))
    probe = ("import assay.evaluators.rubric as r, assay.evaluators.rubric.reader as m; "
             "print(m.__file__, r.compiled())")
    env = {**os.environ, "PYTHONPATH": str(tree)}
    fresh = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                           text=True, check=True)
    assert fresh.stdout.split() == [str(tree / "assay" / "evaluators" / "rubric" /
                                         Path(rubric.reader.__file__ or "").name), "True"]
    assert fresh.stderr == ""
    dates = tree / "assay" / "evaluators" / "rubric" / "dates.py"
    dates.write_text(dates.read_text("utf-8") + "\n# edited\n", encoding="utf-8")
    stale = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                           text=True, check=True)
    assert stale.stdout.split() == [str(tree / "assay" / "evaluators" / "rubric" / "reader.py"),
                                    "False"]
    assert "compiled rubric is older than its sources" in stale.stderr
