"""Recorded answers, as the `recorded` target and `assay score` read them: a field of the
items, or a separate file keyed by item id."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.core.errors import DataError
from assay.core.types import Answer, Item
from assay.datasets.ids import normalise_prompt_id
from assay.datasets.readers import READERS

ID_COLUMNS = ("item_id", "prompt_id", "id")
TEXT_COLUMNS = ("response", "answer", "model_response", "output", "text")


def answer_from_item(item: Item, field: str) -> Answer | None:
    """The item's own answer; FinSearchComp releases keep it in `dialogues[0].model_response`."""
    value = item.fields.get(field)
    if type(value) is str:  # the common case, with nothing to convert (a score run's hot path)
        return Answer(value)
    if field in item.fields:
        return Answer(_text(item.fields[field]))
    dialogues = item.fields.get("dialogues")
    if field == "response" and isinstance(dialogues, list) and dialogues:
        first = dialogues[0]
        if isinstance(first, dict) and "model_response" in first:
            return Answer(_text(first["model_response"]))
    return None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, float) and value != value:  # NaN from a spreadsheet's empty cell
        return None
    return str(value)


def load_responses(path: str | Path) -> dict[str, Answer]:
    p = Path(path)
    reader = READERS.get(p.suffix.lower())
    if reader is None or not p.exists():
        raise DataError("no such file" if not p.exists() else
                        f"unsupported format '{p.suffix}'", path=str(p))
    out: dict[str, Answer] = {}
    for row, line in reader(p):
        id_col = next((c for c in ID_COLUMNS if c in row), None)
        text_col = next((c for c in TEXT_COLUMNS if c in row), None)
        if id_col is None:
            raise DataError(f"missing id column (one of {', '.join(ID_COLUMNS)})",
                            path=str(p), line=line)
        if text_col is None:
            raise DataError(f"missing answer column (one of {', '.join(TEXT_COLUMNS)})",
                            path=str(p), line=line)
        item_id = normalise_prompt_id(row[id_col]) or str(row[id_col])
        if item_id in out:
            raise DataError(f"duplicate answer for id '{item_id}'", path=str(p), line=line)
        out[item_id] = Answer(_text(row[text_col]))
    return out
