"""The CI outputs through the command (run in this process: tests/invoke.py): `compare
--fail-if-worse`, `--junit` and `--github` on run, score and compare (docs/ci.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from lxml import etree

from assay.report.stats import mcnemar_exact
from tests.cli.test_report_cli import store  # noqa: F401  (a private copy of the two runs)
from tests.cli.test_run_cli import run, run_id_of
from tests.conftest import SAMPLE
from tests.report.test_junit import SCHEMA
from tests.web.conftest import Store, two_runs  # noqa: F401  (the shared fixture)

RUBRIC = "finance-rubric"
NO_GITHUB = {"GITHUB_ACTIONS": "", "GITHUB_STEP_SUMMARY": "", "GITHUB_OUTPUT": ""}


def stored_run(stdout: str) -> str:
    return re.search(r"run (\S+) stored in", stdout).group(1)  # type: ignore[union-attr]


def github_env(tmp: Path) -> dict[str, str]:
    return {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(tmp / "summary.md"),
            "GITHUB_OUTPUT": str(tmp / "output.txt")}


def valid(path: Path) -> etree._Element:
    doc = etree.parse(str(path))
    assert SCHEMA.validate(doc), SCHEMA.error_log.last_error
    return doc.getroot()


def test_max_drop_gates_and_markdown_is_a_pull_request_comment(store: Store) -> None:  # noqa: F811
    a, b = store.run_a, store.run_b  # A: 54 of 97 right; B: 96 of 97
    md = store.path / "comment.md"
    r = run("compare", b, a, "--max-drop", "0.05", "--markdown", str(md), "--db", store.url,
            cwd=store.path)
    assert r.returncode == 1, r.stderr
    line = next(x for x in r.stdout.splitlines() if x.startswith("FAIL"))
    assert line.startswith(f"FAIL {RUBRIC} ({a} vs baseline {b}): significantly worse: mean "
                           "0.990 → 0.557")  # significant, and past the threshold
    text = md.read_text("utf-8")
    assert text.startswith(f"## Assay compare: baseline `{b}` vs `{a}`")
    assert "**Gate: FAIL**" in text and f"- FAIL {RUBRIC}" in text
    assert "Markdown written to" in r.stderr
    # the other way round: a rise, never a drop
    r = run("compare", a, b, "--max-drop", f"{RUBRIC}=0.05", "--db", store.url, cwd=store.path)
    assert r.returncode == 0, r.stderr
    r = run("compare", a, b, "--max-drop", "2", "--db", store.url, cwd=store.path)
    assert (r.returncode, r.stderr.strip()) == (
        2, "error: --max-drop takes a number from 0 to 1, or EVALUATOR=NUMBER, not '2'")


def test_fail_if_worse_exits_1_only_when_significantly_worse(store: Store) -> None:  # noqa: F811
    a, b = store.run_a, store.run_b  # A: 54 of 97 right; B: 96 of 97 (see tests/web/conftest)
    r = run("compare", b, a, "--fail-if-worse", "--db", store.url, cwd=store.path)
    assert r.returncode == 1, r.stderr
    p = mcnemar_exact(43, 1)
    line = next(x for x in r.stdout.splitlines() if x.startswith("FAIL"))
    assert line == (f"FAIL {RUBRIC} ({a} vs baseline {b}): significantly worse: mean 0.990 → "
                    f"0.557, McNemar exact p={p:.2e} < α=0.05 (43 went 1→0, 1 went 0→1), "
                    "n=97; left out of the test: 2 without a score on one side")
    r = run("compare", a, b, "--fail-if-worse", "--db", store.url, cwd=store.path)
    assert r.returncode == 0, r.stderr
    assert f"PASS {RUBRIC} ({b} vs baseline {a}): significantly better" in r.stdout
    # without the flag, compare reports and never fails
    r = run("compare", b, a, "--db", store.url, cwd=store.path)
    assert r.returncode == 0 and "FAIL" not in r.stdout
    # --json keeps stdout for the JSON; the verdict goes to stderr
    r = run("compare", b, a, "--fail-if-worse", "--json", "--db", store.url, cwd=store.path)
    assert r.returncode == 1 and json.loads(r.stdout)[0]["paired"] == 97
    assert r.stderr.startswith(f"FAIL {RUBRIC}")
    r = run("compare", a, b, "--fail-if-worse", "--alpha", "2", "--db", store.url,
            cwd=store.path)
    assert r.returncode == 2 and r.stderr.strip() == \
        "error: --alpha must be between 0 and 1, not 2"


def test_too_few_pairs_says_so_and_passes(store: Store) -> None:  # noqa: F811
    (store.path / "five.yaml").write_text(
        f"dataset: {{path: {SAMPLE}, limit: 5}}\ntargets: [{{type: recorded}}]\n"
        f"evaluators: [{RUBRIC}]\n", "utf-8")
    r = run("run", "five.yaml", "--db", store.url, cwd=store.path)
    five = run_id_of(r.stdout)
    r = run("compare", store.run_b, five, "--fail-if-worse", "--db", store.url, cwd=store.path)
    assert r.returncode == 0, r.stderr
    assert f"UNDECIDED {RUBRIC} ({five} vs baseline {store.run_b}): too few paired items to " \
        f"decide (n=5, the gate needs 10 at α=0.05); not failing; left out of the test: 94 " \
        f"only in {store.run_b}" in r.stdout


def test_compare_junit_and_github(store: Store) -> None:  # noqa: F811
    a, b = store.run_a, store.run_b
    out = store.path / "ci" / "compare.xml"
    env = github_env(store.path)
    r = run("compare", b, a, "--fail-if-worse", "--junit", str(out), "--github", "--db",
            store.url, cwd=store.path, **env)
    assert r.returncode == 1, r.stderr
    root = valid(out)
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == f"{b} vs {a}/{RUBRIC}" and suite.get("tests") == "100"
    assert suite.get("failures") == "44"  # 43 items went 1→0, and the gate
    gate = next(c for c in suite if c.get("name") == "[significance gate]")
    assert gate.find("failure").get("message").startswith(f"FAIL {RUBRIC}")  # type: ignore[union-attr]
    errors = [x for x in r.stdout.splitlines() if x.startswith("::error")]
    assert len(errors) == 1 and errors[0].startswith(
        f"::error title=assay%3A {RUBRIC} significantly worse::FAIL {RUBRIC} ({a} vs baseline")
    md = (store.path / "summary.md").read_text("utf-8")
    assert f"## Assay compare: baseline `{b}` vs `{a}`" in md
    assert "**Gate: FAIL** — significantly worse at α=0.05: " f"{RUBRIC} ({a})" in md
    assert f"| {RUBRIC} | `{a}` | 97 | 0.990 | 0.557 | -0.433 | McNemar exact | " \
        f"p={mcnemar_exact(43, 1):.4g} | 0 | 0 | 2 | worse |" in md
    # a passing comparison: a summary, no annotation; the summary file is appended to
    r = run("compare", a, b, "--fail-if-worse", "--github", "--db", store.url,
            cwd=store.path, **env)
    assert r.returncode == 0 and "::error" not in r.stdout
    md = (store.path / "summary.md").read_text("utf-8")
    assert md.count("## Assay compare") == 2 and "**Gate: pass**" in md
    # without --fail-if-worse the summary reports the verdict but says there is no gate
    r = run("compare", b, a, "--github", "--db", store.url, cwd=store.path, **env)
    assert r.returncode == 0 and "::error" not in r.stdout
    assert "**Verdict (no gate: --fail-if-worse not given): FAIL**" in \
        (store.path / "summary.md").read_text("utf-8")
    # outside GitHub Actions: nothing written, and it says why
    r = run("compare", b, a, "--github", "--db", store.url, cwd=store.path, **NO_GITHUB)
    assert r.returncode == 0 and "::error" not in r.stdout
    assert "--github: not running under GitHub Actions (GITHUB_ACTIONS is not 'true'): no " \
        "step summary or annotations written" in r.stderr
    r = run("compare", b, a, "--github", "--db", store.url, cwd=store.path,
            GITHUB_ACTIONS="true", GITHUB_STEP_SUMMARY="")
    assert "--github: GITHUB_STEP_SUMMARY is not set" in r.stderr


def test_score_junit_fail_under_and_github(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    out = tmp_path / "score.xml"
    r = run("score", str(SAMPLE), "--fail-under", "0.9", "--junit", str(out), "--github",
            "--db", db, "-q", cwd=tmp_path, **github_env(tmp_path))
    assert r.returncode == 1, r.stderr
    run_id = stored_run(r.stdout)
    root = valid(out)
    (suite,) = root.findall("testsuite")
    # 97 scored (54 right), 1 null, 1 error: the rubric's own counts
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"),
            suite.get("skipped")) == ("99", "43", "1", "1")
    assert suite.get("name") == f"{run_id}/{RUBRIC}"
    assert f"::error title=assay%3A {RUBRIC} below --fail-under::run {run_id}: {RUBRIC} mean " \
        "0.557 is below --fail-under 0.9" in r.stdout
    md = (tmp_path / "summary.md").read_text("utf-8")
    assert f"## Assay run `{run_id}` — finsearch_t1_sample (99 items)" in md
    assert (tmp_path / "output.txt").read_text("utf-8") == f"run_id={run_id}\n"
    assert f"| {RUBRIC} | 99 | 97 | 0.557 | [0.458, 0.652] | 1 | 0 | 0 | 1 |" in md
    # --junit-threshold 0 passes every scored item; errors and skips stay
    r = run("score", str(SAMPLE), "--junit", str(out), "--junit-threshold", "0", "--db", db,
            "-q", cwd=tmp_path, **NO_GITHUB)
    assert r.returncode == 0, r.stderr
    (suite,) = valid(out).findall("testsuite")
    assert (suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("0", "1", "1")


def test_run_junit_fail_under_and_github(tmp_path: Path) -> None:
    (tmp_path / "spec.yaml").write_text(
        f"name: ci-sample\ndataset: {{path: {SAMPLE}, limit: 20}}\n"
        f"targets: [{{type: recorded}}]\nevaluators: [{RUBRIC}]\n", "utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    r = run("run", "spec.yaml", "--fail-under", "0.2", "--junit", "run.xml", "--github",
            "--db", db, "-q", cwd=tmp_path, **github_env(tmp_path))
    assert r.returncode == 0, r.stderr
    run_id = stored_run(r.stdout)
    (suite,) = valid(tmp_path / "run.xml").findall("testsuite")
    assert suite.get("name") == f"{run_id}/{RUBRIC}" and suite.get("tests") == "20"
    assert "::error" not in r.stdout
    md = (tmp_path / "summary.md").read_text("utf-8")
    assert f"## Assay run `{run_id}` — ci-sample (20 items)" in md
    assert "- every evaluator's mean is at least --fail-under 0.2" in md
    r = run("run", "spec.yaml", "--fail-under", "0.99", "--db", db, "-q", cwd=tmp_path)
    assert r.returncode == 1 and "below --fail-under 0.99" in r.stdout


def test_alpha_sets_the_printed_interval_and_the_junit_verdict(store: Store) -> None:  # noqa: F811
    out = store.path / "c.xml"
    r = run("compare", store.run_a, store.run_b, "--alpha", "0.01", "--junit", str(out),
            "--db", store.url, cwd=store.path)
    assert r.returncode == 0 and "99% CI (bootstrap)" in r.stdout
    gate = next(c for c in valid(out).iter("testcase") if c.get("name") == "[significance gate]")
    assert "α=0.01" in gate.find("system-out").text  # type: ignore[union-attr,operator]
