"""Experiment specs (`assay run SPEC`): YAML or TOML, checked whole before anything runs.

    name: t1-deepseek
    dataset: {path: data.json, filter: {label: Stock}, limit: 100, sample: 50, seed: 7}
    targets:
      - {name: deepseek, type: model, model: deepseek, prompt: "{prompt}"}
    evaluators:
      - finance-rubric
      - {name: coze-correctness, model: judge, mapping: {input: prompt}}
    concurrency: 8
    repeats: 1
    ground_truth: stored
    tags: [nightly]
    budget: {usd: 5.00}

Each section is a pydantic model that builds the dataclasses the runner reads (ExperimentSpec,
DatasetSpec …); every mistake is one line naming the file, the line (YAML) and the field
(core/specmodel.py)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictInt,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from assay.core.conversation import COMBINE, EVALUATE, Settings
from assay.core.errors import ConfigError
from assay.core.specmodel import AUTO, SpecModel, empty_if_none, number, problem, spec_error
from assay.core.yamltext import NUL_IN_SPEC, KeyLines, nul_at, read_text, yaml_mapping
from assay.targets.registry import TARGETS
from assay.targets.spec import TARGET_KEYS, TargetSpec, required_options

from .evaluator_entries import EvaluatorEntry, EvaluatorSpec
from .executor_spec import ExecutorSection, ExecutorSpec
from .scope import Origin

__all__ = ["TARGET_KEYS", "DatasetSpec", "EvaluatorSpec", "ExperimentSpec", "TargetSpec",
           "load_spec", "parse_spec"]

# samples are items × repeats, each a task and rows: 10^12 repeats crashed the interpreter
MAX_REPEATS = 10_000
JURY_METHODS = ("majority", "mean")
GROUND_TRUTH_MODES = ("stored", "live", "snapshot:FOLDER[@YYYY-MM-DD]")


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
    # how conversation items are played and scored (core/conversation.py)
    conversation: Settings = field(default_factory=Settings)
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def base(self) -> Path:
        return self.path.parent


# -- the sections, as pydantic models (core/specmodel.py: how their errors read) -------------

def _ground_truth(value: Any) -> str:
    mode = str(value)
    if mode not in ("stored", "live") and not mode.startswith("snapshot:"):
        raise problem(f"ground-truth mode '{mode}' is not one of {', '.join(GROUND_TRUTH_MODES)}")
    return mode


def _jury(method: Any) -> Any:
    if method is not None and method not in JURY_METHODS:
        raise problem(f"unknown jury method '{method}' (use {' or '.join(JURY_METHODS)})")
    return method


class TruthSection(SpecModel):
    """`truth:` — provider, field, market …: which keys there are is truth/capture.py's to say;
    the waits are numbers, checked here, so a bad one names its line."""

    model_config = ConfigDict(extra="allow")  # (merged with SpecModel's)
    window_s: Annotated[float, number("seconds")] = 30.0
    cache_s: Annotated[float, number("seconds")] = 30.0
    min_interval_s: Annotated[float, number("seconds")] = 1.0


class CommonSettings(SpecModel):
    """The keys run and watch specs share: the ground truth and how judges judge."""

    ground_truth: Annotated[str, BeforeValidator(_ground_truth)] = "stored"
    truth: Annotated[TruthSection, empty_if_none(dict)] = Field(
        TruthSection(),
        description="a mapping (provider, field, market, window_s …)")
    jury: Annotated[str | None, BeforeValidator(_jury)] = None
    judge_model: str | None = None  # the model for judges named without @MODEL

    @model_validator(mode="before")
    @classmethod
    def _no_nul(cls, data: Any) -> Any:
        nul = nul_at(data)  # no store keeps a NUL: refused whole, before anything else
        if nul is not None:
            raise problem(NUL_IN_SPEC, *nul)
        return data

    @model_validator(mode="after")
    def _truth(self, info: ValidationInfo) -> Any:
        from assay.truth.capture import TruthConfig

        try:
            TruthConfig.parse(self.ground_truth, self.truth_settings, _base(info))
        except ConfigError as exc:  # "truth.KEY: …", "ground_truth: …", or about the mode
            where, sep, message = str(exc).partition(": ")
            if sep and where.startswith("truth."):
                raise problem(message, "truth", where.removeprefix("truth.")) from None
            raise problem(message if sep and where == "ground_truth" else str(exc),
                          "ground_truth") from None
        return self

    @property
    def truth_settings(self) -> dict[str, Any]:
        """`truth:` as written (the keys given)."""
        return self.truth.model_dump(exclude_unset=True)


class DatasetSection(SpecModel):
    """`dataset:` — a file, or a named dataset (`assay datasets add`)."""

    path: str | None = None
    name: str | None = None
    version: str | None = None  # of a named dataset; a number, or latest
    fields: Annotated[dict[str, str], empty_if_none(dict)] = Field(
        {}, description="a mapping of NAME: COLUMN")
    id_field: str | None = None
    filter: Annotated[dict[str, Any], empty_if_none(dict)] = Field(
        {}, description="a mapping of field: value (or list of values)")
    limit: StrictInt | None = Field(None, ge=1, description="a positive whole number")
    sample: StrictInt | None = Field(None, ge=1, description="a positive whole number")
    seed: StrictInt = Field(0, ge=0, description="a whole number ≥ 0")
    _ref: tuple[str, int | None] | None = PrivateAttr(None)

    @model_validator(mode="before")
    @classmethod
    def _shape(cls, ds: Any, info: ValidationInfo) -> Any:
        if isinstance(ds, str):
            ds = _named_or_path(ds, _base(info))
        if not isinstance(ds, dict) or ("path" in ds) == ("name" in ds):
            raise problem("must be a path, NAME@VERSION, or a mapping with 'path' or 'name'")
        for key in ("fields", "id_field"):
            if "name" in ds and key in ds:
                raise problem("a named dataset's fields are mapped when it is added (assay "
                              "datasets add NAME FILE --field …)", key)
        return ds

    @model_validator(mode="after")
    def _named(self) -> Any:
        if self.name is not None:
            from assay.datasets.named import parse_ref

            try:
                self._ref = parse_ref(self.reference)
            except ConfigError as exc:
                raise problem(str(exc)) from None
        return self

    @property
    def reference(self) -> str:
        """A file's path, or NAME[@VERSION] as written."""
        if self.name is None:
            return str(self.path)
        return self.name if self.version is None else f"{self.name}@{self.version}"

    def build(self, base: Path) -> DatasetSpec:
        name, version = self._ref or (None, None)
        return DatasetSpec(path=_resolve(base, self.reference), fields=dict(self.fields),
                           id_field=self.id_field, filter=dict(self.filter), limit=self.limit,
                           sample=self.sample, seed=self.seed, name=name, version=version)


class TargetEntry(SpecModel):
    """One target: a name, a registered type and that type's options (from the registry)."""

    model_config = ConfigDict(extra="allow")  # the options, checked against the type
    name: str | None = None
    type: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _shape(cls, t: Any) -> Any:
        if not isinstance(t, dict):
            raise problem("must be a mapping with name and type")
        return t

    @model_validator(mode="after")
    def _options(self) -> Any:
        kind, options = self.type, self.model_extra or {}
        if kind is None:
            raise problem(f"missing 'type' (known: {', '.join(TARGET_KEYS)})")
        if kind not in TARGET_KEYS:
            close = TARGETS.close(kind)
            raise problem(f"unknown target type '{kind}' (known: {', '.join(TARGET_KEYS)})"
                          + (f"; did you mean {', '.join(close)}?" if close else ""), "type")
        extra = sorted(set(options) - TARGET_KEYS[kind])
        if extra:
            raise problem(f"not a {kind} target option (known: "
                          f"{', '.join(sorted(TARGET_KEYS[kind]))})", extra[0])
        for required in required_options(kind):
            if not options.get(required):
                raise problem(f"a {kind} target needs '{required}'")
        return self

    def build(self) -> TargetSpec:
        kind = str(self.type)
        return TargetSpec(self.name or kind, kind, dict(self.model_extra or {}))


def _one_as_list(value: Any) -> Any:
    return [value] if isinstance(value, dict) else value  # `target: {…}`, one target


class Budget(SpecModel):
    """`budget: {usd: AMOUNT}`: the run stops before a request would pass it."""

    usd: Annotated[float, number("US dollars", above=True)] = Field(
        description="an amount in US dollars")


class ConversationSection(SpecModel):
    """`conversation:` — how conversation items (`turns`, `simulated_user`) are scored and
    bounded: a conversation's score from its turns', its turn and time limits, and which turns
    are judged (an item's own `evaluate` overrides it)."""

    score: Literal["min", "mean", "product", "last"] = Field(
        "min", description=f"one of {', '.join(COMBINE)}")
    max_turns: StrictInt = Field(10, ge=1, le=1000, description="a whole number from 1 to 1000")
    max_minutes: Annotated[float, number("minutes", above=True)] | None = None
    evaluate: Literal["each_turn", "final_turn", "never"] = Field(
        "each_turn", description=f"one of {', '.join(EVALUATE)}")

    def build(self) -> Settings:
        return Settings(self.score, self.max_turns, self.max_minutes, self.evaluate)


class RunSpecModel(CommonSettings):
    """A whole experiment spec, validated with `context={"base": THE_SPEC'S_FOLDER}`."""

    name: str | None = None  # default: the file's name
    description: Any = None
    dataset: DatasetSection = Field(
        description="a path, NAME@VERSION, or a mapping with 'path' or 'name'")
    targets: Annotated[list[TargetEntry], BeforeValidator(_one_as_list)] = Field(
        min_length=1, validation_alias=AliasChoices("targets", "target"),
        description="a non-empty list of targets {name, type, …}")
    evaluators: list[EvaluatorEntry] = Field(
        min_length=1, description="a non-empty list of evaluator names or mappings")
    concurrency: Annotated[StrictInt, Field(ge=1), AUTO] = Field(
        8, description="a whole number ≥ 1, or auto")
    repeats: StrictInt = Field(1, ge=1, le=MAX_REPEATS,
                               description=f"a whole number ≥ 1 and ≤ {MAX_REPEATS:,}")
    timeout_s: Annotated[float, number("seconds", above=True)] | None = None
    tags: Annotated[list[str], empty_if_none(list)] = Field([], description="a list")
    group_by: str = "label"
    seed: Any = None
    otlp: str | None = None
    commit: Literal["group", "batch"] = Field("group", description="one of group, batch")
    executor: ExecutorSection | None = Field(
        None, description="local, ray or a mapping with 'type'")
    budget: Budget | None = Field(None, description="a mapping {usd: AMOUNT}")
    conversation: ConversationSection | None = Field(
        None, description="a mapping {score, max_turns, max_minutes, evaluate}")

    @model_validator(mode="before")
    @classmethod
    def _one_spelling(cls, data: Any) -> Any:
        if isinstance(data, dict) and "targets" in data and "target" in data:
            raise problem("write 'targets' (a list) or 'target' (one), not both", "target")
        return data

    @field_validator("targets")
    @classmethod
    def _distinct(cls, targets: list[TargetEntry]) -> list[TargetEntry]:
        seen: set[str] = set()
        for i, t in enumerate(targets):
            name = t.build().name
            if name in seen:
                raise problem(f"target name '{name}' is used twice", i, "name")
            seen.add(name)
        return targets

    def build(self, path: Path, raw: dict[str, Any]) -> ExperimentSpec:
        return ExperimentSpec(
            path=path, name=self.name or path.stem, dataset=self.dataset.build(path.parent),
            targets=[t.build() for t in self.targets],
            evaluators=[e.spec for e in self.evaluators], concurrency=self.concurrency,
            repeats=self.repeats, ground_truth=self.ground_truth, truth=self.truth_settings,
            tags=list(self.tags), timeout_s=self.timeout_s, group_by=self.group_by,
            otlp=self.otlp or None, commit=self.commit, jury=self.jury,
            judge_model=self.judge_model or None,
            executor=self.executor.build() if self.executor else ExecutorSpec(),
            budget_usd=self.budget.usd if self.budget else None,
            conversation=self.conversation.build() if self.conversation else Settings(),
            raw=raw)


def load_spec(path: str | Path) -> ExperimentSpec:
    p = Path(path)
    text = read_text(p, "an experiment spec is a YAML or TOML text file")
    if p.suffix.lower() == ".toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{p}: invalid TOML: {exc}") from None
        lines = KeyLines(None)
    elif p.suffix.lower() in (".yaml", ".yml"):
        data = yaml_mapping(text, str(p), what="an experiment spec")
        lines = KeyLines(text)
    else:
        raise ConfigError(f"{p}: an experiment spec is .yaml, .yml or .toml")
    return parse_spec(data, p, lines)


def parse_spec(data: dict[str, Any], path: Path, lines: KeyLines | None = None) -> ExperimentSpec:
    """`data` as an ExperimentSpec, or one line naming the file, the line and the field."""
    try:
        model = RunSpecModel.model_validate(data, context={"base": path.parent})
    except ValidationError as exc:
        raise spec_error(exc, RunSpecModel, path, lines or KeyLines(None)) from None
    spec = model.build(path, data)
    located(spec.evaluators, path, lines)
    return spec


def located(entries: list[EvaluatorSpec], path: Path | None, lines: KeyLines | None) -> None:
    """Each entry told where it was written (`evaluators[i]` of `path`; no path: the command
    line), for the mistakes only the run's items show (runner/scope.py)."""
    for i, e in enumerate(entries):
        e.origin = Origin(path, lines, ("evaluators", i))


def _named_or_path(value: str, base: Path) -> dict[str, Any]:
    """`dataset: X` — NAME@VERSION, or a file, or (no such file, no data-file suffix) a name."""
    from assay.datasets.named import NAME, REF
    from assay.datasets.readers import READERS

    if REF.match(value):
        return {"name": value}
    if NAME.match(value) and Path(value).suffix.lower() not in READERS \
            and not _resolve(base, value).exists():
        return {"name": value}
    return {"path": value}


def _resolve(base: Path, value: str) -> Path:
    """Paths in a spec are relative to the spec's folder, so a spec runs from anywhere."""
    p = Path(value)
    return p if p.is_absolute() else base / p


def _base(info: ValidationInfo) -> Path:
    """The folder a spec's paths are relative to, as `model_validate(context=…)` gives it."""
    return Path((info.context or {})["base"])


def read_files(spec: ExperimentSpec) -> dict[str, Path | None]:
    """The files a run of `spec` reads, by what they are — an output naming one is refused
    (core/outputs.py): the spec, the dataset file, recorded answers, checks' .py files and
    Python targets' modules (as `module:function` finds them beside the spec)."""
    files: dict[str, Path | None] = {"the spec": spec.path if spec.path.is_file() else None}
    if spec.dataset.name is None:
        files["the dataset"] = spec.dataset.path
    for t in spec.targets:
        ref = t.options.get("function")
        if t.type == "recorded" and isinstance(t.options.get("file"), str):
            files[f"the recorded answers of target '{t.name}'"] = Path(t.options["file"])
        elif t.type == "python" and isinstance(ref, str) and ":" in ref:
            module = spec.base / Path(*ref.partition(":")[0].split("."))
            for i, candidate in enumerate((module.with_suffix(".py"), module / "__init__.py")):
                files[f"the module of target '{t.name}'" + " (package)" * i] = candidate
    for e in spec.evaluators:
        if e.name == "python" and isinstance(e.args.get("path"), str):
            files[f"the check file {e.args['path']}"] = Path(e.args["path"])
    return files
