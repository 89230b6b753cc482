"""`assay score`: load, evaluate, store, print the summary — a run of recorded answers."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
from rich.progress import Progress as Bar
from rich.table import Table

from assay.core.errors import ConfigError
from assay.core.tally import Summary, Tally
from assay.datasets.loader import parse_field_map
from assay.runner.pipeline import Progress
from assay.runner.score import score, score_spec
from assay.store.db import open_engine, redact, resolve_url


def run_score(*, dataset: Path | None, responses: Path | None, evaluators: list[str],
              out: Path | None, fields: list[str], id_field: str | None, response_field: str,
              fail_under: float | None, db: str | None, quiet: bool,
              group_by: str = "label", judge_model: str | None = None,
              use_cache: bool = True, models_file: Path | None = None,
              jury: str | None = None, resume: str | None = None,
              max_cost: float | None = None) -> int:
    # A pipe or file gets full-width tables (Rich would squeeze long labels to 80 columns).
    console = Console(stderr=False)
    if not console.is_terminal:
        console = Console(stderr=False, width=160)
    if max_cost is not None and max_cost <= 0:
        raise ConfigError("--max-cost must be more than 0 (US dollars)")
    spec = None
    if resume is None:
        if dataset is None:
            raise ConfigError("give a DATASET to score, or --resume RUN")
        spec = score_spec(dataset, evaluators, responses=responses,
                          response_field=response_field, fields=parse_field_map(fields),
                          id_field=id_field, group_by=group_by, judge_model=judge_model,
                          jury=jury, max_cost=max_cost)
    elif dataset is not None:
        raise ConfigError("--resume continues a run as it was started: give no DATASET")
    engine = open_engine(db)
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
                                max_cost=max_cost if resume is not None else None))
    _print_summary(console, run.run_id, run.dataset_name, run.total, run.summary,
                   run.spec.group_by)
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
    if fail_under is not None:
        low = [(name, t.mean) for name, t in run.summary.overall.items()
               if t.mean is None or t.mean < fail_under]
        if low:
            console.print(f"[red]below --fail-under {fail_under}:[/] " + ", ".join(
                f"{n} mean {'n/a' if m is None else f'{m:.3f}'}" for n, m in low))
            return 1
    return 0


def _fmt(mean: float | None) -> str:
    return "–" if mean is None else f"{mean:.3f}"


def _row(table: Table, name: str, t: Tally) -> None:
    table.add_row(name, str(t.items), str(t.scored), _fmt(t.mean), str(t.null),
                  str(t.unscored), str(t.abstained), str(t.error))


def _print_summary(console: Console, run_id: str, name: str, total: int,
                   summary: Summary, group_by: str) -> None:
    for evaluator, tally in summary.overall.items():
        table = Table(title=f"{evaluator} on {name} ({total} items) — run {run_id}")
        for col in (group_by, "items", "scored", "mean", "null", "unscored", "abstained",
                    "error"):
            table.add_column(col, justify="left" if col == group_by else "right")
        _row(table, "all", tally)
        for label, t in sorted(summary.by_label.get(evaluator, {}).items()):
            _row(table, label, t)
        console.print(table)
        if tally.cost is not None:
            console.print(f"{evaluator}: model cost {tally.cost:.4f} (from the model's price "
                          "table; cache hits cost nothing)")
