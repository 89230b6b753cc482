"""Text made safe once, where it enters Assay (model and agent replies, provider payloads).

A JSON reply may carry an escape like "\\ud800": an unpaired UTF-16 surrogate, which Python
holds in a str but which has no UTF-8 form, so the first encode (SQLite, orjson, the terminal)
raises. NUL is valid UTF-8 but PostgreSQL refuses it in text and JSONB. Both are replaced by
U+FFFD at the boundary, and the caller records that it happened; nothing downstream then needs
to care. Pure functions: nothing here does I/O.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

REPLACEMENT = "\ufffd"
# An unpaired surrogate or a NUL. A valid pair never appears in a Python str decoded from JSON
# (json joins "\ud83d\ude00" into one code point), so any surrogate left is unpaired.
_UNSAFE = re.compile("[\ud800-\udfff\x00]")


def safe_text(text: str) -> tuple[str, bool]:
    """`text` with unpaired surrogates and NULs replaced by U+FFFD, and whether any was."""
    if text.isascii() and "\x00" not in text:  # the common case, in C, without a regex scan
        return text, False
    cleaned, n = _UNSAFE.subn(REPLACEMENT, text)
    return cleaned, n > 0


def safe_value(value: Any) -> tuple[Any, bool]:
    """A JSON-like value (str, list, dict, scalars) with every string made safe — keys too —
    and whether anything changed. Unchanged containers are returned as they are (no copy)."""
    if isinstance(value, str):
        cleaned, changed = safe_text(value)
        # a str subclass (the store's RawJSON) keeps its type when nothing changed
        return (cleaned, True) if changed else (value, False)
    if type(value) in _PLAIN and (not value or _clean_container(value)):
        return value, False  # (an empty one costs orjson's call more than the walk)
    return _walk(value)


def _walk(value: Any) -> tuple[Any, bool]:
    if isinstance(value, str):
        cleaned, changed = safe_text(value)
        return (cleaned, True) if changed else (value, False)
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        changed = False
        for k, v in value.items():
            k2, ck = _walk(k) if isinstance(k, str) else (k, False)
            v2, cv = _walk(v)
            changed = changed or ck or cv
            out[k2] = v2
        return (out, True) if changed else (value, False)
    if isinstance(value, (list, tuple)):
        items = [_walk(v) for v in value]
        if any(c for _, c in items):
            seq = [v for v, _ in items]
            return (seq if isinstance(value, list) else tuple(seq)), True
        return value, False
    return value, False


# orjson is asked to encode the whole value once, in C: it refuses an unpaired surrogate
# (JSONEncodeError) and writes a NUL as the escape \\u0000, so output without that escape means
# every string in it is safe, and the walk in Python (a call a key and a value: the ~150 calls
# of a table row's snapshot, per trace in `assay watch`) is skipped. Anything else sends the
# value to the walk, which decides exactly: a refused surrogate, the escape (or text that only
# looks like it), a type orjson does not encode. Objects the walk leaves alone (opaque to it)
# are encoded as null; the containers the walk enters are never passed over that way. Only the
# plain types are read by orjson itself: a subclass of str, dict, list or tuple may read
# differently through its own methods (the walk calls `items`, iteration, `len`), so it goes to
# `_opaque` and from there to the walk; dataclasses and datetimes, opaque to the walk, are not
# read at all (orjson 3.x ends the process when a tzinfo's `utcoffset` raises).
_PLAIN = (dict, list, tuple)
_OPTIONS = (orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS
            | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS)


def _opaque(obj: Any) -> None:
    if isinstance(obj, (str, dict, list, tuple)):  # a subclass: walked
        raise TypeError
    return None


def _clean_container(value: dict[Any, Any] | list[Any] | tuple[Any, ...]) -> bool:
    try:
        encoded = orjson.dumps(value, default=_opaque, option=_OPTIONS)
    except (TypeError, orjson.JSONEncodeError):
        return False
    return b"\\u0000" not in encoded


def unsafe_position(text: str) -> int | None:
    """The index of the first unpaired surrogate or NUL, or None (for error messages)."""
    found = _UNSAFE.search(text)
    return found.start() if found else None


# What a terminal acts on rather than shows: C0 controls but newline and tab (ESC starts the
# sequences that clear the screen, set the window title, write the clipboard — OSC 52), DEL,
# C1 controls (U+009B is a one-character CSI) and the bidirectional overrides that make text
# read in another order than it is stored ("Trojan source").
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` for a terminal: each control character shown as its escape (`\\x1b`, `\\u202e`),
    so an answer's escape sequences are read, not run. Only for printing: stored text stays
    exactly as it came."""
    if text.isascii() and text.isprintable():  # the common case, in C
        return text
    return _CONTROL.sub(_shown, text)


def _shown(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"
