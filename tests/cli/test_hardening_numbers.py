"""Money, thresholds and limits (issue 27): a NaN, an infinity or a negative number is a
one-line error naming the option or field, never a limit silently not set (`--max-cost nan`,
`--fail-under nan`, `--junit-threshold -1`, a negative or NaN price opening a budget)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assay.core.errors import ConfigError
from assay.core.numbers import number_problem
from assay.models.config import load_models
from assay.online.spec import load_watch_spec
from assay.runner.spec import load_spec
from tests.conftest import SAMPLE
from tests.invoke import assay_in_process


def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str
        ) -> tuple[int, str]:
    """`assay ARGS` in this process (tests/invoke.py), in the working directory and environment
    the test set up: its exit code and stderr, stripped. The call captures its own output and
    puts back what it changed (`capsys` and `monkeypatch` are the test's, not needed here)."""
    r = assay_in_process(*args, cwd=Path.cwd(), env=dict(os.environ))
    return r.returncode, r.stderr.strip()


def test_number_problem() -> None:
    assert number_problem(0) is None and number_problem(2.5, high=3) is None
    assert number_problem(float("nan")) == "must be a finite number ≥ 0, not nan"
    assert number_problem(float("inf"), above=True) == "must be a finite number > 0, not inf"
    assert number_problem(-1) == "must be a finite number ≥ 0, not -1"
    assert number_problem(0, above=True) == "must be a finite number > 0, not 0"
    assert number_problem(True) == "must be a finite number ≥ 0"
    assert number_problem("5") == "must be a finite number ≥ 0"
    assert number_problem(2.0, whole=True, low=1) == "must be a finite whole number ≥ 1"
    assert number_problem(10**11, whole=True, low=1, high=10**6) == (
        "must be a finite whole number ≥ 1 and ≤ 1e+06, not 1e+11")
    assert number_problem(float("nan"), low=None) == "must be a finite number, not nan"


@pytest.mark.parametrize("args, message", [
    (["--max-cost", "nan"], "error: --max-cost (US dollars) must be a finite number > 0, not nan"),
    (["--max-cost", "-1"], "error: --max-cost (US dollars) must be a finite number > 0, not -1"),
    (["--max-cost", "inf"], "error: --max-cost (US dollars) must be a finite number > 0, not inf"),
    (["--fail-under", "nan"], "error: --fail-under must be a finite number, not nan"),
    (["--junit-threshold", "-1", "--junit", "j.xml"],
     "error: --junit-threshold must be a finite number ≥ 0, not -1"),
    (["--junit-threshold", "nan", "--junit", "j.xml"],
     "error: --junit-threshold must be a finite number ≥ 0, not nan"),
])
def test_score_refuses_limits_that_set_no_limit(args: list[str], message: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, err = cli(capsys, monkeypatch, "score", str(SAMPLE), "--db",
                    f"sqlite:///{tmp_path / 'a.db'}", "--quiet", *args)
    assert (code, err) == (2, message)
    assert not (tmp_path / "j.xml").exists()


def test_run_refuses_a_nan_fail_under(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text(f"dataset: {SAMPLE}\ntargets: [{{name: r, type: recorded}}]\n"
                    "evaluators: [finance-rubric]\n", "utf-8")
    code, err = cli(capsys, monkeypatch, "run", str(spec), "--fail-under", "nan",
                    "--db", f"sqlite:///{tmp_path / 'a.db'}")
    assert (code, err) == (2, "error: --fail-under must be a finite number, not nan")


@pytest.mark.parametrize("line, message", [
    ("budget: {usd: .nan}", "s.yaml:4: budget.usd: must be a finite number > 0, not nan "
                            "(US dollars)"),
    ("budget: {usd: -5}", "s.yaml:4: budget.usd: must be a finite number > 0, not -5 "
                          "(US dollars)"),
    ("timeout_s: .nan", "s.yaml:4: timeout_s: must be a finite number > 0, not nan (seconds)"),
    # L4 (review of issue 27): 10^12 repeats crashed the interpreter or hung
    ("repeats: 1000000000000", "s.yaml:4: repeats: must be a whole number ≥ 1 and ≤ 10,000"),
])
def test_spec_money_and_timeouts(tmp_path: Path, line: str, message: str) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text(f"dataset: {SAMPLE}\ntargets: [{{name: r, type: recorded}}]\n"
                    f"evaluators: [finance-rubric]\n{line}\n", "utf-8")
    with pytest.raises(ConfigError) as err:
        load_spec(spec)
    assert str(err.value) == f"{tmp_path}/{message}"


@pytest.mark.parametrize("field, value, message", [
    ("price_in_per_mtok", "-1.0", "price_in_per_mtok (--price-in) must be a finite number ≥ 0, "
                                  "not -1"),
    ("price_out_per_mtok", ".nan", "price_out_per_mtok (--price-out) must be a finite number "
                                   "≥ 0, not nan"),
    ("timeout_s", ".nan", "timeout_s must be a finite number > 0, not nan"),
])
def test_model_registry_prices(tmp_path: Path, field: str, value: str, message: str) -> None:
    p = tmp_path / "models.yaml"
    p.write_text("models:\n  m:\n    base_url: http://127.0.0.1:1/v1\n    model: x\n"
                 f"    {field}: {value}\n", "utf-8")
    with pytest.raises(ConfigError) as err:
        load_models(p)
    assert str(err.value) == f"{p}: model 'm': {message}"


def test_models_add_refuses_a_negative_price(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    models = tmp_path / "models.yaml"
    code, err = cli(capsys, monkeypatch, "models", "add", "m", "--base-url",
                    "http://127.0.0.1:1/v1", "--model", "x", "--price-in", "-2",
                    "--models", str(models))
    assert (code, err) == (2, "error: model 'm': price_in_per_mtok (--price-in) must be a "
                              "finite number ≥ 0, not -2")
    assert not models.exists()


@pytest.mark.parametrize("line, message", [
    ("quiet_s: .nan", "w.yaml:4: quiet_s: must be a finite number ≥ 0 and ≤ 86400, not nan"),
    ("orphan_s: -1", "w.yaml:4: orphan_s: must be a finite number ≥ 0 and ≤ 86400, not -1"),
    ("queue: 100000000000", "w.yaml:4: queue: must be a finite whole number ≥ 1 and ≤ 1e+06, "
                            "not 1e+11"),
    # L3 (review of issue 27): one task per worker, 10^8 of them a MemoryError
    ("concurrency: 100000000", "w.yaml:4: concurrency: must be 'auto' or a whole number from 1 "
                               "to 10,000"),
])
def test_watch_spec_limits(tmp_path: Path, line: str, message: str) -> None:
    p = tmp_path / "w.yaml"
    p.write_text('name: x\nsource: {otlp: "127.0.0.1:0"}\nevaluators: [finance-rubric]\n'
                 f"{line}\n", "utf-8")
    with pytest.raises(ConfigError) as err:
        load_watch_spec(p)
    assert str(err.value) == f"{tmp_path}/{message}"


@pytest.mark.parametrize("value, shown", [("-1", "-1"), ("0", "0"), (".nan", "nan"),
                                          (".inf", "inf")])
@pytest.mark.parametrize("target", ["{name: c, type: command, command: 'true'",
                                    "{name: c, type: http, url: 'http://127.0.0.1:9/'"])
def test_a_targets_own_timeout_s_is_a_finite_number_above_0(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        value: str, shown: str, target: str) -> None:
    """M8 (review of issue 27): ≤ 0 hung the run forever, NaN timed out every item."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSAY_DB", raising=False)
    (tmp_path / "d.jsonl").write_text('{"id": "a", "prompt": "q"}\n', "utf-8")
    (tmp_path / "s.yaml").write_text(
        "dataset: {path: d.jsonl, id_field: id}\n"
        f"targets: [{target}, timeout_s: {value}}}]\nevaluators: [{{python: c.py:ok}}]\n",
        "utf-8")
    (tmp_path / "c.py").write_text("def ok(item, answer):\n    return True\n", "utf-8")
    code, err = cli(capsys, monkeypatch, "run", "s.yaml", "--quiet")
    assert code == 2 and err.endswith(
        f"target 'c': timeout_s must be a finite number > 0, not {shown}"), err
