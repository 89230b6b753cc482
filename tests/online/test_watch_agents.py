"""`assay watch` end to end: an example agent using the real `openai` client against the local
OpenAI-compatible server, instrumented with OpenInference or the OTel GenAI instrumentor,
exports its traces with the OpenTelemetry SDK; they become scored samples of an online run."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from assay.store import repo
from tests.conftest import ROOT
from tests.online.watching import Watching
from tests.openai_server import OpenAIServer

AGENT = ROOT / "examples" / "online" / "quote_agent.py"
QUESTIONS = ["贵州茅台最新价是多少?", "腾讯控股现在多少钱?"]


def reply(messages: list[dict[str, str]]) -> str:
    """As the agent's model: the quote. As the coze-quality judge: 3 of 4."""
    if "质量检查员" in messages[0]["content"]:
        return '{"Score": 3, "Reason": "答出了价格", "FullScore": 4}'
    return "贵州茅台最新价为1500.00元。"


def agent(endpoint: str, server: OpenAIServer, instrumentor: str, *questions: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    r = subprocess.run([sys.executable, str(AGENT), "--otlp", endpoint, "--openai-base",
                        server.base_url, "--instrumentor", instrumentor, *questions],
                       capture_output=True, text=True, timeout=120, env=env, check=False)
    assert r.returncode == 0, r.stderr


@pytest.fixture()
def judge(tmp_path: Path, openai_server: OpenAIServer) -> Path:
    openai_server.default = reply
    models = tmp_path / "assay-models.yaml"
    models.write_text(f"""\
models:
  judge:
    base_url: {openai_server.base_url}
    model: fake-judge
    max_retries: 0
""", "utf-8")
    return models


def spec(tmp_path: Path, extra: str = "") -> Path:
    p = tmp_path / "watch.yaml"
    p.write_text(f"""\
name: prod-agent
source: {{otlp: "127.0.0.1:0"}}
evaluators: ["coze-quality@judge"]
quiet_s: 0.2
{extra}""", "utf-8")
    return p


@pytest.mark.parametrize("instrumentor", ["openinference", "genai"])
@pytest.mark.process  # the example agents
def test_agent_traces_become_scored_samples(tmp_path: Path, db_url: str, judge: Path,
                                            openai_server: OpenAIServer,
                                            instrumentor: str) -> None:
    w = Watching(db_url, spec(tmp_path), models_file=judge).start()
    agent(w.endpoint, openai_server, instrumentor, *QUESTIONS)
    w.wait_evaluated(2)
    result = w.stop()
    assert result.counters.evaluated == 2 and result.counters.unknown == 0
    run = repo.get_run(w.engine, w.run_id)
    assert run is not None and run["kind"] == "online" and run["status"] == "interrupted"
    items = repo.get_items(w.engine, run["dataset_id"])
    assert sorted(it.fields["prompt"] for it in items.values()) == sorted(QUESTIONS)
    for it in items.values():
        f = it.fields
        assert f["response"] == "贵州茅台最新价为1500.00元。"
        assert f["service"] == "quote-agent"
        assert f["conventions"] == (["openinference"] if instrumentor == "openinference"
                                    else ["gen_ai"])
        assert [m["model"] for m in f["model_calls"]] == ["quote-model"]
        assert f["model_calls"][0]["input_tokens"] is not None
        assert [t["name"] for t in f["tool_calls"]] == ["get_quote"]
        # the answer time is the root span's end: after the model call ended
        assert f["answered_at_s"] >= f["model_calls"][0]["end"]
        assert datetime.fromisoformat(f["answered_at"]).timestamp() == pytest.approx(
            f["answered_at_s"], abs=1e-3)
    res = repo.list_results(w.engine, w.run_id)
    assert sorted((r["item_id"], r["evaluator"], r["score"], r["status"]) for r in res) == \
        sorted((i, "coze-quality@judge", 3.0, "scored") for i in items)
    answers = {a["item_id"]: a for a in repo.list_answers(w.engine, w.run_id)}
    assert {a["text"] for a in answers.values()} == {"贵州茅台最新价为1500.00元。"}
    # the agent's own spans are stored with the sample, beside Assay's
    one = next(iter(items))
    spans = repo.list_spans(w.engine, w.run_id, one)
    kinds = sorted(s["kind"] for s in spans)
    agent_kinds = sorted(k for k in kinds if k.startswith("agent."))
    if instrumentor == "openinference":
        assert agent_kinds == ["agent.agent", "agent.llm", "agent.tool"]
    else:
        assert agent_kinds == ["agent.chat", "agent.execute_tool", "agent.span"]
    assert "sample" in kinds and "evaluator" in kinds
    llm = next(s for s in spans if s["kind"] in ("agent.llm", "agent.chat"))
    assert llm["attributes"]["agent"] is True and llm["trace_id"] == one
    assert result.summary["evaluators"]["coze-quality@judge"]["mean"] == 3.0
    stored = repo.get_run(w.engine, w.run_id)
    assert stored is not None and stored["summary"]["online"]["evaluated"] == 2
