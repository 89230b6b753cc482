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


def has_ascii_letter(text: str) -> bool:
    """Whether `text` holds an ASCII letter, tested in C: a gate for the steps whose words are
    English. Each such word holds a letter that only ASCII matches even under IGNORECASE (of
    the letters, only "s", "k" and "i" have non-ASCII partners: "ſ", "K", "ı"), so text without
    one skips them; a gate of "any letter" let every Chinese answer through."""
    b = text.encode("ascii", "ignore")
    return b.lower() != b.upper()


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
