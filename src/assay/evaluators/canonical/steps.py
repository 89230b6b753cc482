"""One way to run a module's rewrites: each a named regex substitution behind a cheap gate, and
the names of those that changed something, in order (the evidence's "read after: …")."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

Replacement = str | Callable[[re.Match[str]], str]


@dataclass(frozen=True, slots=True)
class Step:
    name: str
    gate: Callable[[str], bool]  # a cheap test: most answers skip the regex
    pattern: re.Pattern[str]
    repl: Replacement


def apply(text: str, steps: tuple[Step, ...]) -> tuple[str, list[str]]:
    done: list[str] = []
    for step in steps:
        if not step.gate(text):
            continue
        new = step.pattern.sub(step.repl, text)
        if new != text:
            text = new
            if step.name not in done:
                done.append(step.name)
    return text, done
