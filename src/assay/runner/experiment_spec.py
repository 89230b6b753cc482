"""The experiment spec as the runner reads it: plain dataclasses, built by runner/spec.py from
a spec's data (YAML, TOML, `assay score`'s options). Kept apart from the pydantic models that
check a spec (runner/spec_models.py), so a module that only reads a spec does not import
pydantic."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.targets.spec import TargetSpec

from .evaluator_entries import EvaluatorSpec
from .executor_spec import ExecutorSpec

# samples are items × repeats, each a task and rows: 10^12 repeats crashed the interpreter
MAX_REPEATS = 10_000
JURY_METHODS = ("majority", "mean")
GROUND_TRUTH_MODES = ("stored", "live", "snapshot:FOLDER[@YYYY-MM-DD]")


@dataclass(frozen=True)
class ConversationSettings:
    """The spec's `conversation:` section: how conversation items are played and scored
    (runner/conversation.py; its values: core/conversation.py's COMBINE and EVALUATE)."""

    score: str = "min"
    max_turns: int = 10
    max_minutes: float | None = None
    evaluate: str = "each_turn"

    def to_json(self) -> dict[str, Any]:
        return {"score": self.score, "max_turns": self.max_turns,
                "max_minutes": self.max_minutes, "evaluate": self.evaluate}


@dataclass
class DatasetSpec:
    path: Path
    fields: dict[str, str] = field(default_factory=dict)
    id_field: str | None = None
    filter: dict[str, Any] = field(default_factory=dict)
    limit: int | None = None
    sample: int | None = None
    seed: int = 0
    # a named dataset (`assay datasets add`): its items come from the store, not from `path`
    name: str | None = None
    version: int | None = None  # None: the name's latest version when the run starts


@dataclass
class ExperimentSpec:
    path: Path
    name: str
    dataset: DatasetSpec
    targets: list[TargetSpec]
    evaluators: list[EvaluatorSpec]
    concurrency: int = 8  # samples in flight; 0 = auto (from the evaluators' endpoints)
    repeats: int = 1
    ground_truth: str = "stored"
    truth: dict[str, Any] = field(default_factory=dict)  # provider, field, market, window_s …
    tags: list[str] = field(default_factory=list)
    timeout_s: float | None = None  # per item, target call included
    group_by: str = "label"
    otlp: str | None = None  # an OTLP/HTTP traces endpoint; else OTEL_EXPORTER_OTLP_* if set
    # group: a transaction per event-loop turn (a kill loses only samples in flight);
    # batch: thousands of rows per transaction (recorded answers, `assay score`)
    commit: str = "group"
    jury: str | None = None  # combine the model judges' scores: majority | mean
    judge_model: str | None = None  # the model for judges named without @MODEL
    executor: ExecutorSpec = field(default_factory=ExecutorSpec)  # local, or a Ray cluster
    budget_usd: float | None = None  # stop before a request would pass it (models/budget.py)
    # how conversation items are played and scored (runner/conversation.py)
    conversation: ConversationSettings = field(default_factory=ConversationSettings)
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def base(self) -> Path:
        return self.path.parent


def resolve(base: Path, value: str) -> Path:
    """Paths in a spec are relative to the spec's folder, so a spec runs from anywhere."""
    p = Path(value)
    return p if p.is_absolute() else base / p
