"""What an earlier attempt of a run left in the store: its spec and overrides, the answers,
the truth snapshots and the keys of the results (not their evidence: a judge's evidence can be
~10 KB a row), so a resumed run redoes only what is missing."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.core.errors import ConfigError
from assay.core.types import Answer, TruthSnapshot
from assay.store import repo
from assay.store.db import Engine
from assay.store.rows import Key, answer_from_row, truth_from_row

from .overrides import Overrides
from .spec import ExperimentSpec, parse_spec


@dataclass
class Prior:
    run_id: str
    kind: str
    spec: ExperimentSpec
    overrides: Overrides
    manifest: dict[str, Any]
    dataset_version: str
    exported_until: str | None = None  # newest span already sent over OTLP
    answers: dict[Key, Answer] = field(default_factory=dict)
    results: dict[Key, set[str]] = field(default_factory=dict)
    truth: dict[Key, TruthSnapshot] = field(default_factory=dict)


def prior_spec(engine: Engine, run_id: str) -> ExperimentSpec:
    """The spec a run was started with, as `--resume` runs it (what it reads)."""
    return _stored(engine, run_id)[1]


def _stored(engine: Engine, run_id: str) -> tuple[dict[str, Any], ExperimentSpec]:
    row = repo.require_run(engine, run_id)
    manifest = row["manifest"] or {}
    if row["kind"] == "online":  # its spec is a watch spec, its samples come from traces
        raise ConfigError(f"run '{run_id}' is an online run (assay watch): restart `assay "
                          "watch SPEC` with its spec to continue it")
    if "spec" not in manifest:
        raise ConfigError(f"run '{run_id}' was stored by an older Assay without its spec; "
                          "it cannot be resumed")
    return row, parse_spec(manifest["spec"], Path(manifest["spec_path"]))


def load_prior(engine: Engine, run_id: str) -> Prior:
    row, spec = _stored(engine, run_id)
    manifest = row["manifest"] or {}
    prior = Prior(run_id, row["kind"], spec, Overrides(**manifest.get("overrides", {})),
                  manifest, row["dataset_id"],
                  (row["summary"] or {}).get("otlp_exported_until"))
    for a in repo.list_answers(engine, run_id):
        prior.answers[(a["item_id"], a["target"], a["epoch"])] = answer_from_row(a)
    for item_id, target, epoch, evaluator in repo.result_keys(engine, run_id):
        prior.results.setdefault((item_id, target, epoch), set()).add(evaluator)
    prior.truth = {(t["item_id"], t["target"], t["epoch"]): truth_from_row(t)
                   for t in repo.list_truth(engine, run_id)}
    return prior
