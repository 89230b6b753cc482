"""A small quote agent, traced the way production agents are: the real `openai` client,
instrumented with OpenInference (`openinference-instrumentation-openai`) or with the
OpenTelemetry GenAI instrumentor (`opentelemetry-instrumentation-openai-v2`), exporting its
spans with the OpenTelemetry SDK's OTLP/HTTP exporter — to `assay watch`, for instance.

    python examples/online/quote_agent.py --otlp http://127.0.0.1:4318/v1/traces \
        --openai-base http://127.0.0.1:8000/v1 --instrumentor openinference "贵州茅台最新价?"

Each question is one trace: a root span for the agent's turn, a tool span (the quote lookup)
and the model call the instrumentor records."""

from __future__ import annotations

import argparse
import json
import os


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("questions", nargs="+")
    ap.add_argument("--otlp", required=True, help="OTLP/HTTP traces endpoint")
    ap.add_argument("--openai-base", required=True)
    ap.add_argument("--model", default="quote-model")
    ap.add_argument("--service", default="quote-agent")
    ap.add_argument("--instrumentor", choices=("openinference", "genai"),
                    default="openinference")
    args = ap.parse_args()
    if args.instrumentor == "genai":
        # message content on the span itself, as the current GenAI conventions put it
        os.environ.setdefault("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
        os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "SPAN_ONLY")

    import openai
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": args.service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=args.otlp)))
    if args.instrumentor == "openinference":
        from openinference.instrumentation.openai import OpenAIInstrumentor

        OpenAIInstrumentor().instrument(tracer_provider=provider)
    else:
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor as GenAI

        GenAI().instrument(tracer_provider=provider)
    tracer = provider.get_tracer("quote-agent")
    client = openai.OpenAI(base_url=args.openai_base, api_key="not-a-secret")
    for question in args.questions:
        with tracer.start_as_current_span("quote-agent.turn") as turn:
            if args.instrumentor == "openinference":
                turn.set_attribute("openinference.span.kind", "AGENT")
                turn.set_attribute("input.value", question)
            quote = lookup(tracer, question, args.instrumentor)
            reply = client.chat.completions.create(model=args.model, messages=[
                {"role": "system", "content": f"Answer with the quote: {json.dumps(quote)}"},
                {"role": "user", "content": question}])
            answer = reply.choices[0].message.content or ""
            if args.instrumentor == "openinference":
                turn.set_attribute("output.value", answer)
    provider.shutdown()  # flushes the batch to the receiver


def lookup(tracer: object, question: str, convention: str) -> dict[str, object]:
    """The agent's tool: a quote lookup (a fixed table here; a market API in production)."""
    from opentelemetry.trace import Tracer

    assert isinstance(tracer, Tracer)
    quote = {"name": "贵州茅台", "code": "600519", "price": "1500.00"}
    with tracer.start_as_current_span("get_quote") as span:
        if convention == "openinference":
            span.set_attribute("openinference.span.kind", "TOOL")
            span.set_attribute("tool.name", "get_quote")
            span.set_attribute("input.value", json.dumps({"question": question}))
            span.set_attribute("output.value", json.dumps(quote, ensure_ascii=False))
        else:
            span.set_attribute("gen_ai.operation.name", "execute_tool")
            span.set_attribute("gen_ai.tool.name", "get_quote")
            span.set_attribute("gen_ai.tool.call.arguments", json.dumps({"question": question}))
            span.set_attribute("gen_ai.tool.call.result", json.dumps(quote, ensure_ascii=False))
    return quote


if __name__ == "__main__":
    main()
