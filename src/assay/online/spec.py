"""Watch specs (`assay watch SPEC`), checked whole before anything listens:

    name: prod-agent
    source: {otlp: 127.0.0.1:4318}   # where the OTLP/HTTP receiver listens
    sample: 0.2                      # fraction of traces evaluated (seeded; the seed recorded)
    seed: 0
    filter: {service.name: quote-agent}   # resource or root-span attributes (value or list)
    evaluators: ["coze-quality@judge", finance-rubric]
    ground_truth: live               # fetched at the answer's own time (or stored, snapshot:…)
    truth: {provider: akshare}       # as in `assay run` specs
    rubric: {required: latest price, precision: rounding}
    quiet_s: 2.0                     # a trace is complete this long after its root span arrived
    queue: 1000                      # traces waiting for evaluation, at most
    concurrency: auto                # samples evaluated at once
    timeout_s: 10                    # seconds a python: check may take on one trace (60)

Its sections are pydantic models (the shared keys are run specs' `CommonSettings`); every
mistake is one line naming the file, the line and the field (core/specmodel.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Field,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)

from assay.core.specmodel import AUTO, SpecModel, empty_if_none, number, problem, spec_error
from assay.core.yamltext import KeyLines, read_text, yaml_mapping
from assay.runner.evaluator_entries import EvaluatorSpec
from assay.runner.spec_models import CommonSettings, EvaluatorEntry

DAY_S = 86_400.0  # a trace waits at most this long to complete
MAX_CONCURRENCY = 10_000  # one task per worker: 10^8 of them was a MemoryError
MAX_QUEUE = 1_000_000  # traces waiting at most; 10 × it may wait to complete (assemble.py)
# bytes as sent (protobuf); held in memory as Python objects they take a few times that
TRACE_MB = 8.0  # one trace (an agent's long session with whole prompts fits many times over)
PENDING_MB = 128.0  # all traces waiting to complete or to be evaluated, together
MAX_MB = 65_536.0
# the short names for the two rules without a number, in the rubric's own wording;
# anything else is used as written ("允许误差范围绝对值0.5", "Only rounding errors are allowed")
PRECISION_WORDS = {"rounding": "仅允许四舍五入误差", "range": "答案落在最高价最低价区间"}


@dataclass
class WatchSpec:
    path: Path
    name: str
    host: str
    port: int
    evaluators: list[EvaluatorSpec]
    sample: float = 1.0
    seed: int = 0
    filter: dict[str, list[Any]] = field(default_factory=dict)
    ground_truth: str = "stored"
    truth: dict[str, Any] = field(default_factory=dict)
    rubric: dict[str, str] | None = None
    quiet_s: float = 2.0
    orphan_s: float = 30.0  # spans whose root never comes are read (and reported) after this
    queue: int = 1000
    max_trace_mb: float = TRACE_MB
    max_pending_mb: float = PENDING_MB
    concurrency: int = 0  # 0: auto (1 for code evaluators, more for model judges)
    judge_model: str | None = None
    jury: str | None = None
    timeout_s: float | None = None  # a code check's call (runner/evaluate.py's default if None)
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def base(self) -> Path:
        return self.path.parent

    def reference(self) -> str | None:
        """The item's `response_reference` from the spec's rubric, in the form the finance
        rubric reads ("必答点：…\n精度要求：…")."""
        if not self.rubric:
            return None
        precision = self.rubric.get("precision", "")
        precision = PRECISION_WORDS.get(precision.strip().lower(), precision)
        return f"必答点：{self.rubric.get('required', '')}\n精度要求：{precision}"


# -- the sections, as pydantic models (core/specmodel.py: how their errors read) -------------

class Source(SpecModel):
    """Where the OTLP/HTTP receiver listens."""

    model_config = ConfigDict(extra="ignore")  # other keys were always let be
    otlp: str = Field(description="HOST:PORT")

    @model_validator(mode="after")
    def _address(self) -> Any:
        host, _, port = self.otlp.rpartition(":")
        if not host or not port.isdigit() or not 0 <= int(port) < 65536:
            raise problem(f"'{self.otlp}' is not HOST:PORT", "otlp")
        return self

    @property
    def host(self) -> str:
        return self.otlp.rpartition(":")[0].strip("[]")

    @property
    def port(self) -> int:
        return int(self.otlp.rpartition(":")[2])


class Rubric(SpecModel):
    """What the finance rubric reads as the item's `response_reference`."""

    required: str | None = None
    precision: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _shape(cls, rubric: Any) -> Any:
        if not isinstance(rubric, dict) or not rubric:
            raise problem("must be a mapping {required, precision}")
        return rubric


def _fraction(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise problem("must be a fraction in (0, 1]")
    return value


class WatchSpecModel(CommonSettings):
    """A whole watch spec, validated with `context={"base": THE_SPEC'S_FOLDER}`."""

    name: str = Field(description="the online run's name; the same name resumes it")
    description: Any = None
    tags: Any = None
    source: Source = Field(description="a mapping with 'otlp: HOST:PORT'")
    sample: Annotated[float, BeforeValidator(_fraction)] = 1.0
    seed: StrictInt = Field(0, description="a whole number")
    filter: Annotated[dict[str, Any], empty_if_none(dict)] = Field(
        {}, description="a mapping of attribute: value (or list of values)")
    evaluators: list[EvaluatorEntry] = Field(
        min_length=1, description="a non-empty list of evaluator names or mappings")
    rubric: Rubric | None = None
    quiet_s: Annotated[float, number(high=DAY_S)] = 2.0
    orphan_s: Annotated[float, number(high=DAY_S)] = 30.0
    queue: Annotated[int, number(low=1, high=MAX_QUEUE, whole=True)] = 1000
    max_trace_mb: Annotated[float, number(above=True, high=MAX_MB)] = TRACE_MB
    max_pending_mb: Annotated[float, number(above=True, high=MAX_MB)] = PENDING_MB
    timeout_s: Annotated[float, number("seconds", above=True, high=DAY_S)] | None = None
    concurrency: Annotated[StrictInt, Field(ge=1, le=MAX_CONCURRENCY), AUTO] = Field(
        0, description=f"'auto' or a whole number from 1 to {MAX_CONCURRENCY:,}")

    @field_validator("name")
    @classmethod
    def _named(cls, name: str) -> str:
        if not name.strip():
            raise problem("must not be blank: the online run's name; the same name resumes it")
        return name.strip()

    @model_validator(mode="after")
    def _pending_holds_a_trace(self) -> Any:
        if self.max_pending_mb < self.max_trace_mb:
            raise problem(f"must be at least max_trace_mb ({self.max_trace_mb:g}): one trace "
                          "of that size must fit", "max_pending_mb")
        return self

    def build(self, path: Path, raw: dict[str, Any]) -> WatchSpec:
        return WatchSpec(
            path=path, name=self.name, host=self.source.host, port=self.source.port,
            evaluators=[e.spec for e in self.evaluators], sample=self.sample, seed=self.seed,
            filter={k: v if isinstance(v, list) else [v] for k, v in self.filter.items()},
            ground_truth=self.ground_truth, truth=self.truth_settings,
            rubric={k: str(v) for k, v in self.rubric.model_dump(exclude_unset=True).items()}
            if self.rubric else None,
            quiet_s=self.quiet_s, orphan_s=self.orphan_s, queue=self.queue,
            max_trace_mb=self.max_trace_mb, max_pending_mb=self.max_pending_mb,
            concurrency=self.concurrency, judge_model=self.judge_model or None,
            jury=self.jury or None, timeout_s=self.timeout_s, raw=raw)


def load_watch_spec(path: str | Path) -> WatchSpec:
    p = Path(path)
    text = read_text(p, "a watch spec is a YAML text file")
    return parse_watch_spec(yaml_mapping(text, str(p), what="a watch spec"), p, text)


def parse_watch_spec(data: dict[str, Any], path: Path, text: str | None = None) -> WatchSpec:
    """`data` as a WatchSpec, or one line naming the file, the line and the field."""
    try:
        model = WatchSpecModel.model_validate(data, context={"base": path.parent})
    except ValidationError as exc:
        raise spec_error(exc, WatchSpecModel, path, KeyLines(text)) from None
    return model.build(path, data)
