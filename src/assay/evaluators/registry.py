"""Name → evaluator factory. Strict: no silent overwrite, and an unknown name suggests the
closest known ones."""

from __future__ import annotations

import difflib
from collections.abc import Callable

from assay.core.errors import ConfigError

from .base import Evaluator

Factory = Callable[[], Evaluator]
_FACTORIES: dict[str, Factory] = {}


def register(name: str, factory: Factory) -> None:
    if name in _FACTORIES and _FACTORIES[name] is not factory:
        raise ConfigError(f"evaluator '{name}' is already registered")
    _FACTORIES[name] = factory


def names() -> list[str]:
    _builtins()
    return sorted(_FACTORIES)


def get(name: str) -> Evaluator:
    _builtins()
    factory = _FACTORIES.get(name)
    if factory is None:
        close = difflib.get_close_matches(name, _FACTORIES, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else (
            f"; known: {', '.join(sorted(_FACTORIES))}")
        raise ConfigError(f"unknown evaluator '{name}'{hint}")
    return factory()


def _builtins() -> None:
    if "finance-rubric" not in _FACTORIES:
        from .rubric.evaluator import FinanceRubric

        def finance_rubric() -> Evaluator:
            return FinanceRubric()

        register("finance-rubric", finance_rubric)
