"""One model request as Assay keeps it: a target's answer (`Answer.call`) and a judge's
judgment (`Score.call`) carry the same typed record, so every reader — spans, cost sheets,
exports, calibration, the UI — reads the same fields, and a misspelt name is an error mypy
reports instead of a silent None.

What it holds is public: the model asked (its name in the registry, the endpoint's name for it,
the provider), the messages sent, the reply, why it stopped, the tokens counted, every attempt
(retries included), the time taken, whether the response cache answered, what it cost. Never a
key: a model's key is known by the name of its environment variable only, which is in the run's
manifest, not here.

`to_json` is the stored form (the `call` column of answers and results); `from_json` reads it,
and also the dict keys older versions kept in a judge's evidence or a model target's extras, so
rows written before this type existed read the same."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .record import record

# Hosted OpenAI-compatible endpoints by provider: what a trace names `gen_ai.provider.name`.
# The model registry's presets (models/config.py) are built on it.
HOSTED = {
    "openai": "https://api.openai.com/v1",
    "deepseek": "https://api.deepseek.com/v1",
    "qwen": "https://dashscope.aliyuncs.com/compatible-mode/v1",
    "doubao": "https://ark.cn-beijing.volces.com/api/v3",
    "moonshot": "https://api.moonshot.cn/v1",
    "zhipu": "https://open.bigmodel.cn/api/paas/v4",
}


def provider_of(base_url: str) -> str:
    """The provider a trace names: the hosted provider whose endpoint this is, else "openai" —
    the protocol every endpoint here speaks, as OpenAI instrumentors say."""
    url = base_url.rstrip("/")
    for name, endpoint in HOSTED.items():
        if url == endpoint:
            return name
    return "openai"


# The most tokens one request may count: more is no count to trust (and would not fit the
# store's integer columns)
MAX_TOKENS = 2**31 - 1


def _count(value: Any) -> int | None:
    """A token count to trust: an integer from 0 to MAX_TOKENS (not a bool); anything else is
    unknown."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKENS:
        return value
    return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _seconds(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


# frozen at run time, unlike the call: a call's default usage is one shared instance, and a
# dataclass takes only a hashable (frozen) instance as a default
@dataclass(frozen=True, slots=True)
class Usage:
    """The tokens a request counted, as the provider reported them. `prompt_tokens` are the
    input tokens (GenAI's `gen_ai.usage.input_tokens`), `completion_tokens` the output ones;
    `total_tokens` is the reported total (see `total`). Other counts a provider reports (cache
    hits, reasoning tokens) are kept in `other` under its own names. None: not reported."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    other: Mapping[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int | None:
        """The reported total, else input + output when both are known."""
        if self.total_tokens is not None:
            return self.total_tokens
        if self.prompt_tokens is not None and self.completion_tokens is not None:
            return _count(self.prompt_tokens + self.completion_tokens)
        return None

    @property
    def empty(self) -> bool:
        return (self.prompt_tokens is None and self.completion_tokens is None
                and self.total_tokens is None and not self.other)

    def to_json(self) -> dict[str, int]:
        """The OpenAI shape (`prompt_tokens`, `completion_tokens`, `total_tokens` and the
        provider's other counts): what was stored before this type, and what caches hold."""
        out: dict[str, int] = {}
        if self.prompt_tokens is not None:
            out["prompt_tokens"] = self.prompt_tokens
        if self.completion_tokens is not None:
            out["completion_tokens"] = self.completion_tokens
        if self.total_tokens is not None:
            out["total_tokens"] = self.total_tokens
        for k, v in self.other.items():
            out.setdefault(k, v)
        return out

    @classmethod
    def from_json(cls, data: Any) -> Usage:
        """A reported usage: OpenAI's names or GenAI's (`input_tokens`, `output_tokens`).
        Only whole numbers from 0 to MAX_TOKENS are counts (a negative one made a negative
        cost and opened any budget); anything else is dropped as unknown, never an error."""
        if isinstance(data, Usage):
            return data
        if not isinstance(data, Mapping) or not data:
            return NO_USAGE
        prompt = _count(data.get("prompt_tokens"))
        if prompt is None:
            prompt = _count(data.get("input_tokens"))
        completion = _count(data.get("completion_tokens"))
        if completion is None:
            completion = _count(data.get("output_tokens"))
        other = {k: n for k, v in data.items() if isinstance(k, str) and k not in _USAGE_KEYS
                 and (n := _count(v)) is not None}
        return cls(prompt, completion, _count(data.get("total_tokens")), other)


_USAGE_KEYS = frozenset({"prompt_tokens", "input_tokens", "completion_tokens", "output_tokens",
                         "total_tokens"})
NO_USAGE = Usage()


@record
class Attempt:
    """One try of a request: how it ended (`ok`, `429: …`, `timeout after 60 s`, `empty
    reply` …), when it started and ended (wall-clock seconds, for its span), and the wait
    before the next try when there was one."""

    outcome: str
    start: float | None = None
    end: float | None = None
    retry_in_s: float | None = None

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"outcome": self.outcome}
        if self.start is not None:
            out["start"] = self.start
        if self.end is not None:
            out["end"] = self.end
        if self.retry_in_s is not None:
            out["retry_in_s"] = self.retry_in_s
        return out

    @classmethod
    def from_json(cls, data: Any) -> Attempt:
        if isinstance(data, Attempt):
            return data
        if not isinstance(data, Mapping):
            return cls(str(data))
        return cls(str(data.get("outcome", "")), _seconds(data.get("start")),
                   _seconds(data.get("end")), _seconds(data.get("retry_in_s")))


@record
class ModelCall:
    """One model request (with its retries). `model` is the model asked for, as the endpoint
    names it (`gen_ai.request.model`); `name` the model's entry in the registry
    (assay-models.yaml), which the run's manifest describes; `response_model` the model that
    answered, as its response says. `cost` is None when the model has no price; a reply from
    the response cache costs 0. `sanitized`: characters no store can keep were replaced in the
    reply (see core/text.py)."""

    model: str
    provider: str = ""
    messages: tuple[Mapping[str, Any], ...] = ()
    reply: str | None = None
    finish_reason: str | None = None
    usage: Usage = NO_USAGE
    attempts: tuple[Attempt, ...] = ()
    latency_s: float | None = None
    cached: bool = False
    cost: float | None = None
    response_model: str | None = None
    name: str = ""
    cache_key: str | None = None
    sanitized: bool = False

    @property
    def answered(self) -> bool:
        """Whether a try ended with a reply (its span carries the reply and the tokens)."""
        return any(a.ok for a in self.attempts)

    @classmethod
    def reported(cls, usage: Any, model: Any = None) -> ModelCall | None:
        """What an agent (an HTTP or Python target) reported of the model work behind its
        answer: its token counts and the model it names; None when it reported no count."""
        counted = Usage.from_json(usage)
        if counted.empty:
            return None
        return cls(model=model if isinstance(model, str) else "", usage=counted)

    def to_json(self) -> dict[str, Any]:
        """The stored form: every field under its own name (optional ones only when set)."""
        out: dict[str, Any] = {
            "model": self.model, "provider": self.provider,
            "messages": [dict(m) for m in self.messages], "reply": self.reply,
            "finish_reason": self.finish_reason, "usage": self.usage.to_json(),
            "attempts": [a.to_json() for a in self.attempts], "latency_s": self.latency_s,
            "cached": self.cached, "cost": self.cost}
        if self.response_model is not None:
            out["response_model"] = self.response_model
        if self.name:
            out["name"] = self.name
        if self.cache_key is not None:
            out["cache_key"] = self.cache_key
        if self.sanitized:
            out["sanitized"] = True
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ModelCall:
        """A stored call — `to_json`'s form, or the keys older versions kept: a judge's
        evidence (`model` the registry entry as a dict) or a model target's extras
        (`model` the registry name, `request_model` the endpoint's). Values of the wrong
        type are read as unknown, never an error."""
        if isinstance(data, ModelCall):
            return data
        model_field = data.get("model")
        if isinstance(model_field, Mapping):  # a judge's evidence before ModelCall
            model = _text(model_field.get("model")) or _text(model_field.get("name")) or ""
            name = _text(model_field.get("name")) or ""
            provider = _text(data.get("provider")) or provider_of(
                _text(model_field.get("base_url")) or "")
        elif "request_model" in data:  # a model target's extras before ModelCall
            model = _text(data.get("request_model")) or _text(model_field) or ""
            name = _text(model_field) or ""
            provider = _text(data.get("provider")) or "openai"
        else:
            model = _text(model_field) or ""
            name = _text(data.get("name")) or ""
            provider = _text(data.get("provider")) or ""
        messages = data.get("messages")
        attempts = data.get("attempts")
        return cls(
            model=model, provider=provider,
            messages=tuple(m for m in messages if isinstance(m, Mapping))
            if isinstance(messages, Sequence) and not isinstance(messages, str) else (),
            reply=_text(data.get("reply")), finish_reason=_text(data.get("finish_reason")),
            usage=Usage.from_json(data.get("usage")),
            attempts=tuple(Attempt.from_json(a) for a in attempts)
            if isinstance(attempts, Sequence) and not isinstance(attempts, str) else (),
            latency_s=_seconds(data.get("latency_s")), cached=data.get("cached") is True,
            cost=_seconds(data.get("cost")), response_model=_text(data.get("response_model")),
            name=name, cache_key=_text(data.get("cache_key")),
            sanitized=data.get("sanitized") is True)

