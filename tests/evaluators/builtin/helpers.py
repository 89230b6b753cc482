"""Build a check through the registry (as a run does) and score one answer with it."""

from __future__ import annotations

import asyncio
from typing import Any

from assay.core.types import Answer, Item, Score
from assay.evaluators.registry import EVALUATORS


def check(name: str, answer: str | None, reference: Any = None, **args: Any) -> Score:
    ev = EVALUATORS.build(name, **args)
    fields = {"prompt": "q"} if reference is None else {"prompt": "q",
                                                        "reference_output": reference}
    return asyncio.run(ev.evaluate(Item("i1", fields, "v", 3), Answer(answer)))


def value(name: str, answer: str | None, reference: Any = None, **args: Any) -> float | None:
    return check(name, answer, reference, **args).value
