"""One way to run a module's rewrites: each a named regex substitution behind a cheap gate, and
the names of those that changed something, in order (the evidence's "read after: …")."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

Replacement = str | Callable[[re.Match[str]], str]


class Substitution(Protocol):
    def sub(self, repl: Replacement, string: str) -> str: ...


@dataclass(frozen=True, slots=True)
class Step:
    name: str
    gate: Callable[[str], bool]  # a cheap test: most answers skip the regex
    pattern: Substitution  # a compiled pattern, or LineStarts
    repl: Replacement


class LineStarts:
    """A MULTILINE pattern that starts with `^`, tried only where a line starts. `re` tries such a
    pattern at every character of the text (its first test fails at all but a line's start, but
    each try costs a call into the engine): here `match` is called at offset 0 and after each
    "\n" — the only places `^` holds under MULTILINE — and the search goes on after each match,
    as `finditer` and `sub` do. Same matches, same replacements
    (tests/evaluators/canonical/test_leads.py compares them)."""

    __slots__ = ("_pattern",)

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self._pattern = pattern

    @property
    def pattern(self) -> str:
        return self._pattern.pattern

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        match = self._pattern.match
        pos, n = 0, len(text)
        while pos <= n:
            m = match(text, pos)
            if m is not None:
                yield m
                # on after the match (an empty one: after the place it was found), at the first
                # line start there
                pos = m.end() if m.end() > m.start() else m.start() + 1
                if pos == 0 or pos > n or text[pos - 1] == "\n":
                    continue
            nl = text.find("\n", pos)
            if nl < 0:
                return
            pos = nl + 1

    def search(self, text: str) -> re.Match[str] | None:
        return next(self.finditer(text), None)

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self._pattern.match(text, pos)

    def sub(self, repl: Replacement, string: str) -> str:
        out: list[str] = []
        last = 0
        for m in self.finditer(string):
            out.append(string[last:m.start()])
            out.append(repl(m) if callable(repl) else m.expand(repl))
            last = m.end()
        if not out:
            return string
        out.append(string[last:])
        return "".join(out)


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
