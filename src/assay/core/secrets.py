"""Every secret value Assay has sent, so none of them is stored or printed.

Keys are referenced by environment-variable name and read at call time (models/config.py,
`${VAR}` in HTTP-target headers, provider tokens); the code that reads one calls `remember`.
An endpoint may still echo the key back — a 401 body repeating the Authorization header, an
agent's 403 page — and that text becomes an error, an answer, a span, an export. `mask` replaces
every remembered value by `[secret $NAME]` wherever such text is produced; the store masks once
more before writing. The set is process-wide state (one CLI command, one run); nothing here
does I/O.
"""

from __future__ import annotations

import threading
from typing import Any
from urllib.parse import quote, quote_plus

# Shorter values are not masked: replacing every "abc" in every answer would garble text more
# than it protects (real keys and tokens are far longer).
MIN_LENGTH = 6

_lock = threading.Lock()
_names: dict[str, str] = {}  # value → the environment variable it came from
_ordered: tuple[tuple[str, str], ...] = ()  # longest first, so a key inside another is safe


def remember(value: str | None, name: str) -> None:
    """Note a secret read from `name`; every later `mask` replaces it — as written and as a URL
    would carry it (an endpoint that echoes a query string echoes `sk%2Dabc…`, not `sk-abc…`)."""
    global _ordered
    if not value or len(value) < MIN_LENGTH:
        return
    forms = {value, quote(value, safe=""), quote_plus(value), quote(value)}
    with _lock:
        if all(_names.get(f) == name for f in forms):
            return
        for form in forms:
            _names[form] = name
        _ordered = tuple(sorted(_names.items(), key=lambda kv: -len(kv[0])))


def forget_all() -> None:
    """For tests: start from no remembered secret."""
    global _ordered
    with _lock:
        _names.clear()
        _ordered = ()


def active() -> bool:
    return bool(_ordered)


def mask(text: str) -> str:
    """`text` with every remembered secret replaced by `[secret $NAME]`."""
    for value, name in _ordered:
        if value in text:
            text = text.replace(value, f"[secret ${name}]")
    return text


def mask_value(value: Any) -> Any:
    """A JSON-like value with every string masked (keys too); unchanged values are returned
    as they are."""
    if not _ordered:
        return value
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, dict):
        return {mask_value(k) if isinstance(k, str) else k: mask_value(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [mask_value(v) for v in value]
    if isinstance(value, tuple):
        return tuple(mask_value(v) for v in value)
    return value


def clip(text: str, limit: int) -> str:
    """Masked first, then cut to `limit` characters: cutting first could leave half a key."""
    text = mask(text)
    return text if len(text) <= limit else text[:limit] + "…"
