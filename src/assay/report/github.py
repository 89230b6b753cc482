"""`--github`: what a run or a comparison shows on a GitHub Actions job page — a Markdown step
summary (a table per evaluator, and the gate's verdict) appended to $GITHUB_STEP_SUMMARY, and an
`::error` workflow command per failing gate, which GitHub shows as an annotation on the job. A
run also sets the step output `run_id` ($GITHUB_OUTPUT), so a later step can compare it.

Outside GitHub Actions (GITHUB_ACTIONS is not "true", or GITHUB_STEP_SUMMARY is not set) there
is nowhere to write either: `github_env` says why, and the CLI prints that one line instead."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from assay.core.tally import Tally

from .compare import Pairing
from .gate import Verdict


def github_env(env: Mapping[str, str] | None = None) -> tuple[Path | None, str]:
    """(the step-summary file, "") under GitHub Actions; else (None, why not)."""
    env = os.environ if env is None else env
    if env.get("GITHUB_ACTIONS") != "true":
        return None, ("--github: not running under GitHub Actions (GITHUB_ACTIONS is not "
                      "'true'): no step summary or annotations written")
    summary = env.get("GITHUB_STEP_SUMMARY")
    if not summary:
        return None, ("--github: GITHUB_STEP_SUMMARY is not set: no step summary or "
                      "annotations written")
    return Path(summary), ""


def _escape_data(text: str) -> str:
    # GitHub's workflow-command encoding: the message ends at a newline, so it is escaped
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(title: str, message: str) -> str:
    """`::error title=…::…`, escaped as GitHub's toolkit escapes it."""
    return f"::error title={_escape_property(title)}::{_escape_data(message)}"


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _num(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def run_summary(run_id: str, name: str, total: int, overall: Mapping[str, Tally],
                gate_lines: list[str]) -> str:
    """Markdown for a run: its evaluators' figures, then the --fail-under verdict if any."""
    skipped = any(t.skipped for t in overall.values())  # not applicable: a column if any
    out = [f"## Assay run `{run_id}` — {_cell(name)} ({total} items)", "",
           "| evaluator | items | scored | mean | 95% CI | null | unscored | abstained | error |"
           + (" skipped |" if skipped else ""),
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|" + ("---:|" if skipped else "")]
    for evaluator, t in overall.items():
        ci = "–" if t.ci is None else f"[{t.ci[0]:.3f}, {t.ci[1]:.3f}]"
        out.append(f"| {_cell(evaluator)} | {t.items} | {t.scored} | {_num(t.mean)} | {ci} | "
                   f"{t.null} | {t.unscored} | {t.abstained} | {t.error} |"
                   + (f" {t.skipped} |" if skipped else ""))
    out.append("")
    out.extend(f"- {_cell(line)}" for line in gate_lines)
    return "\n".join(out) + "\n"


def compare_summary(run_ids: list[str], pairs: list[Pairing], verdicts: list[Verdict],
                    alpha: float, gated: bool = True) -> str:
    """Markdown for a comparison: a row per evaluator and run, then each verdict's line.
    `gated`: whether --fail-if-worse made the verdict decide the exit code."""
    base = run_ids[0]
    failed = [v for v in verdicts if v.failed]
    word = "Gate" if gated else "Verdict (no gate: --fail-if-worse not given)"
    why = [(f"significantly worse at α={alpha:g}", [v for v in failed if v.outcome == "worse"]),
           ("fell past --max-drop", [v for v in failed if v.outcome == "dropped"])]
    verdict = (f"**{word}: FAIL** — " + "; ".join(
        f"{what}: " + ", ".join(f"{v.evaluator} ({v.other})" for v in vs)
        for what, vs in why if vs)) if failed else \
        f"**{word}: pass** — no evaluator significantly worse at α={alpha:g}"
    out = [f"## Assay compare: baseline `{base}` vs " + ", ".join(f"`{r}`" for r in run_ids[1:]),
           "", verdict, "",
           "| evaluator | run | paired | baseline mean | mean | difference | test | "
           "p / interval | only baseline | only this run | no score on one side | verdict |",
           "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|"]
    for p, v in zip(pairs, verdicts, strict=True):
        diff = "–" if p.diff is None else f"{p.diff:+.3f}"
        stat = f"p={v.p_value:.4g}" if v.p_value is not None else \
            f"[{v.interval[0]:+.3f}, {v.interval[1]:+.3f}]" if v.interval is not None else "–"
        out.append(f"| {_cell(p.evaluator)} | `{p.other}` | {p.paired} | {_num(p.mean_base)} "
                   f"| {_num(p.mean_other)} | {diff} | {v.test} | {stat} | "
                   f"{len(p.only_base)} | {len(p.only_other)} | {p.unscored_pairs} | "
                   f"{v.outcome} |")
    out.append("")
    out.extend(f"- {_cell(v.line)}" for v in verdicts)
    return "\n".join(out) + "\n"


def set_output(name: str, value: str, env: Mapping[str, str] | None = None) -> bool:
    """Append `name=value` to $GITHUB_OUTPUT (a step output); False when it is not set."""
    path = (os.environ if env is None else env).get("GITHUB_OUTPUT")
    if not path or "\n" in value:
        return False
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"{name}={value}\n")
    return True


def append_summary(path: Path, markdown: str) -> None:
    """Append (several steps share the job's summary file, and each adds its part)."""
    with path.open("a", encoding="utf-8") as f:
        f.write(markdown + "\n")
