"""A regular expression compiled the first time it is used, for modules whose patterns are
mostly not needed: the canonical form's rewrites sit behind cheap gates (a `{`, a `<think>`, a
full-width digit), so most answers, and most short runs, never call most of them, yet compiling
them all at import was a fifth of `assay score`'s start-up (BENCHMARKS.md, twelfth session).

After the first use the compiled pattern's bound methods sit in the instance's own attributes,
so a call costs what it costs on the compiled pattern itself."""

from __future__ import annotations

import re
from typing import Any, cast

_METHODS = ("search", "match", "fullmatch", "sub", "subn", "finditer", "findall", "split")


class _Lazy:
    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self.flags = flags

    def __getattr__(self, name: str) -> Any:
        # Only for attributes not yet set: the methods and `groups`, `groupindex` before the
        # first use (`pattern` and `flags` are set above; `flags` as given, not re's own).
        if name.startswith("__"):
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self.flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        self.groups = compiled.groups
        self.groupindex = compiled.groupindex
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r}, {self.flags})"


def lazy(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, done on first use. Typed as the pattern it stands for;
    pass `.pattern` (not the object) to `re` functions that take a pattern."""
    return cast("re.Pattern[str]", _Lazy(pattern, int(flags)))
