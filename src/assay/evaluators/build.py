"""Evaluator names → evaluators, for `assay score`, `assay run`, replay and the Python API.

`TEMPLATE@MODEL` (or a default judge model) makes a model judge; one client per model, created
inside the running event loop and closed at the end."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from assay.core.errors import ConfigError
from assay.store.db import Engine

from . import registry
from .base import Evaluator


class EvaluatorFactory:
    def __init__(self, engine: Engine, *, judge_model: str | None = None,
                 use_cache: bool = True, models_file: Path | None = None,
                 fresh: bool = False) -> None:
        self.engine = engine
        self.fresh = fresh
        self.judge_model = judge_model
        self.use_cache = use_cache
        self.models_file = models_file
        self.clients: dict[str, Any] = {}

    def build(self, spec: str, mapping: Mapping[str, str] | None = None) -> Evaluator:
        name, _, model = spec.partition("@")
        if not model and name in registry.names():
            if mapping:
                raise ConfigError(f"evaluator '{name}' takes no variable mapping")
            return registry.get(name)
        from assay.models.cache import ResponseCache

        from .judge.evaluator import JudgeEvaluator

        model = model or self.judge_model or ""
        cache = ResponseCache(self.engine, read=not self.fresh) if self.use_cache else None
        if name == "finance-hybrid":
            if not model:
                raise ConfigError("finance-hybrid reads answers with a model: give "
                                  "--judge-model MODEL or write finance-hybrid@MODEL")
            from .hybrid import FinanceHybrid

            return FinanceHybrid(self.client(model), cache)
        template = None if name == "item-judge" else template_or_hint(name)
        if not model:
            raise ConfigError(f"evaluator '{name}' is an LLM judge: give --judge-model MODEL "
                              f"or write {name}@MODEL")
        if template is not None and mapping:
            unknown = sorted(set(mapping) - set(template.variables))
            if unknown:
                raise ConfigError(f"evaluator '{spec}': mapping names variable(s) the template "
                                  f"does not have: {', '.join(unknown)} (it has "
                                  f"{', '.join(template.variables)})")
        return JudgeEvaluator(template, self.client(model), cache=cache, mapping=mapping)

    def client(self, model: str) -> Any:
        if model not in self.clients:
            from assay.models.client import ModelClient
            from assay.models.config import get_model

            self.clients[model] = ModelClient(get_model(model, self.models_file))
        return self.clients[model]

    def public_models(self) -> dict[str, Any]:
        return {name: client.cfg.public() for name, client in self.clients.items()}

    async def close(self) -> None:
        for client in self.clients.values():
            await client.close()


def template_or_hint(name: str) -> Any:
    from .judge.templates import get_template, load_template, template_paths

    paths = template_paths()  # scanned once; get_template would scan them all again
    if name in paths:
        return load_template(paths[name])
    if Path(name).exists():
        return get_template(name)
    known = [*registry.names(), *paths, "item-judge", "finance-hybrid"]
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else f"; known: {', '.join(known)}"
    raise ConfigError(f"unknown evaluator '{name}'{hint}")
