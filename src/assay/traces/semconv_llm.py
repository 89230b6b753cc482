"""A model request's span attributes, by both conventions (see `semconv`): what every attempt
carries (`request`), what the answered one adds (`reply`) — for a model target's request and a
judge's — and the stored messages expanded to the conventions' copies as the span leaves
(`expand`)."""

from __future__ import annotations

from typing import Any

import orjson
from openinference.semconv.trace import SpanAttributes
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai

from assay.core.types import Answer
from assay.models.config import provider_of

from .semconv import (
    CHAT,
    CONTENT,
    IN,
    IN_MIME,
    KIND,
    LLM,
    OUT,
    OUT_MIME,
    ROLE,
    TEXT,
    clip,
    flat_messages,
    io_value,
)

# Assay's own key for a model request's messages as stored (see `request` and `expand`)
MESSAGES = "messages"


def _parts(text: str) -> list[dict[str, str]]:
    return [{"type": "text", "content": clip(text)}]


def request(model: str, provider: str, messages: list[Any] | None, *,
            response_model: str | None = None) -> dict[str, Any]:
    """What every attempt of one model request carries: the request (model, provider) by both
    conventions, and the messages sent, stored once (`expand` gives their conventions)."""
    attrs: dict[str, Any] = {
        KIND: LLM, gen_ai.GEN_AI_OPERATION_NAME: CHAT, gen_ai.GEN_AI_REQUEST_MODEL: model,
        gen_ai.GEN_AI_PROVIDER_NAME: provider,
        # the name the installed convention replaced by provider.name; older viewers read it
        gen_ai.GEN_AI_SYSTEM: provider,
        SpanAttributes.LLM_MODEL_NAME: response_model or model,
        SpanAttributes.LLM_PROVIDER: provider, SpanAttributes.LLM_SYSTEM: provider}
    if response_model:
        attrs[gen_ai.GEN_AI_RESPONSE_MODEL] = response_model
    if messages:
        # kept once; the conventions' three copies are made when the span leaves (`expand`):
        # a judge's prompt is KBs, and writing it four times cost ~15 % of a judge run
        attrs[MESSAGES] = [{"role": str(m.get("role", "")),
                            "content": clip(str(m.get("content", "")))}
                           for m in messages if isinstance(m, dict)]
    return attrs


def expand(attrs: dict[str, Any]) -> dict[str, Any]:
    """A stored span's attributes as they leave Assay (the OTLP export): a model request's
    messages, kept once as `messages`, by both conventions — OpenInference's flattened
    `llm.input_messages.N.*` and `input.value`, GenAI's `gen_ai.input.messages` (its JSON
    "parts" shape) with system messages as `gen_ai.system_instructions`."""
    messages = attrs.get(MESSAGES)
    if not isinstance(messages, list) or attrs.get(KIND) != LLM:
        return attrs
    out = {k: v for k, v in attrs.items() if k != MESSAGES}
    flat_messages(out, SpanAttributes.LLM_INPUT_MESSAGES, messages)
    io_value(out, IN, IN_MIME, messages)
    system: list[dict[str, Any]] = []
    chat: list[dict[str, Any]] = []
    for m in messages:
        if isinstance(m, dict):
            (system if m.get("role") == "system" else chat).append(m)
    if system:
        out[gen_ai.GEN_AI_SYSTEM_INSTRUCTIONS] = orjson.dumps(
            [p for m in system for p in _parts(str(m.get("content", "")))]).decode()
    out[gen_ai.GEN_AI_INPUT_MESSAGES] = orjson.dumps(
        [{"role": m.get("role"), "parts": _parts(str(m.get("content", "")))}
         for m in chat]).decode()
    return out


def reply(text: str | None, usage: dict[str, Any] | None, finish: str | None
          ) -> dict[str, Any]:
    """What the attempt that was answered adds: the reply and the token counts."""
    attrs: dict[str, Any] = {}
    if text is not None:
        attrs[OUT], attrs[OUT_MIME] = clip(text), TEXT
        out = SpanAttributes.LLM_OUTPUT_MESSAGES
        attrs[f"{out}.0.{ROLE}"] = "assistant"
        attrs[f"{out}.0.{CONTENT}"] = attrs[OUT]
        message: dict[str, Any] = {"role": "assistant", "parts": _parts(text)}
        if finish:
            message["finish_reason"] = finish
        attrs[gen_ai.GEN_AI_OUTPUT_MESSAGES] = orjson.dumps([message]).decode()
    if finish:
        attrs[gen_ai.GEN_AI_RESPONSE_FINISH_REASONS] = [finish]
    usage = usage or {}
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if isinstance(prompt, int):
        attrs[gen_ai.GEN_AI_USAGE_INPUT_TOKENS] = prompt
        attrs[SpanAttributes.LLM_TOKEN_COUNT_PROMPT] = prompt
    if isinstance(completion, int):
        attrs[gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS] = completion
        attrs[SpanAttributes.LLM_TOKEN_COUNT_COMPLETION] = completion
    total = usage.get("total_tokens")
    if not isinstance(total, int) and isinstance(prompt, int) and isinstance(completion, int):
        total = prompt + completion
    if isinstance(total, int):
        attrs[SpanAttributes.LLM_TOKEN_COUNT_TOTAL] = total
    return attrs


def target_request(answer: Answer) -> tuple[dict[str, Any], dict[str, Any]]:
    """A model target's request attributes and its answered attempt's."""
    ex = answer.extras
    model = str(ex.get("request_model") or ex.get("model") or "")
    messages = ex.get("messages")
    common = request(model, str(ex.get("provider") or "openai"),
                     messages if isinstance(messages, list) else None,
                     response_model=ex.get("response_model"))
    return common, reply(answer.text, answer.usage, ex.get("finish_reason"))


def judge_request(evidence: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A judge's request attributes and its answered attempt's, from the score's evidence."""
    cfg = evidence.get("model")
    cfg = cfg if isinstance(cfg, dict) else {}
    messages = evidence.get("messages")
    common = request(str(cfg.get("model") or cfg.get("name") or ""),
                     provider_of(str(cfg.get("base_url") or "")),
                     messages if isinstance(messages, list) else None,
                     response_model=evidence.get("response_model"))
    return common, reply(evidence.get("reply"), evidence.get("usage"),
                         evidence.get("finish_reason"))
