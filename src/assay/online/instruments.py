"""Instruments for online items: production questions carry no ticker, so the instrument is
resolved from the names and codes in the question by `assay.truth.names` (exact matches
against the provider's own tables). That module is optional here: without it an item goes
without a ticker, and its truth is null with the reason."""

from __future__ import annotations

import importlib
from typing import Any

MISSING = "no instrument resolver installed (assay.truth.names): the item has no ticker"


async def resolve(question: str, provider: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(item fields to add, the resolution as recorded in the item)."""
    try:
        names: Any = importlib.import_module("assay.truth.names")
    except ModuleNotFoundError as exc:
        if exc.name not in ("assay.truth.names", "assay.truth"):
            raise
        return {}, {"status": None, "message": MISSING, "candidates": []}
    r = await names.resolve_question(question, provider=provider)
    note = {"status": r.status, "message": getattr(r, "message", None),
            "candidates": list(getattr(r, "candidates", []) or [])}
    return (dict(r.fields) if r.status == "resolved" else {}), note
