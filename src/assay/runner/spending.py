"""A run's budget: which limit applies, what counts as already spent, and the check that every
priced model is priced before anything is sent.

The limit of a fresh run is `--max-cost`, else the spec's `budget: {usd: …}`. A resumed run keeps
the last limit it ran under unless `--resume RUN --max-cost LARGER` gives a new one; what its
stored answers and results cost counts toward it, so a resume never spends the budget twice."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from assay.core.errors import ConfigError
from assay.models.budget import Budget, priced
from assay.store import repo
from assay.store.costs import run_spent
from assay.store.db import Engine


def run_budget(engine: Engine, run_id: str, *, spec_usd: float | None, max_cost: float | None,
               resumed: bool, clients: Iterable[Any]) -> Budget | None:
    usd = max_cost
    if usd is None and resumed:
        row = repo.get_run(engine, run_id) or {}
        usd = ((row.get("summary") or {}).get("budget") or {}).get("usd")
    if usd is None:
        usd = spec_usd
    if usd is None:
        return None
    if usd <= 0:
        raise ConfigError(f"--max-cost must be more than 0 (got {usd:g})")
    clients = list(clients)
    for client in clients:
        if not priced(client.cfg):
            raise ConfigError(f"a budget of {usd:g} USD needs prices: model '{client.cfg.name}' "
                              "has none (price_in_per_mtok / price_out_per_mtok in the model "
                              "registry; assay models add … --price-in --price-out --replace)")
    budget = Budget(float(usd), spent=run_spent(engine, run_id) if resumed else 0.0)
    for client in clients:
        client.budget = budget
    return budget


def budget_record(budget: Budget | None) -> dict[str, Any]:
    """What the run's summary keeps of its budget (and a resume reads back)."""
    if budget is None:
        return {}
    return {"budget": {"usd": budget.limit, "spent": round(budget.spent, 8),
                       **({"refused": budget.refused} if budget.refused else {})}}
