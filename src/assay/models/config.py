"""The model registry: a readable YAML file holding, for a key, only the NAME of an environment
variable — never the key itself.

    models:
      deepseek:
        base_url: https://api.deepseek.com/v1
        model: deepseek-chat
        api_key_env: DEEPSEEK_API_KEY
        params: {temperature: 0}
        max_concurrency: 16
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from assay.core import secrets
from assay.core.errors import ConfigError
from assay.core.model_call import HOSTED, Usage
from assay.core.numbers import checked
from assay.core.yamltext import yaml_mapping

DEFAULT_FILE = "assay-models.yaml"
# Base URLs of common OpenAI-compatible endpoints, for `--preset` (the hosted ones are the
# providers a trace names: core/model_call.py).
PRESETS: dict[str, tuple[str, str | None]] = {
    "openai": (HOSTED["openai"], "OPENAI_API_KEY"),
    "deepseek": (HOSTED["deepseek"], "DEEPSEEK_API_KEY"),
    "qwen": (HOSTED["qwen"], "DASHSCOPE_API_KEY"),
    "doubao": (HOSTED["doubao"], "ARK_API_KEY"),
    "moonshot": (HOSTED["moonshot"], "MOONSHOT_API_KEY"),
    "zhipu": (HOSTED["zhipu"], "ZHIPUAI_API_KEY"),
    "ollama": ("http://127.0.0.1:11434/v1", None),
    "vllm": ("http://127.0.0.1:8000/v1", None),
    "llamacpp": ("http://127.0.0.1:8080/v1", None),
}


_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True)
class ModelConfig:
    name: str
    base_url: str
    model: str
    api_key_env: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    max_concurrency: int = 8
    rpm: int | None = None
    timeout_s: float = 60.0
    max_retries: int = 4
    # Optional price table, per million tokens, in any one currency the team uses.
    price_in_per_mtok: float | None = None
    price_out_per_mtok: float | None = None
    # Ask judges' replies as JSON (response_format json_object) — only where the endpoint
    # supports it; the strict parser does not depend on it.
    json_mode: bool = False
    # Stream replies (server-sent events) and assemble them; some endpoints serve certain
    # models only this way. A stream cut before its finish chunk is retried, never judged.
    stream: bool = False

    def cost(self, usage: Usage) -> float | None:
        """What a request that counted `usage` cost; None when the model has no price."""
        if self.price_in_per_mtok is None and self.price_out_per_mtok is None:
            return None
        return ((usage.prompt_tokens or 0) * (self.price_in_per_mtok or 0.0)
                + (usage.completion_tokens or 0) * (self.price_out_per_mtok or 0.0)) / 1e6

    def api_key(self) -> str:
        """The key from the environment, at call time only (it is never stored anywhere)."""
        if not self.api_key_env:
            return "not-needed"  # local servers (vLLM, Ollama, llama.cpp) accept anything
        value = os.environ.get(self.api_key_env)
        if not value:
            raise ConfigError(f"model '{self.name}': environment variable {self.api_key_env} "
                              "is not set")
        secrets.remember(value, self.api_key_env)  # masked wherever an endpoint echoes it
        return value

    def public(self) -> dict[str, Any]:
        """What may be shown, stored in a manifest or exported: everything here is public."""
        return asdict(self)


def models_file(path: str | Path | None = None) -> Path:
    return Path(path or os.environ.get("ASSAY_MODELS") or DEFAULT_FILE)


def load_models(path: str | Path | None = None) -> dict[str, ModelConfig]:
    p = models_file(path)
    if not p.exists():
        return {}
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start}); the model "
                          "registry is a YAML file (see assay models add)") from None
    data = yaml_mapping(text, str(p))
    entries = data.get("models")
    if not isinstance(entries, dict):
        raise ConfigError(f"{p}: expected a 'models:' mapping")
    out = {}
    for name, entry in entries.items():
        if not isinstance(entry, dict):
            raise ConfigError(f"{p}: model '{name}' must be a mapping")
        unknown = set(entry) - {f for f in ModelConfig.__dataclass_fields__ if f != "name"}
        if unknown:
            raise ConfigError(f"{p}: model '{name}': unknown key(s) {', '.join(sorted(unknown))}")
        for key, value in entry.items():
            wanted = _FIELD_TYPES[key]
            if not _is(value, wanted[0]):
                raise ConfigError(f"{p}: model '{name}': field '{key}' must be {wanted[1]}, "
                                  f"not {value!r}")
        try:
            out[str(name)] = validate(ModelConfig(name=str(name), **entry))
        except TypeError as exc:
            raise ConfigError(f"{p}: model '{name}': {exc}") from None
        except ConfigError as exc:  # named with the file it is in
            raise ConfigError(f"{p}: {exc}") from None
    return out


# Each registry field's accepted types, and how an error names them. bool is not an int here.
_FIELD_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "base_url": ((str,), "a URL"), "model": ((str,), "text"),
    "api_key_env": ((str, type(None)), "the name of an environment variable"),
    "params": ((dict,), "a mapping"), "max_concurrency": ((int,), "an integer"),
    "rpm": ((int, type(None)), "an integer"), "timeout_s": ((int, float), "a number"),
    "max_retries": ((int,), "an integer"),
    "price_in_per_mtok": ((int, float, type(None)), "a number"),
    "price_out_per_mtok": ((int, float, type(None)), "a number"),
    "json_mode": ((bool,), "true or false"), "stream": ((bool,), "true or false"),
}


def _is(value: Any, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool):
        return bool in types
    return isinstance(value, types)


def validate(cfg: ModelConfig) -> ModelConfig:
    if not _NAME.match(cfg.name):
        raise ConfigError(f"model name '{cfg.name}' must be letters, digits, '.', '_' or '-'")
    if not re.match(r"^https?://", cfg.base_url):
        raise ConfigError(f"model '{cfg.name}': base URL must start with http:// or https://")
    if not cfg.model:
        raise ConfigError(f"model '{cfg.name}': --model is required")
    if cfg.api_key_env is not None and not _ENV_NAME.match(cfg.api_key_env):
        raise ConfigError(f"model '{cfg.name}': --api-key-env takes the NAME of an environment "
                          f"variable (like DEEPSEEK_API_KEY), not a key")
    if cfg.rpm is not None and cfg.rpm < 1:
        raise ConfigError(f"model '{cfg.name}': --rpm must be at least 1")
    if "stream" in cfg.params or "stream_options" in cfg.params:
        raise ConfigError(f"model '{cfg.name}': use --stream (stream: true), not a stream param")
    if cfg.max_concurrency < 1 or cfg.max_retries < 0:
        raise ConfigError(f"model '{cfg.name}': concurrency ≥ 1, retries ≥ 0")
    # a NaN or negative price would open any budget (a negative cost); a NaN timeout none
    checked(cfg.timeout_s, f"model '{cfg.name}': timeout_s", above=True)
    for key, option in (("price_in_per_mtok", "--price-in"),
                        ("price_out_per_mtok", "--price-out")):
        price = getattr(cfg, key)
        if price is not None:
            checked(price, f"model '{cfg.name}': {key} ({option})")
    return cfg


def save_models(models: dict[str, ModelConfig], path: str | Path | None = None) -> Path:
    p = models_file(path)
    body = {"models": {n: {k: v for k, v in m.public().items() if k != "name"}
                       for n, m in sorted(models.items())}}
    p.write_text("# Assay model registry: keys are referenced by environment-variable name only.\n"
                 + yaml.safe_dump(body, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return p


def get_model(name: str, path: str | Path | None = None) -> ModelConfig:
    models = load_models(path)
    if name not in models:
        close = difflib.get_close_matches(name, models, n=3, cutoff=0.5)
        hint = (f"; did you mean {', '.join(close)}?" if close else
                f"; registered: {', '.join(models) or 'none'} (see assay models add)")
        raise ConfigError(f"unknown model '{name}'{hint}")
    return models[name]
