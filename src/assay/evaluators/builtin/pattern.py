"""`regex`: scores 1 when `re.search` finds the pattern in the answer (promptfoo's regex,
Inspect's pattern). The pattern is compiled when the evaluator is built, so a bad one stops the
spec at load, in one line naming the evaluator."""

from __future__ import annotations

import re
from typing import Any

from assay.core.errors import ConfigError
from assay.core.types import Answer, Item, Score, TruthSnapshot

from .base import BuiltinCheck, answer_text, excerpt

# `flags: "im"` or `flags: [IGNORECASE, MULTILINE]`, as Python names them
_LETTERS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE,
            "a": re.ASCII}
_NAMES = {"IGNORECASE": re.IGNORECASE, "MULTILINE": re.MULTILINE, "DOTALL": re.DOTALL,
          "VERBOSE": re.VERBOSE, "ASCII": re.ASCII}


def parse_flags(value: Any, where: str) -> re.RegexFlag:
    flags = re.RegexFlag(0)
    if value is None:
        return flags
    parts = value if isinstance(value, list) else [value]
    for part in parts:
        if not isinstance(part, str):
            raise ConfigError(f"{where}: 'flags' takes letters (\"im\") or names "
                              f"([IGNORECASE, MULTILINE]), not {part!r}")
        if part.upper() in _NAMES:
            flags |= _NAMES[part.upper()]
            continue
        for letter in part:
            if letter not in _LETTERS:
                raise ConfigError(f"{where}: unknown regex flag {letter!r} (use "
                                  f"{', '.join(_LETTERS)} or {', '.join(_NAMES)})")
            flags |= _LETTERS[letter]
    return flags


class Regex(BuiltinCheck):
    """The answer matches a regular expression somewhere (`re.search`)."""

    family = "regex"
    needs_expected = False

    def __init__(self, *, pattern: Any, flags: Any = None, label: str | None = None) -> None:
        super().__init__(label=label)
        if not isinstance(pattern, str) or not pattern:
            raise ConfigError(f"{self.where}: 'pattern' must be a non-empty string")
        try:
            self.pattern = re.compile(pattern, parse_flags(flags, self.where))
        except re.error as exc:
            raise ConfigError(f"{self.where}: pattern {pattern!r} is not a valid regular "
                              f"expression: {exc}") from None

    def check(self, item: Item, answer: Answer, truth: TruthSnapshot | None = None) -> Score:
        text = answer_text(answer)
        m = self.pattern.search(text)
        ev: dict[str, Any] = {"pattern": self.pattern.pattern, "answer": excerpt(text)}
        if m is None:
            return self.score(False, f"no match for /{self.pattern.pattern}/", ev)
        ev.update(match=m.group(0), span=[m.start(), m.end()])
        if m.groupdict():
            ev["groups"] = m.groupdict()
        elif m.groups():
            ev["groups"] = list(m.groups())
        return self.score(True, f"/{self.pattern.pattern}/ matches {excerpt(m.group(0), 60)!r}",
                          ev)
