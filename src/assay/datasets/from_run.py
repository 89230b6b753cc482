"""`assay datasets add NAME --from-run RUN`: a run's samples as a named dataset version — each
item's own fields (for an online run: the trace's question and context), the answer the
target gave, and the ground truth captured beside it with its provenance — so production
traces become a regression set, and a finished run's answers a baseline to score again.

With `reference=True` the answer is also the item's `reference_output` (the expected answer of
`exact`, `numeric`, …): what the agent said then is what it must say again."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import orjson

from assay.core.errors import ConfigError
from assay.core.types import Item
from assay.store import dataset_names as names
from assay.store import repo
from assay.store.dataset_names import NamedVersion
from assay.store.db import Engine

from .named import NAME


@dataclass(frozen=True)
class FromRun:
    version: NamedVersion
    new: bool
    items: int
    skipped: int  # samples whose target failed: no answer to keep


def add_from_run(engine: Engine, name: str, run_id: str, *, target: str | None = None,
                 reference: bool = False) -> FromRun:
    if not NAME.match(name):
        raise ConfigError(f"dataset name '{name}' must be letters, digits, '.', '_' or '-'")
    run = repo.require_run(engine, run_id)
    answers = [a for a in repo.list_answers(engine, run_id) if a["epoch"] == 0]
    targets = sorted({a["target"] for a in answers})
    if target is None and len(targets) > 1:
        raise ConfigError(f"run {run_id} has several targets ({', '.join(targets)}): choose "
                          "one with --target")
    if target is not None and target not in targets:
        raise ConfigError(f"run {run_id} has no target '{target}' (it has "
                          f"{', '.join(targets) or 'no answers'})")
    chosen = [a for a in answers if target is None or a["target"] == target]
    items = repo.get_items(engine, run["dataset_id"])
    truths = {(t["item_id"], t["target"]): t for t in repo.list_truth(engine, run_id)
              if t["epoch"] == 0}
    rows: list[tuple[str, dict[str, object]]] = []
    skipped = 0
    for a in sorted(chosen, key=lambda a: a["item_id"]):
        item = items.get(a["item_id"])
        if item is None or a["error"] is not None or a["text"] is None:
            skipped += 1
            continue
        fields = dict(item.fields)
        fields["response"] = a["text"]
        if reference:
            fields["reference_output"] = a["text"]
        snap = truths.get((a["item_id"], a["target"]))
        if snap is not None and snap["status"] == "ok":
            fields["ground_truth"] = snap["payload"] if snap["payload"] is not None \
                else snap["fields"]
            fields["truth_provenance"] = {
                "provider": snap["provider"], "instrument": snap["instrument"],
                "query": snap["query"], "fetched_at": snap["fetched_at"].isoformat()
                if snap["fetched_at"] else None, "gap_s": snap["gap_s"]}
        fields["from_run"] = {"run": run_id, "target": a["target"], "item": a["item_id"]}
        rows.append((a["item_id"], fields))
    if not rows:
        raise ConfigError(f"run {run_id} has no answered sample to keep"
                          + (f" ({skipped} failed)" if skipped else ""))
    blob = orjson.dumps(rows, option=orjson.OPT_SORT_KEYS, default=str)
    version = hashlib.sha256(blob).hexdigest()[:16]
    stored = [Item(i, f, version, n) for n, (i, f) in enumerate(rows, start=1)]
    repo.save_dataset(engine, version=version, name=name, path=f"run {run_id}", fmt="run",
                      rows=stored)
    named, new = names.add_version(engine, name, version, f"run {run_id}")
    return FromRun(named, new, len(stored), skipped)
