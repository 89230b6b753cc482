"""`--by cause` in `assay show` and `assay score`: the causes finance-cause found, counted per
target, or one line saying the run has none."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from assay.report.causes import cause_counts, no_causes_message
from assay.store.db import Engine

from .terminal import escape


def print_causes(console: Console, engine: Engine, run_id: str) -> None:
    counts = cause_counts(engine, run_id)
    if not counts:
        console.print(escape(no_causes_message(run_id)))
        return
    table = Table(title="finance-cause by cause")
    causes = counts.causes
    for col in ("target", *causes, "total"):
        table.add_column(col, justify="left" if col == "target" else "right")
    for target, per in counts.targets.items():
        table.add_row(escape(target), *(str(per.get(c, 0)) for c in causes),
                      str(counts.total(target)))
    console.print(table)
