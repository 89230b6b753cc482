"""The compiled wheel (issue 25): built as `make wheel-compiled` builds it — an sdist of the tree,
then a wheel from it with the opt-in mypyc hook (pyproject.toml, `HATCH_BUILD_HOOK_ENABLE_MYPYC`)
— it carries the rubric's reader compiled beside its sources, imports it compiled, and decides
exactly as the sources do: status, score, reason and evidence of `finance-rubric` on every
answer of the labelled corpora and the examples (under both T2/T3 rounding readings) and on 300
random answers.

The wheel is built once per session into a temporary folder (minutes: mypyc compiles the reader
and type-checks what it imports), unpacked there and run in a process of its own whose path
holds only the unpacked wheel; the sources run in this process. A `process` test: `make test`
runs it, `make check` does not."""

from __future__ import annotations

import importlib.machinery
import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from assay.core.types import Item
from tests.conftest import ROOT
from tests.marks import starts

from .test_rubric_fuzz import answer_text

CORPORA = ROOT / "tests" / "data" / "rubric_corpus"
EXAMPLES = (ROOT / "examples" / "finsearch_t1_sample.json",
            ROOT / "examples" / "finsearch_t23_sample.json")
ROUNDINGS = ("benchmark", "strict")
EXTENSIONS = tuple(importlib.machinery.EXTENSION_SUFFIXES)


def _compiled_modules() -> list[str]:
    """The modules the hook compiles, as pyproject.toml names them."""
    hook = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))[
        "tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["mypyc"]
    assert hook["enable-by-default"] is False  # a plain build stays pure Python
    return [p.removeprefix("/src/").removesuffix(".py").replace("/", ".")
            for p in hook["include"]]


MODULES = _compiled_modules()


def _run(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, check=False, **kwargs)


@pytest.fixture(scope="session")
@starts("process")
def compiled_wheel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The compiled wheel, built from an sdist of the tree (so nothing is compiled into the
    tree), and the folder it is unpacked in."""
    pytest.importorskip("hatch_mypyc", reason="hatch-mypyc is not installed (pip install -e '.[dev]')")
    pytest.importorskip("mypyc")
    where = tmp_path_factory.mktemp("compiled-wheel")
    sdist = _run([sys.executable, "-m", "hatchling", "build", "-t", "sdist", "-d",
                  str(where / "sdist")], cwd=ROOT, timeout=300)
    assert sdist.returncode == 0, sdist.stdout + sdist.stderr
    (tarball,) = (where / "sdist").glob("assay_eval-*.tar.gz")
    # no cache: pip keeps a wheel built from an sdist by the sdist's name, and would hand it back
    built = _run([sys.executable, "-m", "pip", "wheel", str(tarball), "--no-deps",
                  "--no-build-isolation", "--no-cache-dir", "-q", "-w", str(where / "dist")],
                 env={**os.environ, "HATCH_BUILD_HOOK_ENABLE_MYPYC": "1"}, timeout=1800)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (where / "dist").glob("assay_eval-*.whl")
    site = where / "site"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)
    return wheel, site


def test_the_hook_compiles_the_reader() -> None:
    assert sorted(m.rpartition(".")[2] for m in MODULES) == [
        "checks", "dates", "instruments", "lexer", "numbers", "reader", "statements", "words"]
    assert all(m.startswith("assay.evaluators.rubric.") for m in MODULES)


def test_the_compiled_wheel_holds_the_extensions_and_their_sources(
        compiled_wheel: tuple[Path, Path]) -> None:
    wheel, _ = compiled_wheel
    assert not wheel.name.endswith("-none-any.whl"), wheel.name  # tagged for this Python
    names = set(zipfile.ZipFile(wheel).namelist())
    for module in MODULES:
        base = module.replace(".", "/")
        assert f"{base}.py" in names  # the rubric's version hashes the sources
        assert [n for n in names if n.startswith(f"{base}.") and n.endswith(EXTENSIONS)], module
    # mypyc's runtime library for the eight, at the top of the wheel where they import it
    assert [n for n in names if "/" not in n and "__mypyc" in n and n.endswith(EXTENSIONS)]
    assert "assay/evaluators/rubric/evaluator.py" in names
    assert not [n for n in names if n.startswith("assay/evaluators/rubric/evaluator.")
                and n.endswith(EXTENSIONS)]
    assert "assay/_examples/finsearch_t1_sample.json" in names


def _load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]


def _items(corpus: str) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in _load(CORPORA / corpus / "items.jsonl")}


def _random_answers(n: int = 300) -> list[str]:
    """`n` answers drawn as the rubric's fuzz test draws them, the same on every run."""
    drawn: list[str] = []

    @settings(max_examples=n, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(text=answer_text)
    def draw(text: str) -> None:
        drawn.append(text)

    draw()
    return drawn


Case = tuple[str, str, dict[str, Any], str, list[str]]  # label, item id, fields, answer, roundings


def _cases() -> list[Case]:
    """Every answer of the corpora and the examples, and the random ones: T1 items once, T2/T3
    items under each rounding reading. Items keep their own ids (an id can say T1 or T2/T3)."""
    items = {"t1": _items("t1"), "t23": _items("t23")}
    out: list[tuple[str, str, dict[str, Any], str]] = []
    for corpus, name in (("t1", "cases.jsonl"), ("t1", "heldout.jsonl"), ("t23", "cases.jsonl")):
        out += [(f"{corpus}/{name}:{c['id']}", c["item"], items[corpus][c["item"]], c["response"])
                for c in _load(CORPORA / corpus / name)]
    for path in sorted((CORPORA / "fresh").glob("t*_?.jsonl")):
        corpus = path.name.split("_")[0]
        out += [(f"fresh/{path.name}:{c['id']}", c["item"], items[corpus][c["item"]],
                 c["response"]) for c in _load(path)]
    out += [(f"hostile:{k}", c["item"], items[c["corpus"]][c["item"]], c["response"])
            for k, c in enumerate(_load(CORPORA / "hostile" / "session9.jsonl"))]
    first = []
    for path in EXAMPLES:  # as `assay score` reads them: the prompt id is the item's
        rows = json.loads(path.read_text("utf-8"))
        out += [(f"{path.name}:{k}", row["prompt_id"], row, row["response"])
                for k, row in enumerate(rows)]
        first.append(rows[0])  # a T1 item, a T2 item
    out += [(f"random-{k}", row["prompt_id"], row, text)
            for k, text in enumerate(_random_answers()) for row in first]
    from assay.evaluators.historical.kind import is_historical
    return [(label, item, fields, text, list(ROUNDINGS) if is_historical(Item(item, fields))
             else [ROUNDINGS[0]]) for label, item, fields, text in out]


# Run in the wheel's process and in this one: every decision, as JSON, and where the code came from.
DECIDE = """
import json, sys
from assay.core.types import Answer, Item
from assay.evaluators.builtin.numeric import Numeric
from assay.evaluators.finance import FinanceRubricEvaluator
import assay

def decide(cases, roundings):
    rubrics = {r: FinanceRubricEvaluator(rounding=r) for r in roundings}
    out = []
    for label, item, fields, response, readings in cases:
        for rounding in readings:
            s = rubrics[rounding].check(Item(item, fields), Answer(response), None)
            out.append([rounding, label, str(s.status), s.value, s.reason,
                        json.dumps(s.evidence, ensure_ascii=False, sort_keys=True, default=str)])
    rubric = rubrics[roundings[0]]
    return {"decisions": out, "assay": assay.__file__,
            "versions": [rubric.version, Numeric(expected=1).version],
            "files": {name: getattr(module, "__file__", None)
                      for name, module in sys.modules.items()
                      if name.startswith("assay.evaluators.rubric.") or "__mypyc" in name}}

if __name__ == "__main__":
    cases, roundings = json.load(open(sys.argv[1], encoding="utf-8"))
    json.dump(decide(cases, roundings), open(sys.argv[2], "w", encoding="utf-8"))
"""


def _sources(cases: list[Case]) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "decide"}
    exec(DECIDE, namespace)  # the same code as the wheel's process runs
    result: dict[str, Any] = json.loads(json.dumps(namespace["decide"](cases, ROUNDINGS)))
    return result


def test_the_compiled_wheel_runs_compiled_and_decides_as_the_sources(
        compiled_wheel: tuple[Path, Path], tmp_path: Path) -> None:
    _, site = compiled_wheel
    cases = _cases()
    (tmp_path / "decide.py").write_text(DECIDE, encoding="utf-8")
    (tmp_path / "cases.json").write_text(json.dumps([cases, ROUNDINGS], ensure_ascii=False),
                                         encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(site)}  # the wheel alone: not this tree's src
    r = _run([sys.executable, str(tmp_path / "decide.py"), str(tmp_path / "cases.json"),
              str(tmp_path / "out.json")], cwd=tmp_path, env=env, timeout=1200)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    compiled = json.loads((tmp_path / "out.json").read_text("utf-8"))

    # the wheel's code ran, its reader compiled; these sources, here
    assert Path(compiled["assay"]).is_relative_to(site)
    for module in MODULES:
        file = Path(compiled["files"][module])
        assert file.is_relative_to(site) and file.name.endswith(EXTENSIONS), (module, file)
    runtime = [Path(f) for n, f in compiled["files"].items() if "__mypyc" in n]
    assert len(runtime) == 1 and runtime[0].is_relative_to(site)
    source = _sources(cases)
    for module in MODULES:
        assert source["files"][module].endswith(".py"), source["files"][module]

    assert len(compiled["decisions"]) == sum(len(c[4]) for c in cases) > 4000
    differ = [(a[:2], a[2:5], b[2:5]) for a, b in
              zip(compiled["decisions"], source["decisions"], strict=True) if a != b]
    assert differ == []
    # a stored score's version names the sources, compiled or not
    assert compiled["versions"] == source["versions"]


def test_no_compiled_module_beside_the_sources() -> None:
    """Nothing decides which of a module's source and its extension runs (issue 25): Python
    takes an extension beside a .py first, so an old `make compile`'s would run stale rules."""
    left = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "src").rglob("*")
                  if p.name.endswith(EXTENSIONS) or p.name == "_compiled.json")
    assert left == [], ("compiled modules in the tree (an old `make compile`?) would run instead "
                        f"of their sources: `make clean-compiled` removes them: {left}")
