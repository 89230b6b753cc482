"""JUnit XML of runs and comparisons, validated against Jenkins' junit-10.xsd (tests/data/junit)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from assay.report.compare import compare_runs
from assay.report.gate import gate
from assay.report.junit import GATE_CASE, compare_junit, run_junit, write_junit
from assay.store import repo
from assay.store.db import Engine, open_engine
from tests.conftest import DATA
from tests.report.synthetic import make_run

SCHEMA = etree.XMLSchema(etree.parse(str(DATA / "junit" / "junit-10.xsd")))


@pytest.fixture()
def engine(db_url: str) -> Engine:
    return open_engine(db_url)


def written(tree, path: Path) -> etree._Element:  # type: ignore[no-untyped-def]
    """Write as the CLI does, read back, and validate: the schema's error is the message."""
    write_junit(tree, path)
    doc = etree.parse(str(path))
    assert SCHEMA.validate(doc), SCHEMA.error_log.last_error
    return doc.getroot()


def cases(root: etree._Element) -> dict[str, etree._Element]:
    return {c.get("name"): c for c in root.iter("testcase")}


def test_run_junit_one_case_per_item_and_evaluator(engine: Engine, tmp_path: Path) -> None:
    make_run(engine, "r1", {"full": 1.0, "half": 0.5, "zero": 0.0, "err": (None, "error"),
                            "nul": (None, "null"), "uns": (None, "unscored"),
                            "abs": (None, "abstained"), "中文题": 1.0},
             reason="最新价 1455.00 <ok> & \"quoted\"")
    root = written(run_junit(engine, "r1"), tmp_path / "j.xml")
    assert root.tag == "testsuites" and root.get("tests") == "8"
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "r1/check"
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"),
            suite.get("skipped")) == ("8", "2", "1", "3")
    c = cases(root)
    assert {x.get("classname") for x in c.values()} == {"r1/check"}
    assert list(c["full"]) == [] and list(c["中文题"]) == []
    fail = c["half"].find("failure")
    assert fail is not None and fail.get("message") == \
        'score 0.5 below full score 1: 最新价 1455.00 <ok> & "quoted"'
    assert fail.text == '最新价 1455.00 <ok> & "quoted"'
    assert c["zero"].find("failure") is not None
    err = c["err"].find("error")
    assert err is not None and err.get("message").startswith("error: ")
    for name, status in (("nul", "null"), ("uns", "unscored"), ("abs", "abstained")):
        skipped = c[name].find("skipped")
        assert skipped is not None and skipped.get("message").startswith(f"{status}: "), name
    # a threshold below full: 0.5 passes, 0 still fails
    root = written(run_junit(engine, "r1", threshold=0.5), tmp_path / "t.xml")
    c = cases(root)
    assert c["half"].find("failure") is None
    assert c["zero"].find("failure").get("message").startswith(  # type: ignore[union-attr]
        "score 0 below the threshold 0.5")


def test_full_score_comes_from_the_result_and_reviews_count(engine: Engine,
                                                            tmp_path: Path) -> None:
    make_run(engine, "r4", {"a": 4.0, "b": 3.0}, full=(0.0, 4.0))
    c = cases(written(run_junit(engine, "r4"), tmp_path / "j.xml"))
    assert c["a"].find("failure") is None
    assert c["b"].find("failure").get("message").startswith(  # type: ignore[union-attr]
        "score 3 below full score 4")
    repo.add_review(engine, run_id="r4", item_id="b", evaluator="check", score=4.0,
                    reason="the desk accepts it", reviewer="wang", target=None, epoch=0)
    c = cases(written(run_junit(engine, "r4"), tmp_path / "j.xml"))
    assert c["b"].find("failure") is None


def test_epochs_targets_and_characters_xml_cannot_hold(engine: Engine, tmp_path: Path) -> None:
    make_run(engine, "rep", {"a": 1.0, "b": 0.0}, epochs=2, reason="bad \x01 byte \x1b[31m")
    root = written(run_junit(engine, "rep"), tmp_path / "j.xml")
    c = cases(root)
    assert sorted(c) == ["a#0", "a#1", "b#0", "b#1"]
    assert c["b#1"].find("failure").text == "bad \ufffd byte \ufffd[31m"  # type: ignore[union-attr]


def test_several_targets_get_a_suite_each(engine: Engine, tmp_path: Path) -> None:
    make_run(engine, "two", {"a": 1.0, "b": 0.0}, epochs=2, targets=("gpt", "qwen"))
    root = written(run_junit(engine, "two"), tmp_path / "j.xml")
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert sorted(suites) == ["two/gpt/check", "two/qwen/check"]
    for name, suite in suites.items():
        assert [(c.get("classname"), c.get("name")) for c in suite] == [
            (name, "a#0"), (name, "a#1"), (name, "b#0"), (name, "b#1")]
        assert suite.get("failures") == "2"


def test_compare_junit_items_and_the_gate_case(engine: Engine, tmp_path: Path) -> None:
    ids = [f"q{i:02d}" for i in range(12)]
    make_run(engine, "base", {**dict.fromkeys(ids, 1.0), "gone": 1.0, "nobase": (None, "null")})
    make_run(engine, "new", {**{i: 0.0 if n < 7 else 1.0 for n, i in enumerate(ids)},
                             "added": 1.0, "nobase": 1.0})
    pairs = compare_runs(engine, ["base", "new"])
    verdicts = gate(pairs)
    root = written(compare_junit(engine, ["base", "new"], pairs, verdicts), tmp_path / "c.xml")
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "base vs new/check"
    c = cases(root)
    assert {x.get("classname") for x in c.values()} == {"new/check"}
    assert len(c) == 12 + 3 + 1  # every item of either run, and the gate
    assert c["q00"].find("failure").get("message") == \
        "score went from 1 (baseline base) to 0 (new)"  # type: ignore[union-attr]
    assert list(c["q11"]) == []
    assert "only in the baseline base" in c["gone"].find("skipped").get("message")  # type: ignore[union-attr]
    assert "only in new" in c["added"].find("skipped").get("message")  # type: ignore[union-attr]
    assert "no score in base" in c["nobase"].find("skipped").get("message")  # type: ignore[union-attr]
    gate_fail = c[GATE_CASE].find("failure")
    assert gate_fail is not None and gate_fail.get("message") == verdicts[0].line
    assert gate_fail.get("message").startswith("FAIL check (new vs baseline base)")
    assert (suite.get("failures"), suite.get("skipped")) == ("8", "3")
    # the same runs the other way: better, so the gate case passes and carries its line
    pairs = compare_runs(engine, ["new", "base"])
    root = written(compare_junit(engine, ["new", "base"], pairs, gate(pairs)),
                   tmp_path / "c2.xml")
    g = cases(root)[GATE_CASE]
    assert g.find("failure") is None and g.find("system-out").text.startswith(  # type: ignore[union-attr]
        "PASS check (base vs baseline new): significantly better")


def test_the_schema_check_is_real() -> None:
    """The validation above can fail: a suite without its counts, or `skipped` on the root
    (which the schema does not allow there), is refused."""
    bad = etree.fromstring(b'<testsuites><testsuite name="x"><testcase name="a"/></testsuite>'
                           b'</testsuites>')
    assert not SCHEMA.validate(bad)
    bad = etree.fromstring(b'<testsuites skipped="1"/>')
    assert not SCHEMA.validate(bad)
