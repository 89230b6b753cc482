"""The samples a run has to do: every (item, target, epoch), less what an earlier attempt of
the run already stored (resume), each with the answer and the evaluators already done."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass

from assay.core.types import Answer, Item
from assay.targets.base import Target

from .gc_tuning import building_long_lived_data
from .resume import Prior


@dataclass(slots=True)
class Work:
    """One sample to do, with what an earlier attempt of the run already stored."""

    item: Item
    target: Target
    epoch: int
    prior: Answer | None = None
    # evaluators with a result already; shared and empty for a fresh run's samples (a set
    # per sample was 100,000 more containers for the collector to track)
    done: Set[str] = frozenset()


def work_list(chosen: list[Item], targets: list[Target], repeats: int, prior: Prior | None,
              names: set[str]) -> list[Work]:
    """In order: epoch, then target, then item. `names`: the run's evaluators; a sample with
    its answer and all of them stored is finished."""
    out: list[Work] = []
    with building_long_lived_data():  # one object per sample, kept for the whole run
        for epoch in range(repeats):
            for target in targets:
                for item in chosen:
                    if prior is None:
                        out.append(Work(item, target, epoch))
                        continue
                    key = (item.id, target.name, epoch)
                    done: Set[str] = prior.results.get(key, frozenset())
                    answer = prior.answers.get(key)
                    if answer is not None and names <= done:
                        continue
                    out.append(Work(item, target, epoch, answer, done))
    return out
