"""Target specs → targets. Model targets share the evaluators' client per model, so a model
that both answers and judges has one connection pool and one adaptive limit."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from assay.core.errors import ConfigError
from assay.runner.spec import TargetSpec

from .base import Target


def build_target(spec: TargetSpec, *, client: Callable[[str], Any], base: Path) -> Target:
    o = spec.options
    where = f"target '{spec.name}'"
    try:
        if spec.type == "model":
            from .model import ModelTarget

            return ModelTarget(spec.name, client(str(o["model"])),
                               prompt=str(o.get("prompt", "{prompt}")),
                               system=o.get("system"), params=_mapping(o, "params", where),
                               placeholders_syntax=o.get("placeholders"))
        if spec.type == "http":
            from .http import HttpTarget

            return HttpTarget(spec.name, str(o["url"]), method=str(o.get("method", "POST")),
                              headers={str(k): str(v) for k, v in
                                       _mapping(o, "headers", where).items()},
                              body=o.get("body"), answer_path=str(o.get("answer_path",
                                                                         "$.answer")),
                              extras={str(k): str(v) for k, v in
                                      _mapping(o, "extras", where).items()},
                              timeout_s=float(o.get("timeout_s", 60)))
        if spec.type == "python":
            from .python import PythonTarget

            fn = o["function"]
            return PythonTarget(spec.name, fn if callable(fn) else str(fn), search=base)
        if spec.type == "command":
            from .command import CommandTarget

            return CommandTarget(spec.name, o["command"], timeout_s=float(o.get("timeout_s", 60)),
                                 cwd=base)
        if spec.type == "recorded":
            from .recorded import RecordedTarget

            file = o.get("file")
            return RecordedTarget(spec.name, field=str(o.get("field", "response")),
                                  file=(base / str(file)) if file else None)
        if spec.type == "baseline-quote-agent":
            from assay.truth.capture import Capture, TruthConfig

            from .baseline import BaselineQuoteAgent

            provider = str(o.get("provider", "snapshot"))
            if provider == "snapshot":
                folder = o.get("snapshots")
                if not folder:
                    raise ConfigError(f"{where}: the snapshot provider needs 'snapshots' "
                                      "(a folder of recorded tables)")
                mode = f"snapshot:{folder}" + (f"@{o['date']}" if o.get("date") else "")
            else:
                mode = "live"
            truth = {k: v for k, v in o.items() if k in ("field", "market", "cache_s",
                                                          "min_interval_s", "token_env")}
            if provider != "snapshot":
                truth["provider"] = provider
            return BaselineQuoteAgent(spec.name, Capture(TruthConfig.parse(mode, truth, base)))
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where}: {exc}") from None
    raise ConfigError(f"{where}: unknown type '{spec.type}'")


def _mapping(o: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = o.get(key) or {}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: {key} must be a mapping")
    return value
