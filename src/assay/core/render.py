"""Filling a template's variables.

FinSearchComp writes variables as `{name}`, Coze as `{{name}}`; a template declares which. Only
a brace pair around a plain identifier is a variable, so JSON examples in the text
(`{"score":1}`) survive, and in a `{{…}}` template a single-brace `{chunk}` in a sample stays
text. A variable the item cannot fill is an error before any model call — never "".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from assay.core.errors import ConfigError

SINGLE = "single"
DOUBLE = "double"
_PATTERNS = {
    SINGLE: re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})"),
    DOUBLE: re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}"),
}


def placeholders(text: str, syntax: str) -> list[str]:
    """Variable names in `text`, in first-use order."""
    return list(dict.fromkeys(m.group(1) for m in _pattern(syntax).finditer(text)))


@lru_cache(maxsize=256)
def _names(text: str, syntax: str) -> tuple[str, ...]:
    # templates are few and reused for every item: find their variables once
    return tuple(placeholders(text, syntax))


def _pattern(syntax: str) -> re.Pattern[str]:
    try:
        return _PATTERNS[syntax]
    except KeyError:
        raise ConfigError(f"unknown placeholder syntax '{syntax}' (use single or double)") \
            from None


def render(text: str, values: Mapping[str, Any], syntax: str, *, where: str = "") -> str:
    pattern = _pattern(syntax)
    names = _names(text, syntax)
    if not names:
        return text  # e.g. the T1 judge's 8 KB system prompt: nothing to fill, nothing to scan
    missing = [name for name in names if values.get(name) is None]
    if missing:
        raise ConfigError(f"{where + ': ' if where else ''}no value for template variable"
                          f"{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    return pattern.sub(lambda m: _text(values[m.group(1)]), text)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    import json

    return json.dumps(value, ensure_ascii=False, indent=1)
