"""`assay score`: load, evaluate, store, print the summary."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from assay.core.errors import ConfigError
from assay.core.types import Answer, Item
from assay.datasets.answers import answer_from_item, load_responses
from assay.datasets.loader import load_dataset, parse_field_map
from assay.evaluators.build import EvaluatorFactory
from assay.report.summary import Summary, Tally
from assay.runner.score import ascore_dataset
from assay.store.db import open_engine, redact, resolve_url


def run_score(*, dataset: Path, responses: Path | None, evaluators: list[str],
              out: Path | None, fields: list[str], id_field: str | None, response_field: str,
              fail_under: float | None, db: str | None, quiet: bool,
              group_by: str = "label", judge_model: str | None = None,
              use_cache: bool = True, models_file: Path | None = None,
              jury: str | None = None) -> int:
    return asyncio.run(_run_score(jury=jury,
        dataset=dataset, responses=responses, evaluators=evaluators, out=out, fields=fields,
        id_field=id_field, response_field=response_field, fail_under=fail_under, db=db,
        quiet=quiet, group_by=group_by, judge_model=judge_model, use_cache=use_cache,
        models_file=models_file))


async def _run_score(*, dataset: Path, responses: Path | None, evaluators: list[str],
                     out: Path | None, fields: list[str], id_field: str | None,
                     response_field: str, fail_under: float | None, db: str | None,
                     quiet: bool, group_by: str, judge_model: str | None, use_cache: bool,
                     models_file: Path | None, jury: str | None) -> int:
    # A pipe or file gets full-width tables (Rich would squeeze long labels to 80 columns).
    console = Console(stderr=False)
    if not console.is_terminal:
        console = Console(stderr=False, width=160)
    ds = load_dataset(dataset, field_map=parse_field_map(fields), id_field=id_field)
    if responses is not None:
        table = load_responses(responses)
        source = f"file:{responses}"

        def answers(item: Item) -> Answer | None:
            return table.get(item.id)
    else:
        if ds.items and all(answer_from_item(it, response_field) is None for it in ds.items):
            raise ConfigError(
                f"{dataset}: no item has a '{response_field}' field; give answers with "
                f"--responses FILE or map a column with --field {response_field}=COLUMN")
        source = f"field:{response_field}"

        def answers(item: Item) -> Answer | None:
            return answer_from_item(item, response_field)

    engine = open_engine(db)
    builder = EvaluatorFactory(engine, judge_model=judge_model, use_cache=use_cache,
                               models_file=models_file)
    try:
        evs = [builder.build(name) for name in evaluators]
        total = len(ds.items)
        with Progress(TextColumn("scoring"), BarColumn(), MofNCompleteColumn(),
                      TimeRemainingColumn(), console=Console(stderr=True),
                      disable=quiet or (total < 5000 and not builder.clients),
                      transient=True) as bar:
            task = bar.add_task("score", total=total)
            run = await ascore_dataset(
                engine, ds, evs, answers, out=out, answer_source=source, group_by=group_by,
                progress=lambda n: bar.advance(task, n),
                manifest_extra={"models": builder.public_models()} if builder.clients else None,
                jury=jury)
    finally:
        await builder.close()
    _print_summary(console, run.run_id, ds.name, total, run.summary, group_by)
    if run.status == "interrupted":
        Console(stderr=True).print(
            f"interrupted: finished results are kept ({run.done} of {total} items); run "
            f"{run.run_id} is marked interrupted")
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
                  str(t.unscored), str(t.error))


def _print_summary(console: Console, run_id: str, name: str, total: int,
                   summary: Summary, group_by: str) -> None:
    for evaluator, tally in summary.overall.items():
        table = Table(title=f"{evaluator} on {name} ({total} items) — run {run_id}")
        for col in (group_by, "items", "scored", "mean", "null", "unscored", "error"):
            table.add_column(col, justify="left" if col == group_by else "right")
        _row(table, "all", tally)
        for label, t in sorted(summary.by_label.get(evaluator, {}).items()):
            _row(table, label, t)
        console.print(table)
        if tally.cost is not None:
            console.print(f"{evaluator}: model cost {tally.cost:.4f} (from the model's price "
                          "table; cache hits cost nothing)")
