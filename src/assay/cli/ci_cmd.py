"""The CI outputs of `assay run`, `assay score` and `assay compare`: the --fail-under and
--fail-if-worse gates, --junit FILE and --github (see docs/ci.md)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from rich.console import Console

from assay.core.errors import ConfigError
from assay.core.tally import Tally
from assay.report.compare import Pairing
from assay.report.gate import MaxDrop, Verdict
from assay.store.db import Engine

from .terminal import escape


def _github(markdown: str, errors: list[tuple[str, str]], run_id: str | None = None) -> None:
    from assay.report.github import annotation, append_summary, github_env, set_output

    path, why = github_env()
    if path is None:
        print(why, file=sys.stderr)
        return
    append_summary(path, markdown)
    if run_id is not None:  # later steps read it as steps.ID.outputs.run_id
        set_output("run_id", run_id)
    for title, message in errors:  # workflow commands are read from the step's stdout
        print(annotation(title, message), flush=True)


def finish_run(console: Console, engine: Engine, *, run_id: str, name: str, total: int,
               overall: Mapping[str, Tally], fail_under: float | None, junit: Path | None,
               junit_threshold: float | None, github: bool) -> int:
    """After a finished run or score: the --fail-under gate, then the CI files; the exit code."""
    low = [] if fail_under is None else [
        (n, t.mean) for n, t in overall.items() if t.mean is None or t.mean < fail_under]
    lines = [f"{n} mean {'n/a' if m is None else f'{m:.3f}'} is below --fail-under "
             f"{fail_under:g}" for n, m in low]
    if low:
        console.print(f"[red]below --fail-under {fail_under}:[/] " + ", ".join(
            f"{escape(n)} mean {'n/a' if m is None else f'{m:.3f}'}" for n, m in low))
    if junit is not None:
        from assay.report.junit import run_junit, write_junit

        write_junit(run_junit(engine, run_id, threshold=junit_threshold), junit)
        print(f"JUnit XML written to {junit}", file=sys.stderr)
    if github:
        from assay.report.github import run_summary

        if fail_under is not None and not low:
            lines.append(f"every evaluator's mean is at least --fail-under {fail_under:g}")
        _github(run_summary(run_id, name, total, overall, lines),
                [(f"assay: {n} below --fail-under", f"run {run_id}: {line}")
                 for (n, _), line in zip(low, lines, strict=False)], run_id)
    return 1 if low else 0


def finish_compare(engine: Engine, run_ids: list[str], pairs: list[Pairing], *,
                   targets: list[str | None] | None, fail_if_worse: bool, alpha: float,
                   min_paired: int, resamples: int, junit: Path | None, github: bool,
                   as_json: bool, max_drop: MaxDrop | None = None,
                   markdown: Path | None = None) -> int:
    """After `assay compare`: the gate's verdict lines, the CI files; the exit code (1 only
    when --fail-if-worse or --max-drop is given and some evaluator is significantly worse or
    fell by more than --max-drop)."""
    from assay.report.gate import gate

    limits = max_drop or MaxDrop()
    gated = fail_if_worse or limits.default is not None or bool(limits.per)
    verdicts: list[Verdict] = gate(pairs, alpha=alpha, min_paired=min_paired,
                                   resamples=resamples, max_drop=limits)
    out = Console(stderr=as_json, width=1000)  # --json keeps stdout for the JSON alone
    if gated:
        for v in verdicts:
            style = {"worse": "red", "dropped": "red", "undecided": "yellow"}.get(v.outcome,
                                                                                   "green")
            out.print(f"[{style}]{escape(v.line)}[/]")
    if markdown is not None:
        from assay.report.github import compare_summary

        try:
            markdown.write_text(compare_summary(run_ids, pairs, verdicts, alpha, gated=gated),
                                encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot write --markdown {markdown}: {exc.strerror or exc}") \
                from None
        print(f"Markdown written to {markdown}", file=sys.stderr)
    if junit is not None:
        from assay.report.junit import compare_junit, write_junit

        write_junit(compare_junit(engine, run_ids, pairs, verdicts, targets), junit)
        print(f"JUnit XML written to {junit}", file=sys.stderr)
    if github:
        from assay.report.github import compare_summary

        _github(compare_summary(run_ids, pairs, verdicts, alpha, gated=gated),
                [(f"assay: {v.evaluator} " + ("fell past --max-drop" if v.outcome == "dropped"
                                              else "significantly worse"), v.line)
                 for v in verdicts if v.failed and gated])
    return 1 if gated and any(v.failed for v in verdicts) else 0
