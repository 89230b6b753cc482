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

Each section is a pydantic model (runner/spec_models.py) that builds the dataclasses the runner
reads (runner/experiment_spec.py: ExperimentSpec, DatasetSpec …); every mistake is one line
naming the file, the line (YAML) and the field (core/specmodel.py).

The models, and pydantic with them, are imported when a spec needs them. A spec that has only
the keys `assay score` writes, each in its plain form (runner/score.py: a dataset's path or
name, the `recorded` target, evaluators by name), is built here, checked as its models check
it: its start-up is a score run's, and most of pydantic's cost was that. Anything else, and any
value those checks refuse, is the models' to build or to say what is wrong with."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from assay.core.errors import ConfigError
from assay.core.numbers import number_problem
from assay.core.yamltext import KeyLines, nul_at, read_text, yaml_mapping
from assay.targets.spec import TARGET_KEYS, TargetSpec, required_options

from .evaluator_entries import EntryError, EvaluatorSpec, parse_text_entry
from .executor_spec import EXECUTORS, ExecutorSpec
from .experiment_spec import JURY_METHODS, DatasetSpec, ExperimentSpec, resolve
from .scope import Origin, When

__all__ = ["TARGET_KEYS", "DatasetSpec", "EvaluatorSpec", "ExperimentSpec", "TargetSpec",
           "load_spec", "parse_entry", "parse_spec", "parse_when"]


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
    spec = _plain(data, path)
    if spec is None:
        from .spec_models import read_spec

        spec = read_spec(data, path, lines)
    located(spec.evaluators, path, lines)
    return spec


def parse_entry(e: Any, base: Path) -> EvaluatorSpec:
    """One entry of `evaluators:` (the Python API's and `--evaluator`'s too), paths relative
    to `base`; an EntryError, with the keys below the entry, when it is none."""
    if isinstance(e, str):
        try:
            return parse_text_entry(e, base)
        except ValueError:
            pass  # a check's ValueError: the model says it, as it says any other
    from .spec_models import read_entry

    return read_entry(e, base)


def parse_when(data: Any) -> When:
    """A condition as the manifest keeps it (`When.as_dict`), for replay and `assay show`; a
    ConfigError when it is no longer one."""
    from .spec_models import read_when

    return read_when(data)


def located(entries: list[EvaluatorSpec], path: Path | None, lines: KeyLines | None) -> None:
    """Each entry told where it was written (`evaluators[i]` of `path`; no path: the command
    line), for the mistakes only the run's items show (runner/scope.py)."""
    for i, e in enumerate(entries):
        e.origin = Origin(path, lines, ("evaluators", i))


# -- a plain spec, built without the models --------------------------------------------------

# the keys `assay score` writes (runner/score.py); a spec with any other is the models' to read
PLAIN_KEYS = frozenset({"name", "dataset", "targets", "evaluators", "ground_truth", "commit",
                        "concurrency", "group_by", "jury", "judge_model", "executor", "budget",
                        "timeout_s"})


class _NotPlain(Exception):
    """A value this builder leaves to the models: another form, or one their checks refuse."""


def _plain(data: Any, path: Path) -> ExperimentSpec | None:
    """`data` as the models build it, when it is plain (the module's docstring); else None.
    Each value takes one form here and passes the check its model makes (runner/spec_models.py:
    the same functions where they are not pydantic's); tests/runner/test_plain_spec.py holds the
    two to the same result."""
    if not isinstance(data, dict) or not data.keys() <= PLAIN_KEYS or nul_at(data) is not None:
        return None
    base = path.parent
    try:
        name = _text(data.get("name"), none=True)
        dataset = _dataset(data.get("dataset"), base)
        targets = _targets(data.get("targets"))
        entries = data.get("evaluators")
        if not isinstance(entries, list) or not entries \
                or not all(isinstance(e, str) for e in entries):
            raise _NotPlain
        evaluators = [parse_text_entry(e, base) for e in entries]
        concurrency = data.get("concurrency", 8)
        if concurrency == "auto":
            concurrency = 0
        elif type(concurrency) is not int or concurrency < 1:
            raise _NotPlain
        executor = data.get("executor")
        if executor is not None and executor not in EXECUTORS:
            raise _NotPlain
        budget = data.get("budget")
        if budget is not None and (not isinstance(budget, dict) or budget.keys() != {"usd"}):
            raise _NotPlain
        jury = data.get("jury")
        if jury is not None and jury not in JURY_METHODS:
            raise _NotPlain
        if data.get("ground_truth", "stored") != "stored" or \
                data.get("commit", "group") not in ("group", "batch"):
            raise _NotPlain
        return ExperimentSpec(
            path=path, name=name or path.stem, dataset=dataset, targets=targets,
            evaluators=evaluators, concurrency=concurrency,
            timeout_s=_positive(data.get("timeout_s")),
            group_by=_text(data.get("group_by", "label")), commit=data.get("commit", "group"),
            jury=jury, judge_model=_text(data.get("judge_model"), none=True) or None,
            executor=ExecutorSpec(executor) if executor is not None else ExecutorSpec(),
            budget_usd=_positive(budget["usd"]) if budget is not None else None, raw=data)
    except (_NotPlain, EntryError, ConfigError, ValueError):
        return None


def _text(value: Any, none: bool = False) -> Any:
    if not isinstance(value, str) and not (none and value is None):
        raise _NotPlain
    return value


def _positive(value: Any) -> float | None:
    """A number > 0 (`timeout_s`, `budget.usd`: core/specmodel.py's `number(above=True)`), as
    a float; None stays."""
    if value is None:
        return None
    if number_problem(value, above=True) is not None:
        raise _NotPlain
    return float(value)


def _dataset(ds: Any, base: Path) -> DatasetSpec:
    if not isinstance(ds, dict):
        raise _NotPlain
    if ds.keys() == {"name"}:
        from assay.datasets.named import parse_ref

        name, version = parse_ref(_text(ds["name"]))
        return DatasetSpec(path=resolve(base, ds["name"]), name=name, version=version)
    if "path" not in ds or not ds.keys() <= {"path", "fields", "id_field"}:
        raise _NotPlain
    fields = ds.get("fields")
    fields = {} if fields is None else fields
    if not isinstance(fields, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in fields.items()):
        raise _NotPlain
    return DatasetSpec(path=resolve(base, _text(ds["path"])), fields=dict(fields),
                       id_field=_text(ds.get("id_field"), none=True))


def _targets(targets: Any) -> list[TargetSpec]:
    if not isinstance(targets, list) or not targets:
        raise _NotPlain
    out: list[TargetSpec] = []
    for t in targets:
        if not isinstance(t, dict):
            raise _NotPlain
        kind = _text(t.get("type"))
        options = {k: v for k, v in t.items() if k not in ("name", "type")}
        if kind not in TARGET_KEYS or not options.keys() <= TARGET_KEYS[kind] \
                or not all(options.get(r) for r in required_options(kind)):
            raise _NotPlain
        out.append(TargetSpec(_text(t.get("name"), none=True) or kind, kind, options))
    if len({t.name for t in out}) < len(out):
        raise _NotPlain
    return out


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
