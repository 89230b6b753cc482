"""Printing what a run cost, and why a budget stopped it."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from assay.core.costs import CostSheet

from .terminal import escape


def usd(value: float | None) -> str:
    return "–" if value is None else f"{value:.4f}" if value >= 0.01 else f"{value:.6f}"


def print_costs(console: Console, costs: CostSheet | None, budget: dict[str, Any]) -> None:
    """Cost per target, per judge, in total and per correct answer (USD, from the model
    registry's prices; cache hits cost nothing)."""
    if costs is None or costs.empty:
        return
    table = Table(title="cost (USD, from the model registry's prices; cache hits are free)")
    for col in ("what", "name", "cost", "correct", "per correct answer"):
        table.add_column(col, justify="left" if col in ("what", "name") else "right")
    for name, value in costs.targets.items():
        table.add_row("target", escape(name), usd(value), "", "")
    for name, value in costs.judges.items():
        table.add_row("judge", escape(name), usd(value), "", "")
    for name, value in costs.simulators.items():
        table.add_row("simulator", escape(name), usd(value), "", "")
    if costs.discarded:
        table.add_row("retried", "attempts assay retry dropped", usd(costs.discarded), "", "")
    for name, each in costs.per_correct.items():
        table.add_row("per correct", escape(name), "", str(costs.correct.get(name, 0)),
                      usd(each))
    limit = f" of a {budget['usd']:g} budget" if budget.get("usd") else ""
    table.add_row("total", "", usd(costs.total) + limit, "", "")
    console.print(table)


def budget_stop_line(result: Any, command: str) -> str:
    """One line: where the budget stopped the run and how to go on."""
    b = result.budget
    return escape(
        f"stopped by the budget: {b.get('refused', '')}; {result.done} of {result.total} "
        f"samples are stored, nothing was sent past the budget; continue with: assay "
        f"{command} --resume {result.run_id} --max-cost LARGER (the {b.get('spent', 0):.6g} "
        "USD spent so far counts toward it)")
