"""`json-valid` and `json-schema`: the answer is JSON, and (for the second) valid against a
JSON Schema, checked by the `jsonschema` library. A reply that is one fenced ```json block is
read from inside the fence (models wrap JSON that way) unless `fenced: false`. The schema is
checked when the evaluator is built, so a bad one stops the spec at load."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from assay.core.errors import ConfigError
from assay.core.types import Answer, Item, Score, TruthSnapshot

from .base import BuiltinCheck, answer_text, excerpt, flag, source_version

_FENCE = re.compile(r"\A\s*```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```\s*\Z", re.DOTALL)
_KEEP_ERRORS = 5


def _parse(text: str, fenced: bool) -> tuple[Any, str | None, bool]:
    """(value, why not, read from a fence)."""
    body, inside = text, False
    if fenced:
        m = _FENCE.match(text)
        if m is not None:
            body, inside = m.group(1), True
    try:
        return json.loads(body), None, inside
    except json.JSONDecodeError as exc:
        return None, f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", inside


class JsonValid(BuiltinCheck):
    """The answer parses as JSON."""

    family = "json-valid"
    needs_expected = False

    def __init__(self, *, fenced: bool = True, label: str | None = None) -> None:
        super().__init__(label=label)
        self.fenced = flag("fenced", fenced, self.where)

    def check(self, item: Item, answer: Answer, truth: TruthSnapshot | None = None) -> Score:
        text = answer_text(answer)
        value, why, inside = _parse(text, self.fenced)
        ev: dict[str, Any] = {"answer": excerpt(text), "fenced": inside}
        if why is not None:
            return self.score(False, f"the answer is {why}", ev)
        ev["type"] = type(value).__name__
        return self.score(True, f"the answer is valid JSON ({_json_type(value)})", ev)


class JsonSchema(BuiltinCheck):
    """The answer is JSON valid against a schema (inline, or a .json/.yaml file)."""

    family = "json-schema"
    needs_expected = False

    def __init__(self, *, schema: Any, fenced: bool = True, label: str | None = None) -> None:
        super().__init__(label=label)
        self.fenced = flag("fenced", fenced, self.where)
        self.schema, self.schema_source = self._load(schema)
        from jsonschema import SchemaError, validators

        cls = validators.validator_for(self.schema)
        try:
            cls.check_schema(self.schema)
        except SchemaError as exc:
            at = "/".join(str(p) for p in exc.path)
            raise ConfigError(f"{self.where}: the schema {self.schema_source} is not a valid "
                              f"JSON Schema: {exc.message}" + (f" (at {at})" if at else "")
                              ) from None
        self.validator = cls(self.schema)
        text = json.dumps(self.schema, sort_keys=True, ensure_ascii=False)
        self._version = (source_version(__name__, "jsonschema") + "+" +
                         hashlib.sha256(text.encode()).hexdigest()[:8])

    def _load(self, schema: Any) -> tuple[Any, str]:
        if isinstance(schema, dict | bool):
            return schema, "(inline)"
        if not isinstance(schema, str):
            raise ConfigError(f"{self.where}: 'schema' is a mapping or the path of a .json/"
                              f".yaml file, not {type(schema).__name__}")
        path = Path(schema)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ConfigError(f"{self.where}: schema file {path}: no such file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{self.where}: schema file {path}: cannot read it ({exc})"
                              ) from None
        try:
            if path.suffix.lower() in (".yaml", ".yml"):
                import yaml

                return yaml.safe_load(text), str(path)
            return json.loads(text), str(path)
        except Exception as exc:  # JSONDecodeError, YAMLError: the parser's first line says it
            raise ConfigError(f"{self.where}: schema file {path} does not parse: "
                              f"{str(exc).splitlines()[0]}") from None

    @property
    def version(self) -> str:
        return self._version

    def check(self, item: Item, answer: Answer, truth: TruthSnapshot | None = None) -> Score:
        text = answer_text(answer)
        value, why, inside = _parse(text, self.fenced)
        ev: dict[str, Any] = {"answer": excerpt(text), "fenced": inside,
                              "schema": self.schema_source}
        if why is not None:
            return self.score(False, f"the answer is {why}", ev)
        errors = sorted(self.validator.iter_errors(value), key=lambda e: [str(p) for p in e.path])
        if not errors:
            return self.score(True, "the answer is JSON valid against the schema", ev)
        ev["errors"] = [{"at": "/" + "/".join(str(p) for p in e.path), "message": e.message}
                        for e in errors[:_KEEP_ERRORS]]
        ev["error_count"] = len(errors)
        first = ev["errors"][0]
        return self.score(False, f"the answer breaks the schema ({len(errors)} error"
                          f"{'s' if len(errors) > 1 else ''}): at {first['at']}: "
                          f"{first['message']}", ev)


def _json_type(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value), "a number")
