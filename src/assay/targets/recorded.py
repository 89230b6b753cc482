"""`recorded`: answers already present in a field of the items or in a file keyed by item id
(what `assay score` reads)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from assay.core.types import Answer, Item
from assay.datasets.answers import answer_from_item, load_responses

from .base import TargetContext


class RecordedTarget:
    kind = "recorded"
    recorded = True  # read, never called (base.Recorded)

    def __init__(self, name: str, *, field: str = "response", file: Path | None = None) -> None:
        self.name = name
        self.field = field
        self.file = file
        self._table = load_responses(file) if file is not None else None

    @property
    def answer_ids(self) -> frozenset[str] | None:
        """The item ids the answer file has answers for (None: answers are read from items)."""
        return frozenset(self._table) if self._table is not None else None

    def public(self) -> dict[str, Any]:
        return {"type": self.kind, "field": self.field,
                "file": str(self.file) if self.file else None}

    async def answer(self, item: Item) -> Answer:
        return self.lookup(item)

    def lookup(self, item: Item) -> Answer:
        """The recorded answer, read without waiting (the pipeline's lean path calls this)."""
        found = (self._table.get(item.id) if self._table is not None
                 else answer_from_item(item, self.field))
        if found is None:
            where = f"file {self.file}" if self.file else f"field '{self.field}'"
            return Answer(None, {}, 0.0, None, f"no recorded answer in {where}")
        return found

    async def close(self) -> None:
        pass


def build(ctx: TargetContext, *, name: str, field: str = "response",
          file: str | None = None) -> RecordedTarget:
    path = None
    if file:
        path = ctx.base / str(file)
        with contextlib.suppress(ValueError):  # named as the user would write it
            path = path.relative_to(Path.cwd())
    return RecordedTarget(name, field=str(field), file=path)
