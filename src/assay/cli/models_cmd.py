"""`assay models add|list|show|test|remove`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import yaml
from rich.console import Console
from rich.table import Table

from assay.core.errors import ConfigError
from assay.models.config import (
    PRESETS,
    ModelConfig,
    get_model,
    load_models,
    models_file,
    save_models,
    validate,
)

from .terminal import escape


def _params(specs: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for spec in specs:
        key, sep, value = spec.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--param takes KEY=VALUE, got '{spec}'")
        # YAML scalars: 0 → int, 0.2 → float, true → bool, text stays text
        out[key.strip()] = yaml.safe_load(value) if value.strip() else ""
    return out


def add_model(*, name: str, model: str, base_url: str | None, preset: str | None,
              api_key_env: str | None, params: list[str], max_concurrency: int,
              rpm: int | None, timeout: float, max_retries: int, replace: bool,
              models_file: Path | None, price_in: float | None = None,
              price_out: float | None = None, json_mode: bool = False,
              stream: bool = False) -> None:
    if preset is not None:
        if preset not in PRESETS:
            raise ConfigError(f"unknown preset '{preset}'; known: {', '.join(PRESETS)}")
        preset_url, preset_env = PRESETS[preset]
        base_url = base_url or preset_url
        api_key_env = api_key_env or preset_env
    if base_url is None:
        raise ConfigError("give --base-url URL or --preset NAME")
    models = load_models(models_file)
    if name in models and not replace:
        raise ConfigError(f"model '{name}' exists; use --replace to overwrite it")
    models[name] = validate(ModelConfig(name, base_url, model, api_key_env, _params(params),
                                        max_concurrency, rpm, timeout, max_retries, price_in,
                                        price_out, json_mode, stream))
    path = save_models(models, models_file)
    Console().print(f"model [bold]{escape(name)}[/] saved in {path}"
                    + (f" (key read from ${api_key_env} at call time)" if api_key_env else ""))


def list_models(path: Path | None) -> None:
    models = load_models(path)
    console = Console()
    if not models:
        console.print(f"no models in {models_file(path)} (add one with: assay models add)")
        return
    table = Table(title=str(models_file(path)))
    for col in ("name", "model", "base URL", "key variable", "concurrency"):
        table.add_column(col)
    for m in models.values():
        table.add_row(m.name, m.model, m.base_url, m.api_key_env or "–", str(m.max_concurrency))
    console.print(table)


def show_model(name: str, path: Path | None) -> None:
    Console().print(escape(yaml.safe_dump(get_model(name, path).public(), allow_unicode=True,
                                          sort_keys=False)))


def remove_model(name: str, path: Path | None) -> None:
    models = load_models(path)
    get_model(name, path)
    del models[name]
    save_models(models, path)
    Console().print(f"model [bold]{escape(name)}[/] removed")


def test_model(name: str, prompt: str, path: Path | None) -> int:
    from assay.models.client import ModelClient

    cfg = get_model(name, path)

    async def go() -> Any:
        async with ModelClient(cfg) as client:
            return await client.chat([{"role": "user", "content": prompt}])

    c = asyncio.run(go())
    console = Console()
    if c.error:
        console.print(f"[red]{escape(name)} failed[/] after {c.latency_s:.2f} s: "
                      f"{escape(c.error)}")
        return 1
    console.print(f"{escape(name)}: {c.latency_s * 1000:.0f} ms, tokens {c.usage.to_json()}, "
                  f"retries {c.retries}")
    console.print(escape(c.text or ""))
    return 0
