"""A run spec's sections as pydantic models (core/specmodel.py: how their errors read), each
building the dataclasses the runner reads (runner/experiment_spec.py, runner/scope.py …).

Imported only where a spec is read with them (runner/spec.py: a spec file, a `when:`, an
evaluator entry that is a mapping): pydantic and the models' validators cost a fifth of a
second of start-up, which a run whose spec is given in code (`assay score`) does not pay."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AliasChoices,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictFloat,
    StrictInt,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from assay.core.conversation import COMBINE, EVALUATE
from assay.core.errors import ConfigError
from assay.core.specmodel import (
    AUTO,
    SpecModel,
    empty_if_none,
    explain,
    first_error,
    number,
    problem,
    spec_error,
)
from assay.core.yamltext import NUL_IN_SPEC, KeyLines, nul_at
from assay.evaluators.builtin.custom import PREFIX
from assay.targets.registry import TARGETS
from assay.targets.spec import TARGET_KEYS, TargetSpec, required_options

from .evaluator_entries import EntryError, EvaluatorSpec, named_entry, python_entry
from .executor_spec import EXECUTORS, PLACES, ExecutorSpec
from .experiment_spec import (
    GROUND_TRUTH_MODES,
    JURY_METHODS,
    MAX_REPEATS,
    ConversationSettings,
    DatasetSpec,
    ExperimentSpec,
    resolve,
)
from .scope import Keys, Scalar, When

# -- a spec's `when:` (runner/scope.py) ------------------------------------------------------

class WhenModel(SpecModel):
    """`when:` as a spec writes it (runner/scope.py's docstring says what it means)."""

    keys_in_order = True
    reference: Literal["number", "text"] | None = Field(
        None, description="number or text (what the item's reference_output states)")
    field: str | None = Field(None, description="the name of an item field")
    equals: Scalar | None = Field(None, description="a value (text, a number or true/false)")
    in_: list[Scalar] | None = Field(None, alias="in", min_length=1,
                                     description="a non-empty list of values")
    not_: WhenModel | None = Field(None, alias="not", description="a condition (a mapping)")
    any_: list[WhenModel] | None = Field(None, alias="any", min_length=1,
                                         description="a non-empty list of conditions")
    all_: list[WhenModel] | None = Field(None, alias="all", min_length=1,
                                         description="a non-empty list of conditions")

    @model_validator(mode="before")
    @classmethod
    def _shape(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not data:
            raise problem("must be a condition: a mapping with reference, field, not, any "
                          "or all (docs/evaluators.md, Mixed datasets)")
        return data

    @model_validator(mode="after")
    def _rules(self) -> WhenModel:
        given = self.model_fields_set
        for key, alias in (("equals", "equals"), ("in_", "in")):
            if key in given and self.field is None:
                raise problem(f"'{alias}' compares a field: give 'field' beside it", alias)
        if {"equals", "in_"} <= given:
            raise problem("give 'equals' or 'in', not both", "in")
        if "equals" in given and self.equals is None:
            raise problem("must be a value (text, a number or true/false)", "equals")
        if "field" in given and not (self.field or "").strip():
            raise problem("must be the name of an item field", "field")
        return self

    def build(self, keys: Keys = ("when",)) -> When:
        op = "equals" if "equals" in self.model_fields_set else \
            "in" if self.in_ is not None else None
        values: tuple[Any, ...] = (self.equals,) if op == "equals" else tuple(self.in_ or ())
        return When(
            reference=self.reference, field=self.field, op=op, values=values,
            negated=self.not_.build((*keys, "not")) if self.not_ is not None else None,
            any_of=tuple(w.build((*keys, "any", i)) for i, w in enumerate(self.any_))
            if self.any_ is not None else None,
            all_of=tuple(w.build((*keys, "all", i)) for i, w in enumerate(self.all_))
            if self.all_ is not None else None,
            keys=keys)



def read_when(data: Any) -> When:
    """A condition (runner/spec.py's `parse_when`); a ConfigError when it is none."""
    try:
        return WhenModel.model_validate(data).build()
    except ValidationError as exc:
        keys, message = explain(first_error(exc), WhenModel)
        where = ".".join(str(k) for k in ("when", *keys))
        raise ConfigError(f"{where}: {message}") from None


# -- an entry of `evaluators:` (runner/evaluator_entries.py) ---------------------------------

class EvaluatorEntry(SpecModel):
    """An entry as a mapping (a bare name is `{name: NAME}`, `python:F:FN` is `{python: F:FN}`);
    validated with `context={"base": FOLDER}`, the folder its paths are relative to."""

    keys_in_order: ClassVar[bool] = True
    name: str | None = None
    python: str | None = Field(None, description="FILE.py:FUNCTION")
    model: str | None = None
    mapping: Annotated[dict[str, str], empty_if_none(dict)] = Field(
        {}, description="a mapping of VARIABLE: FIELD")
    args: dict[str, Any] | None = Field(None, description="a mapping of NAME: VALUE")
    label: Any = None
    when: WhenModel | None = Field(
        None, description="a condition: a mapping with reference, field, not, any or all")
    _spec: EvaluatorSpec = PrivateAttr()

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, e: Any) -> Any:
        if isinstance(e, str):
            return {"python": e.removeprefix(PREFIX)} if e.startswith(PREFIX) else {"name": e}
        if not isinstance(e, dict) or ("name" in e) == ("python" in e):
            raise problem("must be a name, or a mapping with 'name' (or 'python: "
                          "FILE:FUNCTION')")
        return e

    @model_validator(mode="after")
    def _build(self, info: ValidationInfo) -> EvaluatorEntry:
        base = Path((info.context or {})["base"])
        try:
            if "python" in self.model_fields_set:
                if self.python is None:
                    raise EntryError("must be FILE.py:FUNCTION", "python")
                spec = python_entry(self.python, self.args, self.label, base, "python")
            else:
                spec = named_entry(str(self.name) + (f"@{self.model}" if self.model else ""),
                                   base, self.mapping, self.args, self.label,
                                   "label" in self.model_fields_set)
        except EntryError as exc:
            raise problem(str(exc), *exc.keys) from None
        spec.when = self.when.build() if self.when is not None else None
        self._spec = spec
        return self

    @property
    def spec(self) -> EvaluatorSpec:
        return self._spec


def read_entry(e: Any, base: Path) -> EvaluatorSpec:
    """One entry (runner/spec.py's `parse_entry`); an EntryError when it is none."""
    try:
        return EvaluatorEntry.model_validate(e, context={"base": base}).spec
    except ValidationError as exc:
        keys, message = explain(first_error(exc), EvaluatorEntry)
        raise EntryError(message, *keys) from None



# -- `executor:` (runner/executor_spec.py) ---------------------------------------------------

class ExecutorSection(SpecModel):
    """`executor: ray`, or a mapping."""

    type: str = Field("local", description="local or ray")
    address: str | None = Field(None, min_length=1,
                                description="'auto', ray://HOST:PORT or HOST:PORT")
    workers: StrictInt = Field(2, ge=1, description="a whole number ≥ 1")
    cpus_per_worker: StrictFloat = Field(1.0, gt=0, allow_inf_nan=False,
                                         description="a positive number")
    code_evaluators: Literal["auto", "workers", "coordinator"] = Field(
        "auto", description=f"one of {', '.join(PLACES)}")

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"type": value}
        if not isinstance(value, dict):
            raise problem("must be local, ray or a mapping with 'type'")
        return value

    @field_validator("type")
    @classmethod
    def _known(cls, kind: str) -> str:
        if kind not in EXECUTORS:
            raise problem(f"unknown executor '{kind}' (known: {', '.join(EXECUTORS)})")
        return kind

    def build(self) -> ExecutorSpec:
        return ExecutorSpec(self.type, self.address, self.workers, self.cpus_per_worker,
                            self.code_evaluators)


# -- the run spec's sections -----------------------------------------------------------------

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
        return DatasetSpec(path=resolve(base, self.reference), fields=dict(self.fields),
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

    def build(self) -> ConversationSettings:
        return ConversationSettings(self.score, self.max_turns, self.max_minutes, self.evaluate)


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
            conversation=self.conversation.build() if self.conversation else ConversationSettings(),
            raw=raw)


def read_spec(data: dict[str, Any], path: Path, lines: KeyLines | None = None) -> ExperimentSpec:
    """`data` as an ExperimentSpec, or a ConfigError: one line naming the file, the line and
    the field."""
    try:
        model = RunSpecModel.model_validate(data, context={"base": path.parent})
    except ValidationError as exc:
        raise spec_error(exc, RunSpecModel, path, lines or KeyLines(None)) from None
    return model.build(path, data)


def _named_or_path(value: str, base: Path) -> dict[str, Any]:
    """`dataset: X` — NAME@VERSION, or a file, or (no such file, no data-file suffix) a name."""
    from assay.datasets.named import NAME, REF
    from assay.datasets.readers import READERS

    if REF.match(value):
        return {"name": value}
    if NAME.match(value) and Path(value).suffix.lower() not in READERS \
            and not resolve(base, value).exists():
        return {"name": value}
    return {"path": value}


def _base(info: ValidationInfo) -> Path:
    """The folder a spec's paths are relative to, as `model_validate(context=…)` gives it."""
    return Path((info.context or {})["base"])
