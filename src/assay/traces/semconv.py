"""Span attributes in the ecosystem's language, so Phoenix, Langfuse, Jaeger or Tempo can read
an Assay trace: every span gets an OpenInference kind (`openinference.span.kind`) with its
input and output, and model requests also carry the OpenTelemetry GenAI attributes (operation,
request and response model, provider, token usage, messages) — both by the names the
maintained packages define, never typed by hand.

They sit in a span's stored attributes beside Assay's own (undotted) keys, which the UI reads;
a dotted key is a convention's name and is exported as it is (traces/otlp_out.py). Built per span
per sample, so cheaply: no copies of the inputs, one JSON encoding per structure, long texts
masked and cut to TEXT_LIMIT characters (the full texts stay in the answer and result rows).
Secrets never enter: nothing here reads a header, a key or the environment, and every text
passes `secrets.clip`."""

from __future__ import annotations

from typing import Any

import orjson
from openinference.semconv.trace import (
    DocumentAttributes,
    EvaluationAttributes,
    MessageAttributes,
    OpenInferenceMimeTypeValues,
    OpenInferenceSpanKindValues,
    SpanAttributes,
    ToolAttributes,
)
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai

from assay.core import secrets
from assay.core.types import Answer, Item, Score, TruthSnapshot
from assay.targets.registry import fact

TEXT_LIMIT = 8000
REASON_LIMIT = 1000

KIND = SpanAttributes.OPENINFERENCE_SPAN_KIND
LLM = OpenInferenceSpanKindValues.LLM.value
CHAIN = OpenInferenceSpanKindValues.CHAIN.value
AGENT = OpenInferenceSpanKindValues.AGENT.value
TOOL = OpenInferenceSpanKindValues.TOOL.value
RETRIEVER = OpenInferenceSpanKindValues.RETRIEVER.value
EVALUATOR = OpenInferenceSpanKindValues.EVALUATOR.value
TEXT = OpenInferenceMimeTypeValues.TEXT.value
JSON = OpenInferenceMimeTypeValues.JSON.value
CHAT = gen_ai.GenAiOperationNameValues.CHAT.value

# The item fields a question is read from, in order (as the UI and the report do).
QUESTION_FIELDS = ("prompt", "question", "input")

IN = SpanAttributes.INPUT_VALUE
IN_MIME = SpanAttributes.INPUT_MIME_TYPE
OUT = SpanAttributes.OUTPUT_VALUE
OUT_MIME = SpanAttributes.OUTPUT_MIME_TYPE
ROLE = MessageAttributes.MESSAGE_ROLE
CONTENT = MessageAttributes.MESSAGE_CONTENT




def clip(text: str, limit: int = TEXT_LIMIT) -> str:
    return secrets.clip(text, limit)


def _json(value: Any) -> str:
    return clip(orjson.dumps(value, default=str).decode())


def io_value(attrs: dict[str, Any], key: str, mime: str, value: Any) -> None:
    """`input.value`/`output.value` with its mime type: text as text, anything else as JSON."""
    if value is None:
        return
    if isinstance(value, str):
        attrs[key], attrs[mime] = clip(value), TEXT
    else:
        attrs[key], attrs[mime] = _json(value), JSON


def flat_messages(attrs: dict[str, Any], key: str, messages: list[Any]) -> None:
    """OpenInference's flattened messages: `llm.input_messages.0.message.role` …"""
    for n, m in enumerate(messages):
        if isinstance(m, dict):
            attrs[f"{key}.{n}.{ROLE}"] = str(m.get("role", ""))
            attrs[f"{key}.{n}.{CONTENT}"] = clip(str(m.get("content", "")))


def question(item: Item) -> Any:
    for name in QUESTION_FIELDS:
        value = item.fields.get(name)
        if value is not None:
            return value
    return None


def root(item: Item, answer: Answer | None, scores: list[Score]) -> dict[str, Any]:
    """The sample's root span: a CHAIN from the question to the answer, with every
    evaluator's verdict — as `assay.score.<evaluator>`/`assay.status.<evaluator>` and as
    OpenInference's span evaluations (`evaluations.N.evaluation.*`)."""
    attrs: dict[str, Any] = {KIND: CHAIN}
    io_value(attrs, IN, IN_MIME, question(item))
    if answer is not None:
        io_value(attrs, OUT, OUT_MIME, answer.text)
    for n, s in enumerate(scores):
        prefix = f"{SpanAttributes.EVALUATIONS}.{n}."
        attrs[f"assay.status.{s.evaluator}"] = str(s.status)
        attrs[prefix + EvaluationAttributes.EVALUATION_NAME] = s.evaluator
        attrs[prefix + EvaluationAttributes.EVALUATION_LABEL] = str(s.status)
        if s.value is not None:
            attrs[f"assay.score.{s.evaluator}"] = s.value
            attrs[prefix + EvaluationAttributes.EVALUATION_SCORE] = s.value
        if s.reason:
            attrs[prefix + EvaluationAttributes.EVALUATION_EXPLANATION] = clip(s.reason,
                                                                            REASON_LIMIT)
    return attrs


def target(kind: str, name: str, item: Item, answer: Answer) -> dict[str, Any]:
    """The target call, of the span kind its type's registration declares
    (targets/registry.py): LLM for a model target (its requests are the child spans that carry
    the token counts, so a viewer summing a trace counts them once), AGENT for an agent, CHAIN
    for a program."""
    oi = fact(kind, "span_kind")
    attrs: dict[str, Any] = {KIND: oi}
    request = answer.extras.get("request")  # an HTTP agent's request body, as sent
    messages = [dict(m) for m in answer.call.messages] if answer.call is not None else None
    if messages:
        flat_messages(attrs, SpanAttributes.LLM_INPUT_MESSAGES, messages)
        io_value(attrs, IN, IN_MIME, messages)
    else:
        io_value(attrs, IN, IN_MIME, request if request is not None else question(item))
    io_value(attrs, OUT, OUT_MIME, answer.text)
    if oi == LLM:
        model = answer.call.model if answer.call is not None else None
        if model:
            attrs[SpanAttributes.LLM_MODEL_NAME] = model
    elif oi == AGENT:
        attrs[gen_ai.GEN_AI_OPERATION_NAME] = gen_ai.GenAiOperationNameValues.INVOKE_AGENT.value
        attrs[gen_ai.GEN_AI_AGENT_NAME] = attrs[SpanAttributes.AGENT_NAME] = name
    return attrs


def evaluator(score: Score) -> dict[str, Any]:
    """An evaluator's span: EVALUATOR with its verdict, by OpenInference's evaluation names
    and GenAI's."""
    attrs: dict[str, Any] = {
        KIND: EVALUATOR, EvaluationAttributes.EVALUATION_NAME: score.evaluator,
        EvaluationAttributes.EVALUATION_LABEL: str(score.status),
        gen_ai.GEN_AI_EVALUATION_NAME: score.evaluator,
        gen_ai.GEN_AI_EVALUATION_SCORE_LABEL: str(score.status)}
    if score.value is not None:
        attrs[EvaluationAttributes.EVALUATION_SCORE] = score.value
        attrs[gen_ai.GEN_AI_EVALUATION_SCORE_VALUE] = score.value
    if score.reason:
        reason = clip(score.reason, REASON_LIMIT)
        attrs[EvaluationAttributes.EVALUATION_EXPLANATION] = reason
        attrs[gen_ai.GEN_AI_EVALUATION_EXPLANATION] = reason
    attrs[OUT] = orjson.dumps({"score": score.value, "status": str(score.status),
                                "reason": attrs.get(gen_ai.GEN_AI_EVALUATION_EXPLANATION)}
                               ).decode()
    attrs[OUT_MIME] = JSON
    return attrs


def simulator(model: str, text: str) -> dict[str, Any]:
    """The simulated user's message: an LLM span (its request is the child that carries the
    tokens), the message as its output."""
    attrs: dict[str, Any] = {KIND: LLM, SpanAttributes.LLM_MODEL_NAME: model}
    io_value(attrs, OUT, OUT_MIME, text)
    return attrs


def step() -> dict[str, Any]:
    """A judge's render or parse: a step of its chain."""
    return {KIND: CHAIN}


def truth(snap: TruthSnapshot) -> dict[str, Any]:
    """A ground-truth fetch: RETRIEVER, the query in, the snapshot out as its one document."""
    doc = f"{SpanAttributes.RETRIEVAL_DOCUMENTS}.0."
    out = snap.payload_text()
    attrs: dict[str, Any] = {KIND: RETRIEVER, IN: clip(snap.query), IN_MIME: TEXT,
                             OUT: clip(out), OUT_MIME: JSON if out[:1] in "{[" else TEXT,
                             doc + DocumentAttributes.DOCUMENT_ID: snap.instrument,
                             doc + DocumentAttributes.DOCUMENT_CONTENT: clip(out),
                             doc + DocumentAttributes.DOCUMENT_METADATA: orjson.dumps(
                                 {"provider": snap.provider, "status": snap.status,
                                  "fetched_at": snap.fetched_at.isoformat()}).decode()}
    return attrs


def stored_truth(item: Item, source: str) -> dict[str, Any]:
    """The item's own ground truth, read from the dataset: a RETRIEVER with no query."""
    attrs: dict[str, Any] = {KIND: RETRIEVER, IN: source, IN_MIME: TEXT}
    value = item.fields.get("ground_truth")
    io_value(attrs, OUT, OUT_MIME, value)
    if isinstance(value, str) and value[:1] in ("{", "["):
        attrs[OUT_MIME] = JSON  # a source row kept as JSON text (FinSearchComp's)
    return attrs


def tool(call: dict[str, Any]) -> dict[str, Any]:
    """One tool call of an agent's trajectory: TOOL, its arguments in, its result out."""
    name = str(call.get("name", ""))
    attrs: dict[str, Any] = {
        KIND: TOOL, ToolAttributes.TOOL_NAME: name,
        gen_ai.GEN_AI_OPERATION_NAME: gen_ai.GenAiOperationNameValues.EXECUTE_TOOL.value,
        gen_ai.GEN_AI_TOOL_NAME: name}
    if call.get("id") is not None:
        attrs[gen_ai.GEN_AI_TOOL_CALL_ID] = str(call["id"])
    if "arguments" in call:
        io_value(attrs, IN, IN_MIME, call["arguments"])
        attrs[gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS] = attrs[IN]
    if "result" in call:
        io_value(attrs, OUT, OUT_MIME, call["result"])
        attrs[gen_ai.GEN_AI_TOOL_CALL_RESULT] = attrs.get(OUT, "")
    return attrs
