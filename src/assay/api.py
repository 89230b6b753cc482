"""The Python API: the same runs as `assay run`, from a notebook or a script.

    import assay

    def my_agent(item):                       # sync or async; gets the item's fields
        return f"最新价 {lookup(item['prompt'])} 元"

    run = assay.evaluate(dataset="examples/finsearch_t1_sample.json", target=my_agent,
                         evaluators=["finance-rubric"])
    print(run.status, run.summary["finance-rubric"]["mean"])
    df = run.to_pandas()                      # one row per item, target, epoch and evaluator

Inside a running event loop (Jupyter), `await assay.aevaluate(...)`.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from assay.core.errors import ConfigError
from assay.core.registry import install_hint
from assay.runner.evaluator_entries import EntryError
from assay.runner.execute import run_experiment
from assay.runner.pipeline import Progress
from assay.runner.scope import Origin
from assay.runner.spec import DatasetSpec, ExperimentSpec, located, parse_entry
from assay.store import repo
from assay.store.db import open_engine
from assay.store.rows import result_record
from assay.targets.spec import TargetSpec

TargetArg = Callable[..., Any] | str | dict[str, Any] | None


@dataclass
class Run:
    """A finished (or interrupted) run, read back from the store."""

    id: str
    status: str
    db: str | None
    summary: dict[str, Any] = field(default_factory=dict)  # evaluator → counts and mean

    def results(self) -> list[dict[str, Any]]:
        """One record per item, target, epoch and evaluator, with the answer beside the score."""
        engine = open_engine(self.db)
        answers = {(a["item_id"], a["target"], a["epoch"]): a
                   for a in repo.list_answers(engine, self.id)}
        out = []
        for r in repo.list_results(engine, self.id):
            a = answers.get((r["item_id"], r["target"], r["epoch"])) or {}
            out.append({"item_id": r["item_id"], "target": r["target"], "epoch": r["epoch"],
                        "evaluator": r["evaluator"], "score": r["score"],
                        "status": r["status"], "reason": r["reason"],
                        "answer": a.get("text"), "answer_error": a.get("error"),
                        "latency_s": a.get("latency_s"), "evidence": r["evidence"],
                        "call": result_record(r)["call"]})
        return out

    def to_pandas(self) -> Any:
        try:
            import pandas as pd
        except ImportError:
            raise ConfigError(f"to_pandas() needs pandas: {install_hint('pandas')}") \
                from None
        return pd.DataFrame(self.results())


def _dataset_path(dataset: str | Path | Sequence[dict[str, Any]]) -> Path:
    if isinstance(dataset, str | Path):
        return Path(dataset)
    # Rows given in memory are written once, by content, so the run can be resumed and replayed.
    body = b"".join(orjson.dumps(dict(r), default=str) + b"\n" for r in dataset)
    path = Path(".assay") / "inline" / (hashlib.sha256(body).hexdigest()[:16] + ".jsonl")
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():  # written aside and renamed: a run beside this one never reads half
        part = path.with_name(f"{path.name}.{os.getpid()}.part")
        part.write_bytes(body)
        os.replace(part, path)
    return path


def _target(target: TargetArg) -> TargetSpec:
    if target is None:
        return TargetSpec("recorded", "recorded", {"field": "response"})
    if callable(target):
        return TargetSpec(getattr(target, "__name__", "python"), "python", {"function": target})
    if isinstance(target, str):  # "model:NAME" — a registered model, the item's prompt as is
        kind, _, name = target.partition(":")
        if kind != "model" or not name:
            raise ConfigError(f"target '{target}': give a function, 'model:NAME' or a mapping")
        return TargetSpec(name, "model", {"model": name})
    if isinstance(target, dict) and "type" in target:
        options = {k: v for k, v in target.items() if k not in ("name", "type")}
        return TargetSpec(str(target.get("name") or target["type"]), str(target["type"]),
                          options)
    raise ConfigError("target must be a function, 'model:NAME', a mapping with 'type', or None")


async def aevaluate(dataset: str | Path | Sequence[dict[str, Any]], target: TargetArg = None,
                    evaluators: Sequence[str | dict[str, Any]] = ("finance-rubric",), *,
                    name: str | None = None, db: str | None = None, concurrency: int = 8,
                    limit: int | None = None, repeats: int = 1, id_field: str | None = None,
                    models_file: str | Path | None = None, use_cache: bool = True,
                    ground_truth: str = "stored", truth: dict[str, Any] | None = None,
                    progress: Callable[[Progress], None] | None = None,
                    max_cost: float | None = None) -> Run:
    path = _dataset_path(dataset)
    t = _target(target)
    evs = []
    for i, e in enumerate(evaluators):  # names, {name, args, when}, {python}
        try:
            evs.append(parse_entry(e, Path.cwd()))
        except EntryError as exc:  # said as the command line says it: evaluators[i].KEY
            raise Origin(keys=("evaluators", i)).error(str(exc), *exc.keys) from None
    located(evs, None, None)
    raw_target = {"name": t.name, "type": t.type, **{
        k: (f"{v.__module__}:{v.__qualname__}" if callable(v) else v)
        for k, v in t.options.items()}}
    raw = {"name": name or path.stem, "dataset": {"path": str(path.resolve()),
                                                  "id_field": id_field},
           "targets": [raw_target],
           "evaluators": [e if isinstance(e, str) else dict(e) for e in evaluators],
           "concurrency": concurrency, "repeats": repeats, "ground_truth": ground_truth,
           "truth": dict(truth or {}),
           **({"budget": {"usd": max_cost}} if max_cost is not None else {})}
    spec = ExperimentSpec(path=Path("python-api.yaml").resolve(), name=str(raw["name"]),
                          dataset=DatasetSpec(path=path, id_field=id_field, limit=limit),
                          targets=[t], evaluators=evs, concurrency=concurrency,
                          repeats=repeats, ground_truth=ground_truth, truth=dict(truth or {}),
                          budget_usd=max_cost, raw=raw)
    engine = open_engine(db)
    result = await run_experiment(engine, spec, models_file=Path(models_file) if models_file
                                  else None, use_cache=use_cache,
                                  progress=Progress(on_change=progress))
    return Run(result.run_id, result.status, db,
               {k: v.as_dict() for k, v in result.summary.overall.items()})


def evaluate(dataset: str | Path | Sequence[dict[str, Any]], target: TargetArg = None,
             evaluators: Sequence[str | dict[str, Any]] = ("finance-rubric",),
             **options: Any) -> Run:
    """Run `target` over `dataset` and score it; see the module docstring."""
    return asyncio.run(aevaluate(dataset, target, evaluators, **options))
