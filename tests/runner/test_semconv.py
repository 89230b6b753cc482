"""The convention attributes of the spans that the end-to-end test does not meet: a fetched
ground truth, a failed judgment, texts that are long or hold a key, the baseline agent."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from openinference.semconv.trace import OpenInferenceSpanKindValues

from assay.core import secrets
from assay.core.model_call import Attempt, ModelCall, Usage
from assay.core.types import Answer, Item, Score, ScoreStatus, TruthSnapshot
from assay.targets.registry import SPAN_KINDS, TARGETS, fact
from assay.traces import semconv, semconv_llm

ITEM = Item("q1", {"prompt": "贵州茅台最新股价"}, "v", 1)


def test_a_fetched_snapshot_is_a_retriever_with_its_query_and_payload() -> None:
    snap = TruthSnapshot("akshare", "600519", "stock_zh_a_spot_em()['600519']",
                         datetime(2026, 11, 30, 1, 30, tzinfo=UTC), "ok",
                         payload={"最新价": 1455.0})
    a = semconv.truth(snap)
    assert a["openinference.span.kind"] == "RETRIEVER"
    assert a["input.value"] == "stock_zh_a_spot_em()['600519']"
    assert a["output.value"] == '{"最新价": 1455.0}' and a["output.mime_type"] == "application/json"
    assert a["retrieval.documents.0.document.id"] == "600519"
    assert a["retrieval.documents.0.document.content"] == a["output.value"]
    assert json.loads(a["retrieval.documents.0.document.metadata"]) == {
        "provider": "akshare", "status": "ok", "fetched_at": "2026-11-30T01:30:00+00:00"}


def test_an_error_score_has_a_label_and_no_score() -> None:
    a = semconv.evaluator(Score.error("model call failed: HTTP 500", "judge@m", "v1"))
    assert a["openinference.span.kind"] == "EVALUATOR"
    assert a["evaluation.label"] == a["gen_ai.evaluation.score.label"] == "error"
    assert "evaluation.score" not in a and "gen_ai.evaluation.score.value" not in a
    assert json.loads(a["output.value"]) == {"score": None, "status": "error",
                                             "reason": "model call failed: HTTP 500"}
    root = semconv.root(ITEM, None, [Score(0.0, ScoreStatus.SCORED, "wrong", "rubric", "v"),
                                     Score.error("boom", "judge@m", "v1")])
    assert root["assay.score.rubric"] == 0.0 and root["assay.status.rubric"] == "scored"
    assert "assay.score.judge@m" not in root and root["assay.status.judge@m"] == "error"
    assert root["evaluations.1.evaluation.explanation"] == "boom"
    assert "output.value" not in root  # no answer: nothing invented


def test_a_target_span_has_the_kind_its_type_declares() -> None:
    assert set(SPAN_KINDS) <= {k.value for k in OpenInferenceSpanKindValues}
    for name in TARGETS.names():
        a = semconv.target(name, name, ITEM, Answer("x"))
        assert a["openinference.span.kind"] == fact(name, "span_kind"), name
    assert semconv.target("model", "m", ITEM, Answer("x"))["openinference.span.kind"] == "LLM"
    http = semconv.target("http", "agent", ITEM, Answer("x"))
    assert http["openinference.span.kind"] == "AGENT" and http["agent.name"] == "agent"
    # a kind no registration names (an online trace's answers are "recorded", one that is)
    assert semconv.target("unknown", "u", ITEM, Answer("x"))["openinference.span.kind"] == \
        "CHAIN"


def test_texts_are_masked_and_cut() -> None:
    secrets.forget_all()
    secrets.remember("sk-live-echoed-key-123", "OPENAI_API_KEY")
    try:
        long = "x" * 20_000
        answer = Answer(f"401: bad key sk-live-echoed-key-123 {long}")
        a = semconv.target("baseline-quote-agent", "agent", ITEM, answer)
        assert a["openinference.span.kind"] == "AGENT"
        assert a["output.value"].startswith("401: bad key [secret $OPENAI_API_KEY] xxx")
        assert len(a["output.value"]) == semconv.TEXT_LIMIT + 1  # and the mark "…"
        r = semconv_llm.reply("sk-live-echoed-key-123", Usage(prompt_tokens=3), None)
        assert "sk-live" not in json.dumps(r) and r["llm.token_count.prompt"] == 3
        assert "llm.token_count.total" not in r  # not invented from half the counts
    finally:
        secrets.forget_all()


def test_a_calls_tokens_and_model_are_its_request_attributes() -> None:
    """A model request's attributes come from the typed call alone — a target's and a judge's
    alike: the tokens by both conventions (the total as reported, else input + output), the
    model asked and the one that answered, the provider, the reply and why it stopped."""
    call = ModelCall("deepseek-chat", "deepseek",
                     ({"role": "user", "content": "上海金午盘基准价是多少？"},), "约 960 元",
                     "stop", Usage(120, 30), (Attempt("ok", 1.0, 2.0),), 1.0,
                     response_model="deepseek-chat-0324", name="ds")
    common, answered = semconv_llm.call_request(call)
    assert common["gen_ai.request.model"] == "deepseek-chat"
    assert common["gen_ai.response.model"] == common["llm.model_name"] == "deepseek-chat-0324"
    assert common["gen_ai.provider.name"] == common["llm.provider"] == "deepseek"
    assert common[semconv_llm.MESSAGES] == [{"role": "user", "content": "上海金午盘基准价是多少？"}]
    assert answered["gen_ai.usage.input_tokens"] == answered["llm.token_count.prompt"] == 120
    assert answered["gen_ai.usage.output_tokens"] == answered["llm.token_count.completion"] == 30
    assert answered["llm.token_count.total"] == 150  # not reported: input + output
    assert answered["output.value"] == "约 960 元"
    assert answered["gen_ai.response.finish_reasons"] == ["stop"]
    reported = semconv_llm.reply(None, Usage(1, 2, total_tokens=5), None)
    assert reported["llm.token_count.total"] == 5  # as the provider counted it
    # a call without a provider (stored before it was known) is named by the protocol
    assert semconv_llm.call_request(ModelCall("m"))[0]["gen_ai.provider.name"] == "openai"


def test_a_request_keeps_its_messages_once_and_the_export_gives_both_conventions() -> None:
    messages = [{"role": "system", "content": "你是金融评分员"},
                {"role": "user", "content": "上海金午盘基准价是多少？"}]
    stored = semconv_llm.request("judge-1", "openai", messages)
    # stored: the messages once, no convention copies (a judge's prompt is KBs)
    assert stored[semconv_llm.MESSAGES] == messages
    assert not [k for k in stored if k.startswith(("llm.input_messages", "gen_ai.input",
                                                   "gen_ai.system_instructions"))]
    assert "input.value" not in stored
    out = semconv_llm.expand(stored)
    assert semconv_llm.MESSAGES not in out
    assert out["llm.input_messages.0.message.role"] == "system"
    assert out["llm.input_messages.1.message.content"] == "上海金午盘基准价是多少？"
    assert json.loads(out["input.value"]) == messages
    assert json.loads(out["gen_ai.system_instructions"]) == [
        {"type": "text", "content": "你是金融评分员"}]
    assert json.loads(out["gen_ai.input.messages"]) == [
        {"role": "user", "parts": [{"type": "text", "content": "上海金午盘基准价是多少？"}]}]
    assert out["gen_ai.request.model"] == "judge-1"
    # a span that is not a model request leaves unchanged
    tool = {"openinference.span.kind": "TOOL", "messages": ["x"]}
    assert semconv_llm.expand(tool) is tool
