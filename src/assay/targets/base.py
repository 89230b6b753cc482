"""What a target is, to the runner."""

from __future__ import annotations

from typing import Any, Protocol

from assay.core.types import Answer, Item


class Target(Protocol):
    name: str
    kind: str

    def public(self) -> dict[str, Any]:
        """The target's configuration as stored in a run's manifest: never a secret."""
        ...

    async def answer(self, item: Item) -> Answer:
        """The target's answer; a failure is `Answer(text=None, error=…)`, not an exception."""
        ...

    async def close(self) -> None: ...
