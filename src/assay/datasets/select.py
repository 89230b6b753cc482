"""Which items of a dataset a run takes: a filter, then a seeded sample, then the first N —
each in the dataset's own order, so a selection is reproducible from the run's manifest."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from assay.core.types import Item


def select_items(items: Sequence[Item], *, filter: Mapping[str, Any] | None = None,
                 sample: int | None = None, seed: int = 0,
                 limit: int | None = None) -> list[Item]:
    """Keep items whose field equals a value (or one of a list of values), then `sample` of
    them drawn with `seed`, then the first `limit`."""
    chosen = list(items)
    for name, wanted in (filter or {}).items():
        allowed = {str(w) for w in wanted} if isinstance(wanted, list) else {str(wanted)}

        def keep(it: Item, name: str = name, allowed: set[str] = allowed) -> bool:
            value = it.fields.get(name)
            values = value if isinstance(value, list) else [value]
            return any(str(v) in allowed for v in values if v is not None)

        chosen = [it for it in chosen if keep(it)]
    if sample is not None and sample < len(chosen):
        picked = set(random.Random(seed).sample(range(len(chosen)), sample))
        chosen = [it for n, it in enumerate(chosen) if n in picked]
    return chosen[:limit] if limit else chosen
