"""`assay score`: a run whose target is the recorded answers and whose truth is the items'
stored ground truth, through the same pipeline as `assay run` — so a score run resumes,
replays and shows traces like any run. What differs is only the commit policy (`batch`: rows
in thousands per transaction) and the JSON-lines output that follows the store.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import orjson

from assay.core.errors import ConfigError
from assay.datasets.named import REF
from assay.store.db import Engine

from .execute import RunResult, run_experiment
from .pipeline import Progress
from .spec import ExperimentSpec, located, parse_spec


def score_spec(dataset: Path, evaluators: list[str | dict[str, Any]], *, responses: Path | None = None,
               response_field: str = "response", fields: dict[str, str] | None = None,
               id_field: str | None = None, group_by: str = "label",
               judge_model: str | None = None, jury: str | None = None,
               executor: str | None = None, max_cost: float | None = None,
               timeout_s: float | None = None) -> ExperimentSpec:
    """The spec `assay score` runs, kept in the manifest so the run can be resumed."""
    if not evaluators:
        raise ConfigError("no evaluator given")
    named = not dataset.exists() and REF.match(str(dataset)) is not None  # NAME@VERSION
    if named and (fields or id_field):
        raise ConfigError(f"{dataset} is a named dataset version: its fields were mapped when it "
                          "was added (assay datasets add … --field, --id-field)")
    target: dict[str, Any] = {"name": "recorded", "type": "recorded", "field": response_field}
    if responses is not None:
        target["file"] = str(responses.resolve())
    raw: dict[str, Any] = {
        "name": dataset.stem,
        "dataset": {"name": str(dataset)} if named else {
            "path": str(dataset.resolve()), "fields": dict(fields or {}),
            **({"id_field": id_field} if id_field else {})},
        "targets": [target], "evaluators": list(evaluators), "ground_truth": "stored",
        "commit": "batch", "concurrency": "auto", "group_by": group_by,
        **({"jury": jury} if jury else {}), **({"judge_model": judge_model} if judge_model
                                              else {}),
        **({"executor": executor} if executor else {}),
        **({"budget": {"usd": max_cost}} if max_cost is not None else {}),
        # a check's call on one answer (runner/evaluate.py: a python: check's default)
        **({"timeout_s": timeout_s} if timeout_s is not None else {})}
    stand_in = Path.cwd() / "assay-score.yaml"  # no file: its name is left out of errors
    try:
        spec = parse_spec(raw, stand_in)
    except ConfigError as exc:
        raise ConfigError(str(exc).removeprefix(f"{stand_in}: ")) from None
    located(spec.evaluators, None, None)  # the command line's: said without a file
    # The manifest keeps absolute paths (a resume may start elsewhere); this run names the
    # files as the user wrote them, in its messages too.
    if not named:
        spec.dataset.path = dataset
    if responses is not None:
        spec.targets[0].options["file"] = str(responses)
    return spec


class JsonLines:
    """`--out FILE`: one line per result, written after the rows it shows are stored, so the
    file never holds a score the store lost. Written in place and flushed per batch (no
    temporary file: after a `kill -9` every stored result is already in FILE, and a resumed
    run appends the rest to it, so FILE ends with each result once). Opened before the run is
    recorded: a bad path (a folder, no permission) stops the command with nothing half-done.
    A fresh run truncates FILE when it opens it; a device or FIFO is written as it is."""

    def __init__(self, path: Path, *, append: bool = False) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.sink: IO[bytes] = path.open("ab" if append else "wb")
        except OSError as exc:
            raise ConfigError(f"cannot write --out {path}: {exc.strerror or exc}") from None

    def __call__(self, rows: list[dict[str, Any]]) -> None:
        out = []
        for r in rows:
            value = r["score"]
            if value is not None and float(value).is_integer():
                value = int(value)
            record = {"item_id": r["item_id"], "evaluator": r["evaluator"], "score": value,
                      "status": r["status"], "reason": r["reason"],
                      "evidence": orjson.Fragment(str(r["evidence"]))}
            if r.get("call") is not None:  # a judge's model request (core/model_call.py)
                record["call"] = orjson.Fragment(str(r["call"]))
            out.append(orjson.dumps(record) + b"\n")
        self.sink.write(b"".join(out))
        self.sink.flush()

    def close(self) -> None:
        self.sink.close()


async def score(engine: Engine, spec: ExperimentSpec | None, *, out: Path | None = None,
                resume: str | None = None, models_file: Path | None = None,
                use_cache: bool = True,
                progress: Callable[[Progress], None] | None = None,
                max_cost: float | None = None, timeout_s: float | None = None,
                run_id: str | None = None) -> RunResult:
    lines = JsonLines(out, append=resume is not None) if out is not None else None
    try:
        return await run_experiment(engine, spec, resume=resume, models_file=models_file,
                                    use_cache=use_cache, kind="score",
                                    progress=Progress(on_change=progress),
                                    on_flush=lines, max_cost=max_cost, timeout_s=timeout_s,
                                    run_id=run_id)
    finally:
        if lines is not None:
            lines.close()
