"""Keeping Python's cyclic garbage collector out of the scoring loop's way.

Measured (bench/score_bench.py): with a 100,000-item dataset loaded, every full collection
re-scans all of its objects, and scoring allocates enough small containers (evidence dicts) to
trigger them often — 30 % of the rubric's time went to the collector. The loaded items live for
the whole run, so they are frozen (moved out of the collector's generations, as `gc.freeze`
is meant for), and young collections are made rarer while the loop runs. Both are restored after.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def long_lived_data_frozen(young_threshold: int = 50_000) -> Iterator[None]:
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(young_threshold, thresholds[0]), thresholds[1], thresholds[2])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
