"""The example GitHub workflow (examples/ci/assay.yml) does what docs/ci.md says: its shell
steps, run here as GitHub runs them (bash -eo pipefail, the job's and step's env, $GITHUB_OUTPUT,
$GITHUB_STEP_SUMMARY), score the baseline, evaluate the pull request and pass the gate; with the
example agent made worse, the gate step fails with its one line and an ::error annotation."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from lxml import etree

from tests.cli.test_run_cli import ASSAY
from tests.conftest import ROOT
from tests.report.test_junit import SCHEMA

pytestmark = pytest.mark.process  # the workflow's steps, in bash
WORKFLOW = ROOT / "examples" / "ci" / "assay.yml"
EXPR = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def run_workflow(tmp: Path, extra_env: dict[str, str]) -> dict[str, subprocess.CompletedProcess[str]]:
    """Each `run:` step of the job but the install (Assay is installed here), in order; stops at
    the first failing step, as GitHub does."""
    flow: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text("utf-8"))
    assert flow["defaults"]["run"]["shell"] == "bash"
    (job,) = flow["jobs"].values()
    outputs: dict[str, dict[str, str]] = {}
    done: dict[str, subprocess.CompletedProcess[str]] = {}
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ASSAY_", "GITHUB_"))}
    for step in job["steps"]:
        if "run" not in step or step["name"] == "Install Assay":
            continue

        def value(m: re.Match[str]) -> str:
            expr = m.group(1)
            if expr.startswith("secrets."):
                return ""
            sid, _, name = expr.removeprefix("steps.").partition(".outputs.")
            return outputs[sid][name]

        env = {**base, **{k: EXPR.sub(value, str(v)) for k, v in
                          {**job.get("env", {}), **step.get("env", {})}.items()}}
        out_file = tmp / f"output-{step.get('id', 'step')}"
        out_file.write_text("", "utf-8")
        env.update(GITHUB_ACTIONS="true", GITHUB_STEP_SUMMARY=str(tmp / "summary.md"),
                   GITHUB_OUTPUT=str(out_file), **extra_env)
        # the job's PYTHONPATH, then this checkout's src (the tests run the tree's code)
        env["PYTHONPATH"] = os.pathsep.join(
            [env["PYTHONPATH"], *filter(None, [os.environ.get("PYTHONPATH")])])
        env["PATH"] = os.pathsep.join([str(Path(ASSAY).parent), env.get("PATH", "")])
        script = EXPR.sub(value, step["run"])
        r = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                           cwd=tmp, env=env, capture_output=True, text=True, timeout=300,
                           check=False)
        done[step["name"]] = r
        if "id" in step:
            outputs[step["id"]] = dict(line.split("=", 1) for line in
                                       out_file.read_text("utf-8").splitlines() if "=" in line)
        if r.returncode:
            break
    return done


def checkout(tmp: Path) -> Path:
    """The files the workflow reads, where a checkout of this repository has them."""
    shutil.copytree(ROOT / "examples" / "ci", tmp / "examples" / "ci",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "examples" / "finsearch_t1_sample.json", tmp / "examples")
    return tmp


def test_the_example_workflow_passes_an_unchanged_agent(tmp_path: Path) -> None:
    tmp = checkout(tmp_path)
    steps = run_workflow(tmp, {})
    assert list(steps) == ["Score the baseline", "Evaluate the pull request",
                           "Gate on the comparison"]
    for name, r in steps.items():
        assert r.returncode == 0, (name, r.stdout, r.stderr)
    gate = steps["Gate on the comparison"]
    assert "::error" not in gate.stdout
    assert "PASS finance-rubric" in gate.stdout and "not significant (n = " in gate.stdout
    assert "n=97" in gate.stdout
    for report in ("run.xml", "compare.xml"):
        assert SCHEMA.validate(etree.parse(str(tmp / "reports" / report))), report
    md = (tmp / "summary.md").read_text("utf-8")
    assert "— ci-baseline (99 items)" in md and "— ci-pull-request (99 items)" in md
    assert "**Gate: pass**" in md


def test_the_example_workflow_fails_a_worse_agent(tmp_path: Path) -> None:
    tmp = checkout(tmp_path)
    steps = run_workflow(tmp, {"ASSAY_CI_DEMO_REGRESSION": "1"})
    gate = steps["Gate on the comparison"]
    assert gate.returncode == 1, gate.stderr
    fail = next(x for x in gate.stdout.splitlines() if x.startswith("FAIL"))
    assert fail.startswith("FAIL finance-rubric (") and "significantly worse" in fail
    assert re.search(r"McNemar exact p=\S+ < α=0.05 \(\d+ went 1→0, 0 went 0→1\), n=\d+", fail)
    assert "::error title=assay%3A finance-rubric significantly worse::FAIL" in gate.stdout
    assert "**Gate: FAIL**" in (tmp / "summary.md").read_text("utf-8")
