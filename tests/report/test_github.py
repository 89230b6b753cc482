"""--github's pieces: where it writes, and annotations escaped as GitHub's toolkit escapes them."""

from __future__ import annotations

from pathlib import Path

from assay.report.github import annotation, github_env, set_output


def test_github_env_says_why_it_does_nothing(tmp_path: Path) -> None:
    summary = str(tmp_path / "s.md")
    assert github_env({"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary}) == \
        (Path(summary), "")
    path, why = github_env({"GITHUB_STEP_SUMMARY": summary})
    assert path is None and "GITHUB_ACTIONS is not 'true'" in why
    path, why = github_env({"GITHUB_ACTIONS": "false", "GITHUB_STEP_SUMMARY": summary})
    assert path is None and "not running under GitHub Actions" in why
    path, why = github_env({"GITHUB_ACTIONS": "true"})
    assert path is None and "GITHUB_STEP_SUMMARY is not set" in why


def test_annotation_escapes_what_would_end_or_split_the_command() -> None:
    # a newline would end the command; in the title, ':' and ',' would end the property
    assert annotation("assay: a, b", "100% worse\r\nsee 报告") == \
        "::error title=assay%3A a%2C b::100%25 worse%0D%0Asee 报告"


def test_set_output_appends_a_step_output(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    env = {"GITHUB_OUTPUT": str(out)}
    assert set_output("run_id", "r-1", env) and set_output("run_id", "r-2", env)
    assert out.read_text("utf-8") == "run_id=r-1\nrun_id=r-2\n"
    assert not set_output("run_id", "r-3", {})
    assert not set_output("x", "two\nlines", env)  # would forge another output
    assert out.read_text("utf-8") == "run_id=r-1\nrun_id=r-2\n"
