"""Evaluator names → evaluators, for `assay score`, `assay run`, replay and the Python API,
through the evaluator registry.

`NAME@MODEL` (or a default judge model) gives a model judge its model; one client per model,
created inside the running event loop and closed at the end. A template file may stand for a
name (`-e my-judge.md@MODEL`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from assay.core.errors import ConfigError
from assay.core.registry import Built
from assay.store.db import Engine

from .base import Evaluator
from .builtin.custom import PREFIX, split_ref
from .registry import EVALUATORS

TEMPLATE_SUFFIXES = (".md", ".yaml", ".yml")


JUDGE_KINDS = ("judge", "judge template", "jury")


def is_model_judge(stored_name: str) -> bool:
    """Whether a run's evaluator (as stored: `NAME@MODEL`, a template file `PATH.md@MODEL`,
    `jury-majority`) is an LLM judge or a jury of them: what a calibration measures against
    the rules. A name the registry no longer knows counts as a judge only when it names a
    model (a project template since removed); hybrids and code evaluators do not count."""
    name, at, _ = stored_name.partition("@")
    try:
        return EVALUATORS.entry(name).kind in JUDGE_KINDS
    except ConfigError:
        return bool(at)


class EvaluatorFactory:
    """The context evaluators are built in: the store (for the response cache), the default
    judge model and the model clients, shared with the run's model targets."""

    def __init__(self, engine: Engine, *, judge_model: str | None = None,
                 use_cache: bool = True, models_file: Path | None = None,
                 fresh: bool = False) -> None:
        self.engine = engine
        self.fresh = fresh
        self.judge_model = judge_model
        self.use_cache = use_cache
        self.models_file = models_file
        self.clients: dict[str, Any] = {}

    def build(self, spec: str, mapping: Mapping[str, str] | None = None,
              options: Mapping[str, Any] | None = None) -> Evaluator:
        """`options`: the entry's own arguments (`{name: numeric, args: {abs: 0.01}}`)."""
        if spec.startswith(PREFIX) and not options:  # python:FILE:FUNCTION, from the cwd
            path, function = split_ref(spec.removeprefix(PREFIX))
            spec, options = "python", {"path": str(Path(path).resolve()), "function": function}
        name, _, model = spec.partition("@")
        args: dict[str, Any] = dict(options or {})
        try:
            entry = EVALUATORS.entry(name)
        except ConfigError:
            if Path(name).suffix.lower() not in TEMPLATE_SUFFIXES or not Path(name).exists():
                raise
            entry, args["path"] = EVALUATORS.entry("judge-file"), name
        if entry.kind == "jury":
            raise ConfigError(f"'{name}' combines the run's model judges: give the judges "
                              f"and --jury {name.removeprefix('jury-')}")
        takes = {a.name for a in EVALUATORS.arguments(entry) or ()}
        if model and "model" not in takes:
            raise ConfigError(f"evaluator '{name}' calls no model: write it without @{model}")
        if model or (self.judge_model and "model" in takes):
            args["model"] = model or self.judge_model
        if mapping:
            if "mapping" not in takes:
                raise ConfigError(f"evaluator '{name}' takes no variable mapping")
            args["mapping"] = dict(mapping)
        built: Evaluator = EVALUATORS.build(entry.name, self, **args)
        return built

    def rebuild(self, record: Built | Mapping[str, Any]) -> Evaluator:
        """An evaluator as its build record (in a run's manifest) describes it."""
        built: Evaluator = EVALUATORS.rebuild(record, self)
        return built

    def client(self, model: str) -> Any:
        if model not in self.clients:
            from assay.models.client import ModelClient
            from assay.models.config import get_model

            self.clients[model] = ModelClient(get_model(model, self.models_file))
        return self.clients[model]

    def response_cache(self) -> Any:
        """A cache per judge, as before: it reads only when the run is not `--fresh`."""
        if not self.use_cache:
            return None
        from assay.models.cache import ResponseCache

        return ResponseCache(self.engine, read=not self.fresh)

    def public_models(self) -> dict[str, Any]:
        return {name: client.cfg.public() for name, client in self.clients.items()}

    async def close(self) -> None:
        for client in self.clients.values():
            await client.close()
