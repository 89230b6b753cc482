"""YAML text → a mapping, with errors that name the file and line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import ConfigError


def read_text(path: Path, what: str) -> str:
    """A spec file's text, or one line saying why not (missing, not UTF-8)."""
    if not path.exists():
        raise ConfigError(f"{path}: no such file")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); "
                          f"{what}") from None


def yaml_mapping(text: str, where: str, *, what: str = "the file") -> dict[str, Any]:
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{where}{line}: invalid YAML: {getattr(exc, 'problem', exc)}") \
            from None
    if not isinstance(data, dict):
        raise ConfigError(f"{where}:1: {what} must be a mapping of keys")
    return data
