"""A model request's span attributes, by both conventions (see `semconv`): what every attempt
carries (`request`), what the answered one adds (`reply`) — for a model target's request and a
judge's — and the stored messages expanded to the conventions' copies as the span leaves
(`expand`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from openinference.semconv.trace import SpanAttributes
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai

from assay.core.model_call import ModelCall, Usage

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


def request(model: str, provider: str, messages: Sequence[Mapping[str, Any]] | None, *,
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
                           for m in messages if isinstance(m, Mapping)]
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


def reply(text: str | None, usage: Usage, finish: str | None) -> dict[str, Any]:
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
    if usage.prompt_tokens is not None:
        attrs[gen_ai.GEN_AI_USAGE_INPUT_TOKENS] = usage.prompt_tokens
        attrs[SpanAttributes.LLM_TOKEN_COUNT_PROMPT] = usage.prompt_tokens
    if usage.completion_tokens is not None:
        attrs[gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS] = usage.completion_tokens
        attrs[SpanAttributes.LLM_TOKEN_COUNT_COMPLETION] = usage.completion_tokens
    if usage.total is not None:
        attrs[SpanAttributes.LLM_TOKEN_COUNT_TOTAL] = usage.total
    return attrs


def call_request(call: ModelCall) -> tuple[dict[str, Any], dict[str, Any]]:
    """A model request's attributes — a target's or a judge's — and its answered attempt's."""
    common = request(call.model or call.name, call.provider or "openai", call.messages,
                     response_model=call.response_model)
    return common, reply(call.reply, call.usage, call.finish_reason)
