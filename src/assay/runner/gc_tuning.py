"""Keeping Python's cyclic garbage collector out of a run's way.

Measured (bench/score_bench.py): with a 100,000-item dataset loaded, every full collection
re-scans all of its objects, and scoring allocates enough small containers (evidence dicts) to
trigger them often — 30 % of the rubric's time went to the collector. The loaded items live for
the whole run, so they are frozen (moved out of the collector's generations, as `gc.freeze`
is meant for), and young collections are made rarer while the loop runs. Both are restored after.

Building that data is the other half: loading, storing and listing 100,000 items allocates
millions of containers, none of them garbage, and the collector ran full collections over the
growing heap nine times on the way (a quarter of a 100,000-item score run's time without the
rubric, bench/score_pipeline_cpu.py). It is paused while they are built: they hold no cycles,
and what the pause leaves for it is collected once it resumes.
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


@contextmanager
def building_long_lived_data() -> Iterator[None]:
    """The collector paused for the block (as it was before, after it; re-entrant)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
