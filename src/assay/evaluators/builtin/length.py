"""`length`: the answer's length within `min`/`max`, counted in characters or in words. Words
are runs of letters and digits in spaced scripts, and each Chinese/Japanese/Korean character on
its own (those scripts do not space their words), so a limit means the same in both."""

from __future__ import annotations

import re
from typing import Any

from assay.core.errors import ConfigError
from assay.core.types import Answer, Item, Score, TruthSnapshot

from .base import BuiltinCheck, answer_text, excerpt, flag

UNITS = ("chars", "words")
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_WORDS = re.compile(f"[{_CJK}]|[^\\s{_CJK}]+")


def count(text: str, unit: str) -> int:
    return len(text) if unit == "chars" else len(_WORDS.findall(text))


def _bound(name: str, value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{where}: '{name}' must be a whole number ≥ 0, not {value!r}")
    return value


class Length(BuiltinCheck):
    """The answer is at least `min` and at most `max` characters (or words) long."""

    family = "length"
    needs_expected = False

    def __init__(self, *, min: Any = None, max: Any = None, unit: str = "chars",
                 strip: bool = True, label: str | None = None) -> None:
        super().__init__(label=label)
        self.min = _bound("min", min, self.where)
        self.max = _bound("max", max, self.where)
        if self.min is None and self.max is None:
            raise ConfigError(f"{self.where} needs 'min', 'max' or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ConfigError(f"{self.where}: 'min' ({self.min}) is above 'max' ({self.max})")
        if unit not in UNITS:
            raise ConfigError(f"{self.where}: 'unit' must be chars or words, not {unit!r}")
        self.unit = unit
        self.strip = flag("strip", strip, self.where)

    def check(self, item: Item, answer: Answer, truth: TruthSnapshot | None = None) -> Score:
        text = answer_text(answer)
        n = count(text.strip() if self.strip else text, self.unit)
        ev: dict[str, Any] = {"length": n, "unit": self.unit, "min": self.min, "max": self.max,
                              "answer": excerpt(text)}
        if self.min is not None and n < self.min:
            return self.score(False, f"{n} {self.unit}, fewer than the minimum {self.min}", ev)
        if self.max is not None and n > self.max:
            return self.score(False, f"{n} {self.unit}, more than the maximum {self.max}", ev)
        return self.score(True, f"{n} {self.unit}, within the limits", ev)
