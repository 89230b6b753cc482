"""YAML text → a mapping, with errors that name the file and line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
    import yaml  # here, not at import: a run built in code reads no YAML (~30 ms to load)

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


class KeyLines:
    """Where each key of a YAML document is, so an error can name its line (None: not found,
    or no YAML text, as for a TOML spec)."""

    def __init__(self, text: str | None) -> None:
        self.root = None
        if text is not None:
            import yaml

            try:
                self.root = yaml.compose(text)
            except yaml.YAMLError:
                self.root = None

    def line(self, *keys: str | int) -> int | None:
        import yaml

        node = self.root
        found = None
        for key in keys:
            if isinstance(node, yaml.MappingNode):
                nxt = next(((k, v) for k, v in node.value if k.value == key), None)
                if nxt is None:
                    break
                found, node = nxt[0].start_mark.line + 1, nxt[1]
            elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) \
                    and key < len(node.value):
                node = node.value[key]
                found = node.start_mark.line + 1
            else:
                break
        return found

    def error(self, path: Path, msg: str, *keys: str | int) -> ConfigError:
        """`FILE:LINE: a.b[2].c: msg` — a spec's one-line error at the key it is about."""
        line = self.line(*keys) if keys else None
        where = f"{path}:{line}" if line else str(path)
        dotted = ".".join(str(k) if isinstance(k, str) else f"[{k}]" for k in keys)
        return ConfigError(f"{where}: {dotted.replace('.[', '[')}: {msg}" if keys
                           else f"{where}: {msg}")


NUL_IN_SPEC = "holds a NUL character (\\0), which no store keeps: remove it"


def nul_at(data: Any, keys: tuple[str | int, ...] = ()) -> tuple[str | int, ...] | None:
    """The keys to the first text (a key or a value) in a parsed spec that holds a NUL, or
    None: no store keeps one (PostgreSQL refuses it), so a spec is refused up front."""
    if isinstance(data, str):
        return keys if "\0" in data else None
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(key, str) and "\0" in key:
                return (*keys, key.replace("\0", "\\0"))
            found = nul_at(value, (*keys, key if isinstance(key, str | int) else str(key)))
            if found is not None:
                return found
    if isinstance(data, list | tuple):
        for i, value in enumerate(data):
            found = nul_at(value, (*keys, i))
            if found is not None:
                return found
    return None
