"""`assay replay RUN`: how many of a run's scores reproduce, per evaluator."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.console import Console
from rich.table import Table

from assay.runner.replay import replay_run
from assay.store.db import open_engine

from .score_cmd import check_timeout
from .terminal import escape


def replay(run_id: str, *, fresh: bool, models_file: Path | None, db: str | None,
           show: int, timeout_s: float | None = None) -> int:
    check_timeout(timeout_s)
    engine = open_engine(db)
    report = asyncio.run(replay_run(engine, run_id, fresh=fresh, models_file=models_file,
                                    keep=show, timeout_s=timeout_s))
    c = Console()
    if not c.is_terminal:
        c = Console(width=160)
    table = Table(title=f"replay of run {run_id}" + (" (judges asked again)" if fresh else
                                                      " (judges from the cache)"))
    for col in ("evaluator", "kind", "compared", "reproduced", "rate", "note"):
        table.add_column(col, justify="right" if col in ("compared", "reproduced", "rate")
                         else "left")
    for r in report.evaluators:
        rate = "–" if r.rate is None else f"{r.rate:.1%}"
        note = "evaluator version changed since the run" if r.version_changed else ""
        table.add_row(escape(r.evaluator), "code" if r.deterministic else "model judge",
                      str(r.compared), str(r.reproduced), rate, note)
    c.print(table)
    for name, why in report.skipped.items():
        c.print(f"[yellow]skipped {escape(name)}:[/] {escape(why)}")
    for r in report.evaluators:
        for d in r.differences:
            c.print(f"{escape(r.evaluator)} {escape(d['item_id'])} ({escape(d['target'])}): "
                    f"stored {d['stored'][0]} {d['stored'][1]} → now {d['now'][0]} "
                    f"{d['now'][1]}: {escape(d['reason_now'])}")
    if not report.deterministic_ok:
        c.print("[red]a code evaluator did not reproduce its scores[/]")
        return 1
    return 0
