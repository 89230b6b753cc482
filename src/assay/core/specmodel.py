"""Spec sections as pydantic models, and their mistakes as Assay's one line.

Each section of a spec (a run's, a watch's) is a `SpecModel`; pydantic checks shapes and types,
validators check Assay's own rules. A `ValidationError` is never shown: `spec_error` turns its
first error into `FILE:LINE: a.b[2].c: message`, the line found from the error's `loc` by
`KeyLines`. How each kind of error reads:

* a missing key — `missing 'KEY' (DESCRIPTION)`, at the mapping that lacks it;
* an unknown key — `unknown key (known: …)`, the model's keys;
* a wrong type or value — `must be DESCRIPTION`: a field's `description` says, as a noun
  phrase, what it takes ("a mapping of NAME: COLUMN"), so documentation and message agree;
* Assay's own rules — `problem(message, *keys)`, raised by a validator, as written, at the
  section it is raised in plus `keys` (a validator cannot name the keys below its section).

A mistake inside a plain value (a dict's entry, a list of text) is blamed on its field."""

from __future__ import annotations

import types
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, ClassVar, Union, get_args, get_origin

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    ValidationError,
    WrapValidator,
)
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails, PydanticCustomError

from .errors import ConfigError
from .numbers import number_problem
from .yamltext import KeyLines

Keys = tuple[str | int, ...]


class SpecModel(BaseModel):
    """A section of a spec: unknown keys are mistakes; a number where text is expected is read
    as text (a column named 2024, a model named 7), as the specs always were."""

    # defer_build: a model's validator is built when it first validates, so a command that
    # reads no spec of that kind (a score run never reads a watch spec) does not build it
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True, defer_build=True)
    # `unknown key (known: …)` lists the keys sorted, or as the fields are declared
    keys_in_order: ClassVar[bool] = False
    # Defaults are written `{}` and `[]`: pydantic copies them for each model, and a
    # default_factory=dict makes it read the signature of a builtin (tokenize compiles its
    # patterns for that, a tenth of a second at import on this machine).


def problem(message: str, *keys: str | int) -> PydanticCustomError:
    """An error of Assay's own rules, `message` as the user reads it, at the section being
    validated plus `keys`."""
    return PydanticCustomError("assay", "{message}", {"message": message, "keys": keys})


def number(unit: str = "", **bounds: Any) -> BeforeValidator:
    """A number checked as every number a user gives is (core/numbers.py): finite, in its
    bounds, no bool; `unit` is said after the problem, "(seconds)"."""

    def check(value: Any) -> Any:
        found = number_problem(value, **bounds)
        if found is not None:
            raise problem(found + (f" ({unit})" if unit else ""))
        return value

    return BeforeValidator(check)


# `concurrency: auto`: 0, the runner's "choose for me"; any other value as its field's type says
AUTO = WrapValidator(lambda value, handler: 0 if value == "auto" else handler(value))


def empty_if_none(empty: Callable[[], Any]) -> BeforeValidator:
    """`filter:` with nothing after it (YAML null) is an empty mapping, as it always was."""
    return BeforeValidator(lambda value: empty() if value is None else value)


def spec_error(exc: ValidationError, model: type[BaseModel], path: Path,
               lines: KeyLines) -> ConfigError:
    """The one line for a spec that `model` refused."""
    keys, message = explain(first_error(exc), model)
    return lines.error(path, message, *keys)


def first_error(exc: ValidationError) -> ErrorDetails:
    """The error to show: an unknown (or non-text) key before the rest (a misspelt key also
    makes the key it meant missing, and the unknown one says both), else the first, in the
    fields' order."""
    errors = exc.errors(include_url=False)
    return min(errors, key=lambda e: e["type"] not in ("extra_forbidden", "invalid_key"))


def explain(error: ErrorDetails, model: type[BaseModel]) -> tuple[Keys, str]:
    """The keys an error is at, and its message (see the module's docstring)."""
    keys, owner, field = _walk(error["loc"], model)
    kind, ctx = error["type"], error.get("ctx") or {}
    if kind == "assay":
        return (*keys, *ctx["keys"]), str(ctx["message"])
    if kind == "missing":
        hint = f" ({field.description})" if field is not None and field.description else ""
        return keys[:-1], f"missing '{keys[-1]}'{hint}"
    if kind == "extra_forbidden":
        return keys, f"unknown key (known: {', '.join(known_keys(owner))})"
    if kind == "invalid_key" or error["loc"][-1:] == ("[key]",):  # `on:` is YAML's true
        keys = _walk(error["loc"][:-1], model)[0] if kind == "invalid_key" else keys
        return keys, (f"a key read as {error['input']!r}, not as text (YAML reads an unquoted "
                      "on, off, yes, no or number so): quote it")
    if kind == "value_error":  # a validator's ValueError (an AssayError is none)
        return keys, str(ctx.get("error", error["msg"]))
    if field is not None and field.description:
        return keys, f"must be {field.description}"
    plain = next((said for prefix, said in _PLAIN if kind.startswith(prefix)), None)
    return keys, plain or error["msg"].replace("Input should be", "must be", 1)


# what a field without a description says, by the kind of pydantic error
_PLAIN = (("int_", "must be a whole number"), ("float_", "must be a number"),
          ("bool_", "must be true or false"), ("string_", "must be text"),
          ("dict_", "must be a mapping"), ("model_", "must be a mapping"),
          ("list_", "must be a list"))


def known_keys(model: type[BaseModel]) -> list[str]:
    names: list[str] = []
    for name, field in model.model_fields.items():
        alias = field.validation_alias
        if isinstance(alias, AliasChoices):
            names += [str(choice) for choice in alias.choices]
        else:
            names.append(alias if isinstance(alias, str) else field.alias or name)
    return names if getattr(model, "keys_in_order", False) else sorted(names)


def _walk(loc: tuple[str | int, ...], model: type[BaseModel]
          ) -> tuple[Keys, type[BaseModel], FieldInfo | None]:
    """Follow `loc` through the models' fields and lists: the keys as the spec writes them, the
    model they end in and the field (None: a key the model does not know). Inside a plain value
    the walk stops, so its field is blamed."""
    keys: list[str | int] = []
    owner, field = model, None
    at: Any = model
    for part in loc:
        at = _bare(at)
        if isinstance(part, str) and isinstance(at, type) and issubclass(at, BaseModel):
            owner, field = at, _field(at, part)
            keys.append(part)
            if field is None:
                break
            at = field.annotation
        elif isinstance(part, int) and get_origin(at) is list:
            keys.append(part)
            at = get_args(at)[0]
        else:
            break
    return tuple(keys), owner, field


def _field(model: type[BaseModel], key: str) -> FieldInfo | None:
    for name, field in model.model_fields.items():
        alias = field.validation_alias
        choices = alias.choices if isinstance(alias, AliasChoices) else [alias or field.alias]
        if key == name or key in choices:
            return field
    return None


def _bare(annotation: Any) -> Any:
    """`X | None` and `Annotated[X, …]` as X."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            rest = [a for a in get_args(annotation) if a is not type(None)]
            if len(rest) != 1:
                return annotation
            annotation = rest[0]
        else:
            return annotation
