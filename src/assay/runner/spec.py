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

Every mistake is one line naming the file, the line (YAML) and the field."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.core.errors import ConfigError
from assay.core.numbers import number_problem
from assay.core.yamltext import NUL_IN_SPEC, KeyLines, nul_at, read_text, yaml_mapping
from assay.targets.registry import TARGETS
from assay.targets.spec import TARGET_KEYS, TargetSpec, required_options

from .evaluator_entries import EntryError, EvaluatorSpec, parse_entry
from .executor_spec import ExecutorSpec, parse_executor

__all__ = ["TARGET_KEYS", "DatasetSpec", "EvaluatorSpec", "ExperimentSpec", "TargetSpec",
           "load_spec", "parse_spec"]

# samples are items × repeats, each a task and rows: 10^12 repeats crashed the interpreter
MAX_REPEATS = 10_000
TOP_KEYS = {"name", "dataset", "targets", "target", "evaluators", "concurrency", "repeats",
            "ground_truth", "tags", "timeout_s", "group_by", "seed", "description", "otlp",
            "truth", "commit", "jury", "judge_model", "executor", "budget"}
COMMIT_POLICIES = ("group", "batch")
JURY_METHODS = ("majority", "mean")
DATASET_KEYS = {"path", "fields", "id_field", "filter", "limit", "sample", "seed", "name",
                "version"}
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
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def base(self) -> Path:
        return self.path.parent


def truth_settings(data: dict[str, Any], base: Path, fail: Callable[..., ConfigError]
                   ) -> tuple[str, dict[str, Any]]:
    """A spec's `ground_truth` mode and `truth` settings, checked (run and watch specs)."""
    mode = str(data.get("ground_truth", "stored"))
    if mode not in ("stored", "live") and not mode.startswith("snapshot:"):
        raise fail(f"ground-truth mode '{mode}' is not one of "
                   f"{', '.join(GROUND_TRUTH_MODES)}", "ground_truth")
    truth = data.get("truth") or {}
    if not isinstance(truth, dict):
        raise fail("must be a mapping (provider, field, market, window_s …)", "truth")
    try:
        from assay.truth.capture import TruthConfig

        TruthConfig.parse(mode, truth, base)
    except ConfigError as exc:
        key = "truth" if str(exc).startswith("truth.") else "ground_truth"
        raise fail(str(exc), key) from None
    return mode, truth


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
    lines = lines or KeyLines(None)

    def fail(msg: str, *keys: str | int) -> ConfigError:
        return lines.error(path, msg, *keys)

    nul = nul_at(data)
    if nul is not None:
        raise fail(NUL_IN_SPEC, *nul) if nul else fail(NUL_IN_SPEC)
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise fail(f"unknown key (known: {', '.join(sorted(TOP_KEYS))})", unknown[0])
    for key in ("dataset",):
        if key not in data:
            raise fail(f"missing '{key}'")
    ds = data["dataset"]
    if isinstance(ds, str):
        ds = _named_or_path(ds, path)
    if not isinstance(ds, dict) or ("path" in ds) == ("name" in ds):
        raise fail("must be a path, NAME@VERSION, or a mapping with 'path' or 'name'",
                   "dataset")
    bad = sorted(set(ds) - DATASET_KEYS)
    if bad:
        raise fail(f"unknown key (known: {', '.join(sorted(DATASET_KEYS))})", "dataset", bad[0])
    if "name" in ds:
        for key in ("fields", "id_field"):
            if key in ds:
                raise fail("a named dataset's fields are mapped when it is added (assay "
                           "datasets add NAME FILE --field …)", "dataset", key)
        named = ds["name"] if "version" not in ds else f"{ds['name']}@{ds['version']}"
        try:
            from assay.datasets.named import parse_ref

            ds_name, ds_version = parse_ref(str(named))
        except ConfigError as exc:
            raise fail(str(exc), "dataset") from None
        ds = {**ds, "path": str(named)}
    else:
        ds_name, ds_version = None, None
    for key in ("limit", "sample", "seed"):
        if key in ds and (not isinstance(ds[key], int) or isinstance(ds[key], bool)
                          or ds[key] < (0 if key == "seed" else 1)):
            raise fail("must be a positive whole number", "dataset", key)
    if not isinstance(ds.get("filter", {}), dict):
        raise fail("must be a mapping of field: value (or list of values)", "dataset", "filter")
    if not isinstance(ds.get("fields", {}), dict):
        raise fail("must be a mapping of NAME: COLUMN", "dataset", "fields")
    dataset = DatasetSpec(
        path=_resolve(path, str(ds["path"])), fields={str(k): str(v) for k, v in
                                                      (ds.get("fields") or {}).items()},
        id_field=ds.get("id_field"), filter=dict(ds.get("filter") or {}),
        limit=ds.get("limit"), sample=ds.get("sample"), seed=int(ds.get("seed", 0)),
        name=ds_name, version=ds_version)

    raw_targets = data.get("targets", data.get("target"))
    if raw_targets is None:
        raise fail("missing 'targets' (a list of {name, type, …})")
    if isinstance(raw_targets, dict):
        raw_targets = [raw_targets]
    key = "targets" if "targets" in data else "target"
    if not isinstance(raw_targets, list) or not raw_targets:
        raise fail("must be a non-empty list", key)
    targets: list[TargetSpec] = []
    for i, t in enumerate(raw_targets):
        if not isinstance(t, dict):
            raise fail("must be a mapping with name and type", key, i)
        kind = t.get("type")
        if not isinstance(kind, str) or kind not in TARGET_KEYS:
            close = TARGETS.close(str(kind))
            raise fail(f"unknown target type '{kind}' (known: {', '.join(TARGET_KEYS)})"
                       + (f"; did you mean {', '.join(close)}?" if close else ""),
                       key, i, "type")
        name = str(t.get("name") or kind)
        extra = sorted(set(t) - TARGET_KEYS[kind] - {"name", "type"})
        if extra:
            raise fail(f"not a {kind} target option (known: "
                       f"{', '.join(sorted(TARGET_KEYS[kind]))})", key, i, extra[0])
        for required in required_options(kind):
            if not t.get(required):
                raise fail(f"a {kind} target needs '{required}'", key, i)
        if any(x.name == name for x in targets):
            raise fail(f"target name '{name}' is used twice", key, i, "name")
        targets.append(TargetSpec(name, kind, {k: v for k, v in t.items()
                                               if k not in ("name", "type")}))

    raw_evs = data.get("evaluators")
    if not isinstance(raw_evs, list) or not raw_evs:
        raise fail("must be a non-empty list of evaluator names or mappings", "evaluators")
    evaluators: list[EvaluatorSpec] = []
    for i, e in enumerate(raw_evs):
        try:  # names, {name, args}, {python: FILE:FUNCTION}: evaluator_entries.py
            evaluators.append(parse_entry(e, path.parent))
        except EntryError as exc:
            raise fail(str(exc), "evaluators", i, *exc.keys) from None

    def whole(key: str, default: int, low: int, high: int | None = None) -> int:
        value = data.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < low \
                or (high is not None and value > high):
            raise fail(f"must be a whole number ≥ {low}"
                       + (f" and ≤ {high:,}" if high is not None else ""), key)
        return value

    mode, truth = truth_settings(data, path.parent, fail)
    timeout = data.get("timeout_s")
    if timeout is not None and number_problem(timeout, above=True):
        raise fail(f"{number_problem(timeout, above=True)} (seconds)", "timeout_s")
    tags = data.get("tags") or []
    if not isinstance(tags, list):
        raise fail("must be a list", "tags")
    commit = str(data.get("commit", "group"))
    if commit not in COMMIT_POLICIES:
        raise fail(f"must be one of {', '.join(COMMIT_POLICIES)}", "commit")
    jury = data.get("jury")
    if jury is not None and jury not in JURY_METHODS:
        raise fail(f"unknown jury method '{jury}' (use {' or '.join(JURY_METHODS)})", "jury")
    budget = data.get("budget")
    if budget is not None:
        usd = budget.get("usd") if isinstance(budget, dict) else None
        if not isinstance(budget, dict) or set(budget) != {"usd"}:
            raise fail("must be a mapping {usd: AMOUNT}", "budget")
        problem = number_problem(usd, above=True)
        if problem:
            raise fail(f"{problem} (US dollars)", "budget", "usd")
    return ExperimentSpec(
        path=path, name=str(data.get("name") or path.stem), dataset=dataset, targets=targets,
        evaluators=evaluators,
        concurrency=0 if data.get("concurrency") == "auto" else whole("concurrency", 8, 1),
        repeats=whole("repeats", 1, 1, MAX_REPEATS), ground_truth=mode, truth=dict(truth),
        tags=[str(t) for t in tags],
        timeout_s=float(timeout) if timeout is not None else None,
        group_by=str(data.get("group_by", "label")),
        otlp=str(data["otlp"]) if data.get("otlp") else None, commit=commit,
        jury=str(jury) if jury is not None else None,
        judge_model=str(data["judge_model"]) if data.get("judge_model") else None,
        executor=parse_executor(data.get("executor"), fail),
        budget_usd=float(budget["usd"]) if budget is not None else None, raw=data)


def _named_or_path(value: str, spec_path: Path) -> dict[str, Any]:
    """`dataset: X` — NAME@VERSION, or a file, or (no such file, no data-file suffix) a name."""
    from assay.datasets.named import NAME, REF
    from assay.datasets.readers import READERS

    if REF.match(value):
        return {"name": value}
    if NAME.match(value) and Path(value).suffix.lower() not in READERS \
            and not _resolve(spec_path, value).exists():
        return {"name": value}
    return {"path": value}


def _resolve(spec_path: Path, value: str) -> Path:
    """Paths in a spec are relative to the spec's folder, so a spec runs from anywhere."""
    p = Path(value)
    return p if p.is_absolute() else spec_path.parent / p


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
