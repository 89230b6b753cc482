"""An `assay run` exported to a real OTLP/HTTP receiver speaks the conventions viewers read:
OpenInference kinds, inputs and outputs, model names and token counts, OpenTelemetry GenAI
attributes, evaluator scores on EVALUATOR spans and on the root — asserted on the decoded
protobuf. The run has a model target and a judge (against the local OpenAI-compatible server)
and an HTTP agent that reports its tool calls; keys from the environment and from the agent's
headers appear in no attribute."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.agent_server import TOOLS, AgentServer
from tests.cli.test_run_cli import SAMPLE_ITEMS, model_reply, run, run_id_of
from tests.conftest import SAMPLE
from tests.openai_server import OpenAIServer
from tests.runner.test_otlp import Collector

MODEL_KEY = "sk-canary-model-7f3a9c1e5b"
AGENT_KEY = "agent-canary-token-41d8e2"
ITEMS = 3


def value(v: Any) -> Any:
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [value(x) for x in v.array_value.values]
    return getattr(v, kind)


def attrs(span: Any) -> dict[str, Any]:
    return {a.key: value(a.value) for a in span.attributes}


@pytest.fixture()
def exported(tmp_path: Path, openai_server: OpenAIServer
             ) -> Iterator[tuple[list[Any], Path, str, OpenAIServer]]:
    openai_server.default = model_reply
    collector = Collector().start()
    agent = AgentServer().start()
    agent.mode = "tools"
    env = {"CANARY_KEY": MODEL_KEY, "AGENT_TOKEN": AGENT_KEY}
    try:
        r = run("models", "add", "m", "--base-url", openai_server.base_url, "--model",
                "fake-1", "--api-key-env", "CANARY_KEY", "--max-retries", "1",
                cwd=tmp_path, **env)
        assert r.returncode == 0, r.stderr
        (tmp_path / "spec.yaml").write_text(f"""\
dataset: {{path: {SAMPLE}, limit: {ITEMS}}}
targets:
  - {{name: fake, type: model, model: m, prompt: "ITEM {{prompt_id}}|{{prompt}}"}}
  - name: agent
    type: http
    url: {agent.url}
    headers: {{Authorization: "Bearer ${{AGENT_TOKEN}}"}}
    body: {{question: "{{prompt}}"}}
    answer_path: $.data.answer
evaluators: [finance-rubric, finsearch-t1-judge@m]
otlp: http://127.0.0.1:{collector.port}/v1/traces
""", "utf-8")
        # --no-cache: two targets may give one item the same answer, and the judge's second
        # request would then be read from the response cache (a judgment with no request span)
        r = run("run", "spec.yaml", "--no-cache", cwd=tmp_path, **env)
        assert r.returncode == 0, r.stderr
        assert agent.headers[0]["Authorization"] == f"Bearer {AGENT_KEY}"  # it was sent
        yield collector.spans, tmp_path, run_id_of(r.stdout), openai_server
    finally:
        collector.stop()
        agent.stop()


def test_assay_spans_by_openinference_and_genai(
        exported: tuple[list[Any], Path, str, OpenAIServer]) -> None:
    from opentelemetry.proto.trace.v1.trace_pb2 import Span

    spans, project, run_id, server = exported
    db = sqlite3.connect(project / ".assay" / "assay.db")
    by_id = {s.span_id: s for s in spans}
    a = {s.span_id: attrs(s) for s in spans}

    def kind(s: Any) -> str:
        return str(a[s.span_id]["openinference.span.kind"])

    def parent(s: Any) -> Any:
        return by_id[s.parent_span_id]

    # every span has an OpenInference kind; none is UNKNOWN
    assert {kind(s) for s in spans} == {"CHAIN", "LLM", "AGENT", "TOOL", "RETRIEVER",
                                        "EVALUATOR"}
    roots = [s for s in spans if not s.parent_span_id]
    assert len(roots) == 2 * ITEMS and {kind(s) for s in roots} == {"CHAIN"}

    # the root: question in, answer out, every evaluator's score and status as stored
    stored = {(i, t, e): (sc, st) for i, t, e, sc, st in db.execute(
        "SELECT item_id, target, evaluator, score, status FROM results WHERE run_id = ?",
        (run_id,))}
    answers = {(i, t): (text, total) for i, t, text, total in db.execute(
        "SELECT item_id, target, text, total_tokens FROM answers WHERE run_id = ?", (run_id,))}
    for root in roots:
        ra = a[root.span_id]
        item, target = ra["assay.item_id"], ra["assay.target"]
        assert ra["input.value"] == SAMPLE_ITEMS[item]["prompt"]
        assert ra["input.mime_type"] == "text/plain"
        assert ra["output.value"] == answers[item, target][0]
        evaluations = {ra[f"evaluations.{n}.evaluation.name"]: n for n in range(2)}
        for ev in ("finance-rubric", "finsearch-t1-judge@m"):
            score, status = stored[item, target, ev]
            assert ra[f"assay.status.{ev}"] == status
            assert ra.get(f"assay.score.{ev}") == score
            n = evaluations[ev]
            assert ra[f"evaluations.{n}.evaluation.label"] == status
            assert ra.get(f"evaluations.{n}.evaluation.score") == score
        assert root.kind == Span.SPAN_KIND_INTERNAL

    # evaluator spans: EVALUATOR, with the stored score, status and reason
    evaluators = [s for s in spans if kind(s) == "EVALUATOR"]
    assert len(evaluators) == 2 * 2 * ITEMS
    reasons = {(i, t, e): r for i, t, e, r in db.execute(
        "SELECT item_id, target, evaluator, reason FROM results WHERE run_id = ?", (run_id,))}
    for s in evaluators:
        ea, ra = a[s.span_id], a[parent(s).span_id]
        key = (ra["assay.item_id"], ea["assay.target"], s.name.split(" ", 1)[1])
        assert ea["evaluation.name"] == ea["gen_ai.evaluation.name"] == key[2]
        assert ea.get("evaluation.score") == stored[key][0]
        assert ea.get("gen_ai.evaluation.score.value") == stored[key][0]
        assert ea["evaluation.label"] == ea["gen_ai.evaluation.score.label"] == stored[key][1]
        assert ea["evaluation.explanation"] == reasons[key][:1000]
        assert json.loads(ea["output.value"])["score"] == stored[key][0]

    # model requests: LLM, CLIENT, model names, provider, tokens, messages in and out
    requests = [s for s in spans if s.name.startswith("model.request")]
    assert requests and all(kind(s) == "LLM" and s.kind == Span.SPAN_KIND_CLIENT
                            for s in requests)
    target_requests = [s for s in requests if parent(s).name == "target fake"]
    judge_requests = [s for s in requests if parent(s).name.startswith("evaluator")]
    assert len(target_requests) == ITEMS and len(judge_requests) == 2 * ITEMS
    for s in requests:
        sa = a[s.span_id]
        assert sa["gen_ai.operation.name"] == "chat"
        assert sa["gen_ai.request.model"] == sa["gen_ai.response.model"] == "fake-1"
        assert sa["llm.model_name"] == "fake-1"
        assert sa["gen_ai.provider.name"] == "openai" and sa["llm.provider"] == "openai"
        # the token counts the server reported for exactly these messages
        sent = [json.loads(sa["input.value"])]
        asked = [r for r in server.requests if [r["messages"]] == sent]
        assert asked, sa["input.value"]
        prompt = sum(len(m["content"]) for m in asked[0]["messages"]) // 4
        completion = len(sa["output.value"]) // 4 + 1
        assert sa["gen_ai.usage.input_tokens"] == sa["llm.token_count.prompt"] == prompt
        assert sa["gen_ai.usage.output_tokens"] == sa["llm.token_count.completion"] \
            == completion
        assert sa["llm.token_count.total"] == prompt + completion
        assert sa["gen_ai.response.finish_reasons"] == ["stop"]
        for n, m in enumerate(asked[0]["messages"]):
            assert sa[f"llm.input_messages.{n}.message.role"] == m["role"]
            assert sa[f"llm.input_messages.{n}.message.content"] == m["content"]
        assert sa["llm.output_messages.0.message.role"] == "assistant"
        assert sa["llm.output_messages.0.message.content"] == sa["output.value"]
        out = json.loads(sa["gen_ai.output.messages"])
        assert out == [{"role": "assistant", "finish_reason": "stop",
                        "parts": [{"type": "text", "content": sa["output.value"]}]}]
        chat = [m for m in asked[0]["messages"] if m["role"] != "system"]
        assert json.loads(sa["gen_ai.input.messages"]) == [
            {"role": m["role"], "parts": [{"type": "text", "content": m["content"]}]}
            for m in chat]
    for s in target_requests:  # the target's reply is the stored answer, its usage too
        sa, item = a[s.span_id], a[parent(parent(s)).span_id]["assay.item_id"]
        text, total = answers[item, "fake"]
        assert sa["output.value"] == text
        assert sa["llm.token_count.total"] == total
    for s in judge_requests:  # a judge's request: its system prompt as GenAI instructions
        sa = a[s.span_id]
        assert sa["llm.input_messages.0.message.role"] == "system"
        assert json.loads(sa["gen_ai.system_instructions"])[0]["content"] \
            == sa["llm.input_messages.0.message.content"]

    # targets: the model target is LLM (its requests hold the tokens), the agent AGENT+CLIENT
    targets = {s.name: s for s in spans if s.name.startswith("target ")}
    model_t, agent_t = a[targets["target fake"].span_id], a[targets["target agent"].span_id]
    assert model_t["openinference.span.kind"] == "LLM" and model_t["llm.model_name"] == "fake-1"
    assert "llm.token_count.total" not in model_t
    assert targets["target fake"].kind == Span.SPAN_KIND_INTERNAL
    assert agent_t["openinference.span.kind"] == "AGENT"
    assert agent_t["gen_ai.operation.name"] == "invoke_agent"
    assert agent_t["gen_ai.agent.name"] == agent_t["agent.name"] == "agent"
    assert json.loads(agent_t["input.value"])["question"] in {
        x["prompt"] for x in SAMPLE_ITEMS.values()}
    assert agent_t["input.mime_type"] == "application/json"
    assert agent_t["output.value"].endswith("1455.00元")
    assert targets["target agent"].kind == Span.SPAN_KIND_CLIENT

    # the agent's tool calls: TOOL spans under its target span, with its own times
    tools = [s for s in spans if kind(s) == "TOOL"]
    assert len(tools) == 3 * ITEMS
    assert all(parent(s).name == "target agent" for s in tools)
    quote = next(a[s.span_id] | {"_span": s} for s in tools if s.name == "tool quote")
    assert quote["tool.name"] == quote["gen_ai.tool.name"] == "quote"
    assert quote["gen_ai.operation.name"] == "execute_tool"
    assert quote["gen_ai.tool.call.id"] == "call_1"
    assert json.loads(quote["input.value"]) == TOOLS[0]["arguments"]
    assert json.loads(quote["output.value"]) == TOOLS[0]["result"]
    assert quote["_span"].start_time_unix_nano == int(
        datetime(2026, 11, 30, 1, 30, 0, 100000, tzinfo=UTC).timestamp() * 1e9)
    calc = next(s for s in tools if s.name == "tool calculator")
    assert a[calc.span_id]["input.value"] == "1455.00 * 1"
    assert calc.end_time_unix_nano - calc.start_time_unix_nano == pytest.approx(20e6, abs=1e3)
    fmt = next(a[s.span_id] for s in tools if s.name == "tool format_answer")
    assert fmt["input.value"] == '{"digits": 2}' and fmt["assay.timed"] is False

    # ground truth, the items' own here: a RETRIEVER whose output is the stored truth
    truths = [s for s in spans if kind(s) == "RETRIEVER"]
    assert len(truths) == 2 * ITEMS
    for s in truths:
        ta = a[s.span_id]
        item = a[parent(s).span_id]["assay.item_id"]
        assert ta["input.value"] == "item field 'ground_truth'"
        assert ta["output.value"] == SAMPLE_ITEMS[item]["ground_truth"]

    # secrets: neither key is in any exported attribute, nor in any stored span
    for s in spans:
        text = json.dumps(a[s.span_id], ensure_ascii=False, default=str)
        assert MODEL_KEY not in text and AGENT_KEY not in text, s.name
    stored_spans = " ".join(r[0] for r in db.execute("SELECT attributes FROM spans"))
    assert MODEL_KEY not in stored_spans and AGENT_KEY not in stored_spans
    assert "gen_ai.request.model" in stored_spans  # the conventions are stored, too
