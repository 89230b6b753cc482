"""`assay score`: load, evaluate, store, print the summary — a run of recorded answers."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
from rich.progress import Progress as Bar
from rich.table import Table

from assay.core.errors import ConfigError
from assay.core.numbers import checked
from assay.core.outputs import refuse_inputs
from assay.core.tally import Summary, Tally
from assay.datasets.loader import parse_field_map
from assay.report.causes import BY_CAUSE
from assay.runner.evaluator_entries import cli_entries
from assay.runner.pipeline import Progress
from assay.runner.resume import prior_spec
from assay.runner.score import score, score_spec
from assay.runner.spec import read_files
from assay.store.db import open_engine, redact, resolve_url, store_file

from .ci_cmd import finish_run


@dataclass(frozen=True)
class CiOutputs:
    """The CI options `assay run` and `assay score` share (see cli/ci_cmd.py)."""

    junit: Path | None = None
    junit_threshold: float | None = None
    github: bool = False
    fail_under: float | None = None  # `assay run`'s; `assay score` passes its own


def check_limits(max_cost: float | None, ci: CiOutputs | None,
                 fail_under: float | None = None) -> None:
    """The money and thresholds `run` and `score` take: finite, in range (core/numbers.py), so
    a NaN or a negative number never sets no limit."""
    if max_cost is not None:
        checked(max_cost, "--max-cost (US dollars)", above=True)
    fail_under = fail_under if fail_under is not None else ci.fail_under if ci else None
    if fail_under is not None:
        checked(fail_under, "--fail-under", low=None)
    if ci is not None and ci.junit_threshold is not None:
        checked(ci.junit_threshold, "--junit-threshold")


def check_timeout(timeout_s: float | None) -> None:
    """`--timeout` (run, score, retry, replay): finite seconds above 0."""
    if timeout_s is not None:
        checked(timeout_s, "--timeout (seconds)", above=True)


def run_score(*, dataset: Path | None, responses: Path | None, evaluators: list[str],
              out: Path | None, fields: list[str], id_field: str | None, response_field: str,
              fail_under: float | None, db: str | None, quiet: bool,
              group_by: str = "label", judge_model: str | None = None,
              use_cache: bool = True, models_file: Path | None = None,
              jury: str | None = None, resume: str | None = None,
              ci: CiOutputs | None = None, args: list[str] | None = None,
              when: list[str] | None = None,
              executor: str | None = None, max_cost: float | None = None,
              timeout_s: float | None = None, run_id: str | None = None) -> int:
    # A pipe or file gets full-width tables (Rich would squeeze long labels to 80 columns).
    console = Console(stderr=False)
    if not console.is_terminal:
        console = Console(stderr=False, width=160)
    check_limits(max_cost, ci, fail_under)
    check_timeout(timeout_s)
    inputs = {"the dataset": dataset, "the recorded answers (--responses)": responses,
              "the store": store_file(db)}
    refuse_inputs(out, "--out", inputs)
    refuse_inputs(ci.junit if ci else None, "--junit", {**inputs, "--out": out})
    spec = None
    if resume is None:
        if dataset is None:
            raise ConfigError("give a DATASET to score, or --resume RUN")
        spec = score_spec(dataset, cli_entries(evaluators, args or [], when or []), responses=responses,
                          response_field=response_field, fields=parse_field_map(fields),
                          id_field=id_field, group_by=group_by, judge_model=judge_model,
                          jury=jury, executor=executor, max_cost=max_cost,
                          timeout_s=timeout_s)
    elif dataset is not None or args or when or executor is not None or run_id is not None:
        raise ConfigError("--resume continues a run as it was started: give no DATASET, "
                          "--arg, --when, --executor or --run-id")
    engine = open_engine(db)
    # every file the run reads, the resumed run's too (its spec from the store)
    read = {**read_files(spec if spec is not None else prior_spec(engine, str(resume))),
            "the models file (--models)": models_file}
    refuse_inputs(out, "--out", read)
    refuse_inputs(ci.junit if ci else None, "--junit", read)
    with Bar(TextColumn("scoring"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
             console=Console(stderr=True), disable=quiet, transient=True) as bar:
        task = bar.add_task("score", total=None)
        shown = [0.0]

        def show(p: Progress) -> None:
            now = time.monotonic()  # a redraw costs more than scoring an item: 10 a second
            if now - shown[0] >= 0.1 or p.done == p.total:
                shown[0] = now
                bar.update(task, total=p.total, completed=p.done)

        run = asyncio.run(score(engine, spec, out=out, resume=resume, models_file=models_file,
                                use_cache=use_cache, progress=None if quiet else show,
                                max_cost=max_cost if resume is not None else None,
                                timeout_s=timeout_s if resume is not None else None,
                                run_id=run_id))
    for note in run.notes:
        Console(stderr=True, soft_wrap=True, highlight=False).print(
            f"[yellow]warning:[/] {escape(note)}")
    _print_summary(console, run.run_id, run.dataset_name, run.total, run.summary,
                   run.spec.group_by)
    if run.spec.group_by == BY_CAUSE:
        from .causes_view import print_causes

        print_causes(console, engine, run.run_id)
    from .costs_view import budget_stop_line, print_costs

    print_costs(console, run.costs, run.budget)
    if run.stop_reason == "budget":
        Console(stderr=True, soft_wrap=True).print(budget_stop_line(run, "score"))
        return 130
    if run.status == "interrupted":
        Console(stderr=True).print(
            f"interrupted: finished results are kept ({run.done} of {run.total} items); run "
            f"{run.run_id} is marked interrupted; continue with: assay score --resume "
            f"{run.run_id}")
        return 130
    console.print(f"run [bold]{run.run_id}[/] stored in {redact(resolve_url(db))}"
                  + (f"; scores written to {out}" if out else ""))
    ci = ci or CiOutputs()
    return finish_run(console, engine, run_id=run.run_id, name=run.dataset_name,
                      total=run.total, overall=run.summary.overall, fail_under=fail_under,
                      junit=ci.junit, junit_threshold=ci.junit_threshold, github=ci.github)


def _fmt(mean: float | None) -> str:
    return "–" if mean is None else f"{mean:.3f}"


def _row(table: Table, name: str, t: Tally, skipped: bool) -> None:
    table.add_row(name, str(t.items), str(t.scored), _fmt(t.mean), str(t.null),
                  str(t.unscored), str(t.abstained), str(t.error),
                  *([str(t.skipped)] if skipped else []))


def _print_summary(console: Console, run_id: str, name: str, total: int,
                   summary: Summary, group_by: str) -> None:
    for evaluator, tally in summary.overall.items():
        table = Table(title=f"{evaluator} on {name} ({total} items) — run {run_id}")
        # items it does not apply to (when:): a column of their own, outside `items`
        skipped = tally.skipped > 0
        for col in (group_by, "items", "scored", "mean", "null", "unscored", "abstained",
                    "error", *(["skipped"] if skipped else [])):
            table.add_column(col, justify="left" if col == group_by else "right")
        _row(table, "all", tally, skipped)
        # --by cause: counted from finance-cause's results after the tables, not an item field
        groups = {} if group_by == BY_CAUSE else summary.by_label.get(evaluator, {})
        for label, t in sorted(groups.items()):
            if t.items or not t.skipped:  # a group it applies to none of: no row
                _row(table, label, t, skipped)
        console.print(table)
        if tally.cost is not None:
            console.print(f"{evaluator}: model cost {tally.cost:.4f} (from the model's price "
                          "table; cache hits cost nothing)")
