"""`assay agreement RUN`."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from assay.core.errors import ConfigError
from assay.report.agreement import agreement
from assay.store import repo
from assay.store.db import open_engine

from .terminal import escape


def show_agreement(run_id: str, evaluators: list[str] | None, show: int,
                   db: str | None) -> None:
    engine = open_engine(db)
    repo.require_run(engine, run_id)
    rows = repo.list_results(engine, run_id)
    names = sorted({r["evaluator"] for r in rows})
    for name in evaluators or []:
        if name not in names:
            raise ConfigError(f"run {run_id} has no evaluator '{name}'; it has "
                              f"{', '.join(names)}")
    if len(evaluators or names) < 2:
        raise ConfigError(f"run {run_id} has one evaluator ({', '.join(names)}): "
                          "agreement needs two")
    console = Console()
    if not console.is_terminal:
        console = Console(width=160)
    table = Table(title=f"agreement in run {run_id}")
    for col in ("A", "B", "compared", "agree %", "Cohen's κ", "disagree", "scored by one only"):
        table.add_column(col, justify="left" if col in ("A", "B") else "right")
    pairs = agreement(rows, evaluators)
    for p in pairs:
        table.add_row(p.a, p.b, str(p.compared),
                      "–" if p.percent is None else f"{p.percent:.1f}",
                      "–" if p.kappa is None else f"{p.kappa:.3f}",
                      str(len(p.disagreements)), str(p.only_one_scored))
    console.print(table)
    for p in pairs:
        if not p.disagreements or show <= 0:
            continue
        console.rule(f"{p.a} vs {p.b}: {len(p.disagreements)} disagreements")
        for d in p.disagreements[:show]:
            console.print(f"[bold]{escape(d['item_id'])}[/]  {escape(p.a)}={d[p.a]:g}  "
                          f"{escape(p.b)}={d[p.b]:g}")
            console.print(f"  {escape(p.a)}: {escape(str(d[p.a + ' reason'])[:300])}")
            console.print(f"  {escape(p.b)}: {escape(str(d[p.b + ' reason'])[:300])}")
        if len(p.disagreements) > show:
            console.print(f"… {len(p.disagreements) - show} more (--show N)")
