"""Runs with chosen scores, written through the store's own functions, for the gate and the
JUnit writer: the statistics are checked on outcomes picked to sit either side of α."""

from __future__ import annotations

from typing import Any

from assay.core.types import Item
from assay.store import repo
from assay.store.db import Engine

Result = tuple[float | None, str] | float  # (score, status) or a scored value


def make_run(engine: Engine, run_id: str, results: dict[str, Result], *,
             evaluator: str = "check", epochs: int = 1, reason: str = "because",
             full: tuple[float, float] = (0.0, 1.0),
             targets: tuple[str, ...] = ("recorded",)) -> str:
    """A finished run of `results` (item id → score or (score, status)), each item repeated
    `epochs` times, for each of `targets`, with the same score."""
    dataset = f"ds-{run_id}"
    repo.save_dataset(engine, version=dataset, name="synthetic", path="synthetic.jsonl",
                      fmt="jsonl", rows=[Item(i, {"prompt": i}) for i in results])
    repo.create_run(engine, run_id=run_id, kind="score", dataset_id=dataset,
                    manifest={"repeats": epochs})
    rows: list[dict[str, Any]] = []
    for item_id, r in results.items():
        score, status = (r, "scored") if isinstance(r, float | int) else r
        for epoch, target in ((e, t) for e in range(epochs) for t in targets):
            rows.append({"run_id": run_id, "item_id": item_id, "target": target,
                         "epoch": epoch, "evaluator": evaluator, "evaluator_version": "v1",
                         "score": score, "status": status, "reason": reason,
                         "evidence": {"full_score": list(full)}, "created_at": repo.now()})
    repo.write_batch(engine, [], rows)
    repo.finish_run(engine, run_id, "finished", {})
    return run_id
