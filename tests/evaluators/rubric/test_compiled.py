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
from tests.marks import starts

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


PROBE = ("import assay.evaluators.rubric as r, assay.evaluators.rubric.reader as m, "
         "assay.evaluators.rubric.numbers as n; "
         "from assay.evaluators.builtin.numeric import Numeric; "
         "print(m.__file__.endswith('.py'), n.__file__.endswith('.py'), r.compiled(), "
         "Numeric(expected=1).version)")
RUBRIC = Path("assay") / "evaluators" / "rubric"


def _probe(tree: Path, *before: Path) -> tuple[list[str], str]:
    """Import the rubric from `tree` (with `before` ahead of it on the path): whether the reader
    and the number reader came from .py files, `compiled()`, and the numeric check's version."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, [*before, tree]))}
    r = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True,
                       check=False)
    assert r.returncode == 0, r.stderr  # never a traceback
    return r.stdout.split(), r.stderr


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text("utf-8") + text, encoding="utf-8")


def _runtime(tree: Path) -> Path:
    return next(p for p in tree.iterdir() if "__mypyc" in p.name)


@pytest.fixture(scope="module")
@starts("process")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A copy of `src` as `make compile` left it, and what the probe says of it."""
    tree = tmp_path_factory.mktemp("fresh") / "src"
    shutil.copytree(ROOT / "src", tree, ignore=shutil.ignore_patterns("__pycache__"))
    out, err = _probe(tree)
    assert err == ""
    return tree, out


@needs_compiled
def test_a_current_build_runs_compiled_and_versions_follow_the_sources(
        fresh: tuple[Path, list[str]], tmp_path: Path) -> None:
    _, out = fresh
    assert out[:3] == ["False", "False", "True"]
    # the numeric check's version hashes numbers.py, not the extension: the same as from sources
    sources = tmp_path / "src"
    shutil.copytree(ROOT / "src", sources, ignore=shutil.ignore_patterns(
        "__pycache__", "*.so", "*.pyd", "_compiled.json"))
    plain, err = _probe(sources)
    assert plain[:3] == ["True", "True", "False"] and err == ""
    assert out[3] == plain[3]


def _stale_cases() -> list[tuple[str, Any]]:
    def edit_compiled(tree: Path) -> None:
        _append(tree / RUBRIC / "dates.py", "\n# edited\n")

    def edit_imported(tree: Path) -> None:  # constants mypyc copied into the C
        _append(tree / "assay" / "truth" / "vocabulary.py", "\n# edited\n")

    def no_runtime(tree: Path) -> None:
        _runtime(tree).unlink()

    def manifest_not_a_mapping(tree: Path) -> None:
        (tree / RUBRIC / "_compiled.json").write_text("[1]", encoding="utf-8")

    def record_covers_nothing(tree: Path) -> None:  # a hand-edited record
        path = tree / RUBRIC / "_compiled.json"
        built = json.loads(path.read_text("utf-8"))
        path.write_text(json.dumps({**built, "modules": [], "inputs": {}}), encoding="utf-8")
        _append(tree / RUBRIC / "reader.py", "\n# edited\n")

    def no_manifest(tree: Path) -> None:
        (tree / RUBRIC / "_compiled.json").unlink()

    def one_extension_gone_and_its_source_edited(tree: Path) -> None:
        next((tree / RUBRIC).glob("numbers.*.so")).unlink()
        _append(tree / RUBRIC / "numbers.py", "\n# edited\n")

    return [("edit_compiled", edit_compiled), ("edit_imported", edit_imported),
            ("no_runtime", no_runtime), ("manifest_not_a_mapping", manifest_not_a_mapping),
            ("record_covers_nothing", record_covers_nothing),
            ("no_manifest", no_manifest),
            ("one_extension_gone", one_extension_gone_and_its_source_edited)]


@needs_compiled
@pytest.mark.parametrize(("case", "spoil"), _stale_cases(), ids=[c for c, _ in _stale_cases()])
def test_a_build_that_does_not_match_is_never_run(case: str, spoil: Any,
                                                  fresh: tuple[Path, list[str]],
                                                  tmp_path: Path) -> None:
    tree = tmp_path / "src"
    shutil.copytree(fresh[0], tree, ignore=shutil.ignore_patterns("__pycache__"))
    spoil(tree)
    out, err = _probe(tree)
    assert out[:3] == ["True", "True", "False"]  # every module from its source
    assert err.count("the compiled rubric is not used") == 1


@needs_compiled
def test_another_checkouts_runtime_library_is_never_taken(fresh: tuple[Path, list[str]],
                                                         tmp_path: Path) -> None:
    """mypyc's compiled modules import their runtime library by a name that is the same in
    every checkout: ours is loaded from our own tree, whatever stands earlier on the path."""
    decoy = tmp_path / "decoy"
    decoy.mkdir()
    (decoy / (_runtime(fresh[0]).name.split(".")[0] + ".py")).write_text(
        "raise ImportError('the decoy was imported')\n", encoding="utf-8")
    out, err = _probe(fresh[0], decoy)
    assert out == fresh[1] and err == ""
