"""What an evaluator is, to the pipeline: one async protocol that declares everything the
pipeline calls, so nothing is discovered with `hasattr`.

Code evaluators (the rubric, checks) decide synchronously and deterministically: they subclass
`CodeEvaluator` and write `check`; the pipeline awaits `evaluate`, which for them never
suspends, so a 100,000-item score run pays one coroutine per call and no task or thread.
Model judges make requests: they set `deterministic = False`, return the prompts they will send
(checked for every item before any call), and report their sub-steps (render, requests, parse)
as typed `Step`s on the score rather than as string keys in the evidence.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from assay.core.types import Answer, Item, Score, TruthSnapshot


@runtime_checkable
class Evaluator(Protocol):
    name: str
    requires: tuple[str, ...]  # item fields it reads; checked once at load, not per item
    # Same inputs → same score: replay expects every stored score to reproduce.
    deterministic: bool
    # It reads the ground truth: when the run could not capture it, its result is an error
    # saying so, not a judgment against nothing.
    uses_truth: bool

    @property
    def version(self) -> str: ...

    @property
    def concurrency(self) -> int:
        """Requests this evaluator can have in flight (a judge: its endpoint's limit); 1 for
        code, which never waits."""

    def lacking(self, item: Item) -> list[str]:
        """The fields this item lacks for this evaluator (`requires`, and any the item's own
        kind needs: a T1 item its ground truth)."""

    def prompts(self, item: Item, answer: Answer) -> list[dict[str, str]] | None:
        """The messages this evaluator would send for the item, or None when it sends none.
        Raises ConfigError when the item cannot fill its template."""

    async def evaluate(self, item: Item, answer: Answer,
                       truth: TruthSnapshot | None = None) -> Score:
        """The verdict; `truth` is the snapshot captured for the sample (live or snapshot runs)
        or None, when the item's own `ground_truth` field is the truth."""

    async def close(self) -> None: ...


class CodeEvaluator:
    """Base of evaluators that decide in code: pure, synchronous, deterministic."""

    name: str = ""
    requires: tuple[str, ...] = ()
    deterministic = True
    uses_truth = False
    concurrency = 1

    @property
    def version(self) -> str:
        raise NotImplementedError

    def check(self, item: Item, answer: Answer, truth: TruthSnapshot | None = None) -> Score:
        raise NotImplementedError

    def lacking(self, item: Item) -> list[str]:
        return missing_fields(self.requires, item)

    def prompts(self, item: Item, answer: Answer) -> list[dict[str, str]] | None:
        return None

    async def evaluate(self, item: Item, answer: Answer,
                       truth: TruthSnapshot | None = None) -> Score:
        return self.check(item, answer, truth)

    async def close(self) -> None:
        return None


def missing_fields(names: tuple[str, ...], item: Item) -> list[str]:
    return [n for n in names if n not in item.fields]
