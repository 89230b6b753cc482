"""Stable item ids."""

from __future__ import annotations

import ast
import hashlib
from typing import Any

import orjson


def normalise_prompt_id(raw: Any) -> str | None:
    """FinSearchComp ships ids as ['(T1)…_165'] (a list) or as the text of one; both → '(T1)…_165'."""
    if raw is None:
        return None
    if isinstance(raw, list):
        return normalise_prompt_id(raw[0]) if len(raw) == 1 else None
    text = str(raw).strip()
    if text.startswith("[") and text.endswith("]"):
        try:
            parsed = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return text or None
        if isinstance(parsed, list) and len(parsed) == 1:
            return str(parsed[0]).strip() or None
    return text or None


def content_id(fields: dict[str, Any]) -> str:
    blob = orjson.dumps(fields, option=orjson.OPT_SORT_KEYS, default=str)
    return "h" + hashlib.sha256(blob).hexdigest()[:15]
