"""`exact`, `contains`, `contains-all`, `contains-any`: the string checks every evaluation tool
starts with (promptfoo's equals/contains, Inspect's match/includes), with the same optional
folds on both sides (case, blanks, punctuation, full-width forms)."""

from __future__ import annotations

from typing import Any

from assay.core.errors import ConfigError
from assay.core.types import Answer, Item, Score, TruthSnapshot

from .base import BuiltinCheck, Normaliser, answer_text, as_text, excerpt


class _Folded(BuiltinCheck):
    def __init__(self, *, expected: Any = None, label: str | None = None,
                 **folds: Any) -> None:
        super().__init__(expected=expected, label=label)
        self.fold = Normaliser.of(self.where, **folds)

    def evidence(self, expected: Any, answer: str) -> dict[str, Any]:
        out: dict[str, Any] = {"expected": expected, "answer": excerpt(answer)}
        if self.fold.applied():
            out["normalised"] = self.fold.applied()
        return out


class Exact(_Folded):
    """The whole answer equals the expected answer (after the folds asked for)."""

    family = "exact"

    def check(self, item: Item, answer: Answer, truth: TruthSnapshot | None = None) -> Score:
        expected = as_text(self.expected_of(item))
        text = answer_text(answer)
        a, e = self.fold(text), self.fold(expected)
        ev = self.evidence(expected, text)
        if a == e:
            return self.score(True, "the answer equals the expected answer", ev)
        at = next((i for i, (x, y) in enumerate(zip(a, e, strict=False)) if x != y),
                  min(len(a), len(e)))
        ev["differs_at"] = at
        return self.score(False, f"the answer differs from the expected answer at character "
                          f"{at}", ev)


class Contains(_Folded):
    """The expected answer appears in the answer."""

    family = "contains"

    def check(self, item: Item, answer: Answer, truth: TruthSnapshot | None = None) -> Score:
        expected = as_text(self.expected_of(item))
        text = answer_text(answer)
        ev = self.evidence(expected, text)
        at = self.fold(text).find(self.fold(expected))
        if at >= 0:
            ev["at"] = at
            return self.score(True, f"the answer contains {expected!r}", ev)
        return self.score(False, f"the answer does not contain {expected!r}", ev)


class _Several(_Folded):
    """`contains-all` / `contains-any`: the expected answer is a list of strings, or one
    string cut at `separator`."""

    def __init__(self, *, expected: Any = None, separator: str | None = None,
                 label: str | None = None, **folds: Any) -> None:
        super().__init__(expected=expected, label=label, **folds)
        if separator is not None and (not isinstance(separator, str) or not separator):
            raise ConfigError(f"{self.where}: 'separator' must be a non-empty string")
        self.separator = separator
        if expected is not None:
            self.values(expected)  # a bad `expected` is a mistake in the spec: say it now

    def values(self, expected: Any) -> list[str]:
        if isinstance(expected, list):
            values = [as_text(v) for v in expected]
        elif isinstance(expected, str) and self.separator is not None:
            values = [v.strip() for v in expected.split(self.separator)]
        else:
            values = [as_text(expected)]
        values = [v for v in values if v.strip()]
        if not values:
            raise ConfigError(f"{self.where}: no values to look for in {expected!r}")
        return values

    def found(self, item: Item, answer: Answer) -> tuple[list[str], list[str], dict[str, Any]]:
        values = self.values(self.expected_of(item))
        text = answer_text(answer)
        folded = self.fold(text)
        found = [v for v in values if self.fold(v) in folded]
        missing = [v for v in values if v not in found]
        ev = self.evidence(values, text)
        ev.update(found=found, missing=missing)
        return found, missing, ev

    def check(self, item: Item, answer: Answer, truth: TruthSnapshot | None = None) -> Score:
        try:
            found, missing, ev = self.found(item, answer)
        except ConfigError as exc:  # this item's reference has nothing to look for
            return self.fail(f"{exc} (item line {item.line})")
        return self.decide(found, missing, ev)

    def decide(self, found: list[str], missing: list[str], ev: dict[str, Any]) -> Score:
        raise NotImplementedError


class ContainsAll(_Several):
    """Every expected string appears in the answer."""

    family = "contains-all"

    def decide(self, found: list[str], missing: list[str], ev: dict[str, Any]) -> Score:
        if not missing:
            return self.score(True, f"the answer contains all {len(found)} expected strings",
                              ev)
        return self.score(False, f"the answer lacks {len(missing)} of {len(found) + len(missing)}"
                          f" expected strings: {', '.join(map(repr, missing))}", ev)


class ContainsAny(_Several):
    """At least one expected string appears in the answer."""

    family = "contains-any"

    def decide(self, found: list[str], missing: list[str], ev: dict[str, Any]) -> Score:
        if found:
            return self.score(True, f"the answer contains {', '.join(map(repr, found))}", ev)
        return self.score(False, f"the answer contains none of {', '.join(map(repr, missing))}",
                          ev)
