"""Reading agent traces by the conventions: OpenInference and OTel GenAI shapes (message
attributes, the older prompt/completion events and indexed attributes), a bare model call as
the whole trace, tool calls, and the one-line reasons of unknown shapes; OTLP decoding."""

from __future__ import annotations

import json

import pytest

from assay.core.errors import DataError
from assay.online.reading import read_trace
from assay.traces.otlp_in import SpanIn, decode
from tests.online.otlp_send import S, as_json, request


def span(name: str, attrs: dict[str, object], *, parent: str | None = "r", sid: str = "c",
         events: list[dict[str, object]] | None = None, end: int = 2) -> SpanIn:
    return SpanIn("t" * 32, sid, parent, name, 1, end, dict(attrs), {"service.name": "a"},
                  events=list(events or []))


def test_openinference_llm_span_alone_is_a_trace() -> None:
    """An agent that only calls the instrumented client: the LLM span is the root, its
    input.value the JSON of the request and output.value that of the response."""
    req = {"model": "m", "messages": [{"role": "system", "content": "s"},
                                      {"role": "user", "content": "茅台多少钱?"}]}
    resp = {"choices": [{"message": {"role": "assistant", "content": "1455元"}}]}
    r = read_trace([span("ChatCompletion", {
        "openinference.span.kind": "LLM", "input.value": json.dumps(req),
        "input.mime_type": "application/json", "output.value": json.dumps(resp),
        "output.mime_type": "application/json", "llm.model_name": "m",
        "llm.token_count.prompt": 5, "llm.token_count.completion": 2}, parent=None, end=9)])
    assert (r.question, r.answer, r.answered_at_ns, r.unknown) == ("茅台多少钱?", "1455元", 9,
                                                                   None)
    assert [(m["model"], m["input_tokens"], m["output_tokens"]) for m in r.model_calls] == [
        ("m", 5, 2)]


def test_gen_ai_events_and_indexed_prompt_attributes() -> None:
    root = span("turn", {}, parent=None, sid="r", end=10)
    events = span("chat m", {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"},
                  sid="a", events=[
                      {"name": "gen_ai.user.message", "time_ns": 1,
                       "attributes": {"content": "first question"}},
                      {"name": "gen_ai.choice", "time_ns": 2,
                       "attributes": {"message": json.dumps({"content": "draft"})}}])
    indexed = span("chat m", {"gen_ai.operation.name": "chat", "gen_ai.response.model": "m2",
                              "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "x",
                              "gen_ai.completion.0.role": "assistant",
                              "gen_ai.completion.0.content": "final answer"}, sid="b")
    indexed.start_ns = 5
    tool = span("execute_tool q", {"gen_ai.operation.name": "execute_tool",
                                   "gen_ai.tool.name": "quote",
                                   "gen_ai.tool.call.arguments": '{"code": "600519"}',
                                   "gen_ai.tool.call.result": "1455"}, sid="t")
    r = read_trace([indexed, tool, events, root])
    assert (r.question, r.answer) == ("first question", "final answer")
    assert [m["model"] for m in r.model_calls] == ["m", "m2"]
    assert [(t["name"], t["arguments"], t["result"]) for t in r.tool_calls] == [
        ("quote", '{"code": "600519"}', "1455")]
    assert r.conventions == ["gen_ai"] and r.answered_at_ns == 10


@pytest.mark.parametrize(("spans", "reason"), [
    ([span("child", {})], "no root span (a span without parent) among 1 spans"),
    ([span("GET /", {"http.method": "GET"}, parent=None)],
     "no question: the root span 'GET /' has no input.value/output.value and no span follows "
     "OpenInference or OTel GenAI"),
    ([span("turn", {}, parent=None, sid="r"),
      span("chat m", {"gen_ai.operation.name": "chat"})],
     "no question: the model spans carry no message content (OTel GenAI: set "
     "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY and "
     "OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental)"),
    ([span("turn", {"openinference.span.kind": "AGENT", "input.value": "q"}, parent=None)],
     "no answer: neither the root span 'turn' nor a model span holds the user's answer"),
])
def test_unknown_shapes_say_why(spans: list[SpanIn], reason: str) -> None:
    assert read_trace(spans).unknown == reason


def test_decode_protobuf_json_and_errors() -> None:
    spans = [S("ab" * 16, "cd" * 8, "root", attributes={"n": 3, "f": 1.5, "b": True})]
    for body, ctype in ((request(spans).SerializeToString(), "application/x-protobuf"),
                        (as_json(spans), "application/json; charset=utf-8")):
        (got,) = decode(body, ctype)
        assert (got.trace_id, got.span_id, got.parent_id, got.name) == ("ab" * 16, "cd" * 8,
                                                                        None, "root")
        assert got.attributes == {"n": 3, "f": 1.5, "b": True}
        assert got.resource == {"service.name": "quote-agent"}
    bad = json.loads(as_json(spans))
    bad["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"] = "zz"
    with pytest.raises(DataError, match="OTLP/JSON traceId 'zz' is not hex"):
        decode(json.dumps(bad).encode(), "application/json")
    with pytest.raises(DataError, match="OTLP/JSON body is not JSON"):
        decode(b"{", "application/json")
