"""What an evaluator is, to the runner."""

from __future__ import annotations

from typing import Protocol

from assay.core.types import Answer, Item, Score


class Evaluator(Protocol):
    name: str
    requires: tuple[str, ...]  # item fields it reads; checked once at load, not per item

    @property
    def version(self) -> str: ...

    def evaluate(self, item: Item, answer: Answer) -> Score: ...
