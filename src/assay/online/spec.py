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

Every mistake is one line naming the file, the line and the field."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.core.errors import ConfigError
from assay.core.numbers import number_problem
from assay.core.yamltext import NUL_IN_SPEC, KeyLines, nul_at, read_text, yaml_mapping
from assay.runner.evaluator_entries import EntryError, EvaluatorSpec, parse_entry
from assay.runner.spec import truth_settings

KEYS = {"name", "source", "sample", "seed", "filter", "evaluators", "ground_truth", "truth",
        "rubric", "quiet_s", "orphan_s", "queue", "concurrency", "judge_model", "jury",
        "description", "tags", "max_trace_mb", "max_pending_mb", "timeout_s"}
RUBRIC_KEYS = {"required", "precision"}
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


def load_watch_spec(path: str | Path) -> WatchSpec:
    p = Path(path)
    text = read_text(p, "a watch spec is a YAML text file")
    return parse_watch_spec(yaml_mapping(text, str(p), what="a watch spec"), p, text)


def parse_watch_spec(data: dict[str, Any], path: Path, text: str | None = None) -> WatchSpec:
    lines = KeyLines(text)

    def fail(msg: str, *keys: str | int) -> ConfigError:
        return lines.error(path, msg, *keys)

    nul = nul_at(data)
    if nul is not None:
        raise fail(NUL_IN_SPEC, *(str(k) for k in nul))
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise fail(f"unknown key (known: {', '.join(sorted(KEYS))})", unknown[0])
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise fail("missing 'name' (the online run's name; the same name resumes it)")
    source = data.get("source")
    if not isinstance(source, dict) or "otlp" not in source:
        raise fail("must be a mapping with 'otlp: HOST:PORT'", "source")
    host, _, port_text = str(source["otlp"]).rpartition(":")
    if not host or not port_text.isdigit() or not 0 <= int(port_text) < 65536:
        raise fail(f"'{source['otlp']}' is not HOST:PORT", "source", "otlp")
    sample = data.get("sample", 1.0)
    if isinstance(sample, bool) or not isinstance(sample, int | float) or not 0 < sample <= 1:
        raise fail("must be a fraction in (0, 1]", "sample")
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise fail("must be a whole number", "seed")
    flt = data.get("filter") or {}
    if not isinstance(flt, dict):
        raise fail("must be a mapping of attribute: value (or list of values)", "filter")
    evs = data.get("evaluators")
    if not isinstance(evs, list) or not evs:
        raise fail("must be a non-empty list of evaluator names or mappings", "evaluators")
    evaluators: list[EvaluatorSpec] = []
    for i, e in enumerate(evs):
        try:  # as in `assay run` specs: names, {name, args}, {python: FILE:FUNCTION}, paths
            evaluators.append(parse_entry(e, path.parent))  # relative to the spec's folder
        except EntryError as exc:
            raise fail(str(exc), "evaluators", i, *exc.keys) from None
    mode, truth = truth_settings(data, path.parent, fail)
    rubric = data.get("rubric")
    if rubric is not None:
        if not isinstance(rubric, dict) or not rubric:
            raise fail("must be a mapping {required, precision}", "rubric")
        bad = sorted(set(rubric) - RUBRIC_KEYS)
        if bad:
            raise fail("unknown key (known: precision, required)", "rubric", bad[0])
    numbers = {}
    for key, default, bounds in (("quiet_s", 2.0, {"high": DAY_S}),
                                 ("orphan_s", 30.0, {"high": DAY_S}),
                                 ("queue", 1000, {"low": 1, "high": MAX_QUEUE, "whole": True}),
                                 ("max_trace_mb", TRACE_MB, {"above": True, "high": MAX_MB}),
                                 ("max_pending_mb", PENDING_MB, {"above": True,
                                                                 "high": MAX_MB})):
        v = data.get(key, default)
        problem = number_problem(v, **bounds)
        if problem:
            raise fail(problem, key)
        numbers[key] = v
    if numbers["max_pending_mb"] < numbers["max_trace_mb"]:
        raise fail(f"must be at least max_trace_mb ({numbers['max_trace_mb']:g}): one trace "
                   "of that size must fit", "max_pending_mb")
    timeout = data.get("timeout_s")
    if timeout is not None and number_problem(timeout, above=True, high=DAY_S):
        raise fail(f"{number_problem(timeout, above=True, high=DAY_S)} (seconds)", "timeout_s")
    conc = data.get("concurrency", "auto")
    if conc != "auto" and (isinstance(conc, bool) or not isinstance(conc, int) or conc < 1
                           or conc > MAX_CONCURRENCY):
        raise fail(f"must be 'auto' or a whole number from 1 to {MAX_CONCURRENCY:,}",
                   "concurrency")
    jury = data.get("jury")
    if jury is not None and jury not in ("majority", "mean"):
        raise fail(f"unknown jury method '{jury}' (use majority or mean)", "jury")
    return WatchSpec(
        path=path, name=name.strip(), host=host.strip("[]"), port=int(port_text),
        evaluators=evaluators, sample=float(sample), seed=seed,
        filter={str(k): v if isinstance(v, list) else [v] for k, v in flt.items()},
        ground_truth=mode, truth=dict(truth),
        rubric={str(k): str(v) for k, v in rubric.items()} if rubric else None,
        quiet_s=float(numbers["quiet_s"]), orphan_s=float(numbers["orphan_s"]),
        queue=int(numbers["queue"]), max_trace_mb=float(numbers["max_trace_mb"]),
        max_pending_mb=float(numbers["max_pending_mb"]),
        concurrency=0 if conc == "auto" else int(conc),
        judge_model=str(data["judge_model"]) if data.get("judge_model") else None,
        jury=str(jury) if jury else None,
        timeout_s=float(timeout) if timeout is not None else None, raw=data)
