"""One entry of a spec's `evaluators` list, and `assay score -e NAME --arg k=v`, as an
`EvaluatorSpec`:

    - finance-rubric                          a name
    - coze-correctness@judge                  a judge and its model
    - {name: numeric, args: {abs: 0.01}}      a check and its arguments
    - {python: checks.py:price_ok, args: {tolerance: 0.02}, label: price}
    - {name: numeric, when: {reference: number}}   only where it applies (runner/scope.py)

Paths (a custom check's file, a json-schema file) are relative to the spec's folder. A code
evaluator is built once here, so a bad argument (an unknown one, a regex that does not compile,
a schema that is not one, a missing file or function) stops the spec at load, on its line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.core.errors import ConfigError
from assay.evaluators.build import TEMPLATE_SUFFIXES
from assay.evaluators.builtin.custom import PREFIX, split_ref
from assay.evaluators.registry import EVALUATORS

from .scope import Origin, When


@dataclass
class EvaluatorSpec:
    name: str  # as `assay score -e` takes it: `finance-rubric`, `coze-correctness@judge`
    mapping: dict[str, str] = field(default_factory=dict)
    args: dict[str, Any] = field(default_factory=dict)  # the registry entry's arguments
    when: When | None = None  # the items it scores (None: all of them)
    origin: Origin = field(default_factory=Origin)  # where the entry was written


class EntryError(ConfigError):
    """A mistake in one entry, with the keys below `evaluators[i]` that locate it."""

    def __init__(self, message: str, *keys: str | int) -> None:
        super().__init__(message)
        self.keys = keys


def parse_text_entry(e: str, base: Path) -> EvaluatorSpec:
    """An entry written as text — a name, `NAME@MODEL` or `python:FILE:FUNCTION` — as the
    spec's model reads it (runner/spec_models.py), without pydantic: `assay score -e NAME`,
    the Python API's names. An EntryError when it is none."""
    if e.startswith(PREFIX):
        return python_entry(e.removeprefix(PREFIX), None, None, base, "python")
    return named_entry(e, base)


def named_entry(name: str, base: Path, mapping: dict[str, str] | None = None,
                args: dict[str, Any] | None = None, label: Any = None,
                label_given: bool = False) -> EvaluatorSpec:
    """A registry entry's evaluator (`numeric`, `coze-correctness@judge`) with its mapping,
    arguments and label; checked as far as it can be before the run (`_try_build`)."""
    spec = EvaluatorSpec(name, dict(mapping or {}), dict(args or {}))
    if label is not None:
        spec.args["label"] = label
    _resolve_paths(spec, base)
    _try_build(spec, "args" if args is not None else "label" if label_given else None)
    return spec


def python_entry(ref: str, args: dict[str, Any] | None, label: Any, base: Path,
                 key: str) -> EvaluatorSpec:
    """A custom check, `FILE.py:FUNCTION` (`key`: the entry's key that names it)."""
    try:
        path, function = split_ref(ref)
    except ConfigError as exc:
        raise EntryError(str(exc), key) from None
    p = Path(path)
    built: dict[str, Any] = {"path": str(p if p.is_absolute() else (base / p).resolve()),
                             "function": function}
    if args:
        built["args"] = dict(args)
    if label is not None:
        built["label"] = label
    spec = EvaluatorSpec("python", args=built)
    _try_build(spec, key)
    return spec


def _resolve_paths(spec: EvaluatorSpec, base: Path) -> None:
    """Arguments the entry marks as paths (json-schema's `schema`, when text)."""
    try:
        entry = EVALUATORS.entry(spec.name.partition("@")[0])
    except ConfigError:
        return  # an unknown name is said when the run builds its evaluators
    for key in entry.meta.get("paths", ()):
        value = spec.args.get(key)
        if isinstance(value, str) and not Path(value).is_absolute():
            spec.args[key] = str((base / value).resolve())


def _try_build(spec: EvaluatorSpec, key: str | None) -> None:
    """Build a built-in check now (cheap, no context), so its arguments are checked at load;
    the rest (judges need the run's model clients) when the run builds them."""
    name = spec.name.partition("@")[0]
    try:
        entry = EVALUATORS.entry(name)
    except ConfigError as exc:
        if not spec.args and Path(name).suffix.lower() in TEMPLATE_SUFFIXES:
            return  # a judge template named by its file: found when the run builds it
        raise EntryError(str(exc), *(("name",) if spec.args else ())) from None
    if entry.meta.get("family") != "builtin":  # built by the run; its option names now
        try:
            EVALUATORS.check_names(entry, spec.args, f"evaluator '{entry.name}'")
        except ConfigError as exc:
            raise EntryError(str(exc), *((key,) if key else ())) from None
        return
    try:
        EVALUATORS.build(entry.name, **spec.args)
    except ConfigError as exc:
        raise EntryError(str(exc), *((key,) if key else ())) from None


# -- the command line: -e NAME --arg [NAME.]KEY=VALUE ---------------------------------------

def cli_entries(evaluators: list[str], arg_specs: list[str],
                when_specs: list[str] | None = None) -> list[str | dict[str, Any]]:
    """`-e` names, `--arg` settings and `--when` conditions as spec entries. `--arg KEY=VALUE`
    goes to the one evaluator given, or to NAME's with `--arg NAME.KEY=VALUE`; values read as
    YAML scalars (`0.01` a number, `true` a boolean, `[a, b]` a list). `--when KEY=VALUE`
    (or `--when NAME.KEY=VALUE`) is a key of that evaluator's `when:` condition, so
    `--when numeric.reference=number` is `{name: numeric, when: {reference: number}}`. A
    custom check's file is made absolute, so a resumed run finds it from anywhere."""
    given: list[tuple[str, dict[str, Any]]] = [(e, {}) for e in evaluators]  # twice stays
    for spec in arg_specs:
        target, name, value = _setting("--arg", spec, evaluators)
        given[target][1][name] = value
    conditions: dict[int, dict[str, Any]] = {}
    for spec in when_specs or []:
        target, name, value = _setting("--when", spec, evaluators)
        conditions.setdefault(target, {})[name] = value
    out: list[str | dict[str, Any]] = []
    for i, (e, args) in enumerate(given):
        when = {"when": conditions[i]} if i in conditions else {}
        if e.startswith(PREFIX):
            path, function = split_ref(e.removeprefix(PREFIX))
            entry: dict[str, Any] = {"python": f"{Path(path).resolve()}:{function}"}
            label = args.pop("label", None)
            if args:
                entry["args"] = args
            if label is not None:
                entry["label"] = label
            out.append({**entry, **when})
        elif args or when:
            name, at, model = e.partition("@")
            out.append({"name": name, **({"model": model} if at else {}),
                        **({"args": args} if args else {}), **when})
        else:
            out.append(e)
    return out


def _setting(option: str, spec: str, evaluators: list[str]) -> tuple[int, str, Any]:
    """`[EVALUATOR.]KEY=VALUE` of `--arg` or `--when`: which evaluator (its index among
    `-e`), the key, and the value read as a YAML scalar."""
    key, sep, text = spec.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"{option} takes KEY=VALUE (or EVALUATOR.KEY=VALUE), got '{spec}'")
    owner, dot, name = key.rpartition(".")
    target = _owner(owner, evaluators) if dot else None  # the first of that name
    if target is None:
        if dot and owner:
            raise ConfigError(f"{option} {spec}: no evaluator '{owner}' among -e "
                              f"{', '.join(evaluators)}")
        if len(evaluators) != 1:
            raise ConfigError(f"{option} {spec}: several evaluators are given "
                              f"({', '.join(evaluators)}); write {option} EVALUATOR.{key}="
                              f"{text}")
        target, name = 0, key
    return target, name, _value(name, text)


def _value(key: str, text: str) -> Any:
    """A YAML scalar, except where reading one would change the text: a regex pattern
    ("[0-9]+" is no list) and an expected answer or a `when:` value to equal ("007" is no
    octal 7), unless it is a list."""
    import yaml  # here: only an option given on the command line is read as YAML

    try:
        value = yaml.safe_load(text) if text.strip() else ""
    except yaml.YAMLError:
        return text  # "[0-9" stays text; the check says what is wrong with it
    if key == "pattern" or (key in ("expected", "equals") and not isinstance(value, list)):
        return text
    return value


def _owner(owner: str, evaluators: list[str]) -> int | None:
    for i, e in enumerate(evaluators):
        bare = e.partition("@")[0]
        if owner in (e, bare) or (e.startswith(PREFIX) and owner == e.rpartition(":")[2]):
            return i
    return None
