"""ModelCall: the typed record of one model request that answers and scores carry. Its JSON
round trip, reading what older versions kept as dict keys (a judge's evidence, a model target's
extras), values of the wrong type read as unknown, and a misspelt field being an error — for
mypy and at run time — instead of a silent None."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from assay.core.model_call import Attempt, ModelCall, Usage, provider_of
from assay.core.types import Answer, Score, ScoreStatus

CALL = ModelCall(
    model="deepseek-chat", provider="deepseek",
    messages=({"role": "system", "content": "你是评分员"}, {"role": "user", "content": "1455?"}),
    reply='{"score": 1}', finish_reason="stop",
    usage=Usage(120, 8, 128, {"prompt_cache_hit_tokens": 64}),
    attempts=(Attempt("429: slow down", 1.0, 1.5, 0.25), Attempt("ok", 1.75, 2.5)),
    latency_s=1.5, cached=False, cost=0.000181, response_model="deepseek-chat-0324", name="ds",
    cache_key="ab" * 32, sanitized=True)


def test_a_call_round_trips_through_its_json() -> None:
    data = CALL.to_json()
    assert data["usage"] == {"prompt_tokens": 120, "completion_tokens": 8, "total_tokens": 128,
                             "prompt_cache_hit_tokens": 64}
    assert data["attempts"][0] == {"outcome": "429: slow down", "start": 1.0, "end": 1.5,
                                   "retry_in_s": 0.25}
    assert ModelCall.from_json(data) == CALL
    bare = ModelCall("m")
    assert ModelCall.from_json(bare.to_json()) == bare
    assert set(bare.to_json()) == {"model", "provider", "messages", "reply", "finish_reason",
                                   "usage", "attempts", "latency_s", "cached", "cost"}


def test_a_judges_evidence_of_an_older_version_reads_as_its_call() -> None:
    """What evaluators/judge kept in a score's evidence before ModelCall: `model` the registry
    entry (public config: the key's variable name, never the key), the rest by name."""
    evidence = {
        "template": "finsearch-t1", "template_version": "abc",
        "model": {"name": "ds", "base_url": "https://api.deepseek.com/v1",
                  "model": "deepseek-chat", "api_key_env": "DEEPSEEK_API_KEY",
                  "params": {"temperature": 0}, "price_in_per_mtok": 2.0},
        "messages": [{"role": "user", "content": "1455?"}], "reply": '{"score": 1}',
        "finish_reason": "stop", "usage": {"prompt_tokens": 10, "completion_tokens": 2,
                                           "total_tokens": 12},
        "latency_s": 0.8123, "attempts": [{"outcome": "ok", "start": 1.0, "end": 1.8}],
        "cached": False, "cache_key": "k", "response_model": "deepseek-chat-0324",
        "cost": 0.00003, "parsed": {"how": "json", "score": 1, "full_score": [0, 1]}}
    call = ModelCall.from_json(evidence)
    assert (call.model, call.name, call.provider) == ("deepseek-chat", "ds", "deepseek")
    assert call.usage == Usage(10, 2, 12) and call.usage.total == 12
    assert call.attempts == (Attempt("ok", 1.0, 1.8),) and call.cost == 0.00003
    assert call.reply == '{"score": 1}' and call.latency_s == 0.8123
    assert call.messages == ({"role": "user", "content": "1455?"},)
    assert (call.cached, call.cache_key, call.response_model) == (False, "k",
                                                                  "deepseek-chat-0324")
    assert "DEEPSEEK_API_KEY" not in str(call.to_json())  # the config is not carried over


def test_a_model_targets_extras_of_an_older_version_read_as_its_call() -> None:
    extras = {"messages": [{"role": "user", "content": "q"}], "attempts": [{"outcome": "ok"}],
              "model": "fake", "request_model": "fake-1", "response_model": "fake-1-0101",
              "provider": "openai", "finish_reason": "length", "cost": 0.5,
              "usage": {"total_tokens": 7}, "reply": "a", "latency_s": 2}
    call = ModelCall.from_json(extras)
    assert (call.model, call.name, call.provider) == ("fake-1", "fake", "openai")
    assert (call.finish_reason, call.cost, call.latency_s) == ("length", 0.5, 2.0)
    assert call.usage.total == 7 and call.usage.prompt_tokens is None


def test_values_of_the_wrong_type_are_unknown_never_an_error() -> None:
    call = ModelCall.from_json({"model": 3, "messages": "hi", "attempts": {"x": 1},
                                "usage": {"prompt_tokens": -5, "completion_tokens": 2.5,
                                          "total_tokens": True, "other": "x", "hits": 4},
                                "cost": "0.1", "cached": "yes", "latency_s": None})
    assert call == ModelCall("", usage=Usage(other={"hits": 4}))
    assert ModelCall.from_json({}) == ModelCall("")
    assert Usage.from_json(None) == Usage.from_json([]) == Usage() and Usage().empty
    # GenAI's names read as OpenAI's
    assert Usage.from_json({"input_tokens": 3, "output_tokens": 4}) == Usage(3, 4)
    assert Usage(3, 4).total == 7 and Usage(3).total is None  # not invented from half
    # no request counts billions of tokens (nor would they fit the store's columns)
    assert Usage.from_json({"prompt_tokens": 2**31, "completion_tokens": 2**31 - 1}) == Usage(
        None, 2**31 - 1)
    assert Usage(2**31 - 1, 1).total is None


def test_an_agents_reported_usage_is_a_call_and_nothing_reported_is_none() -> None:
    call = ModelCall.reported({"total_tokens": 12}, "gpt-x")
    assert call == ModelCall("gpt-x", usage=Usage(total_tokens=12))
    assert ModelCall.reported({}) is None and ModelCall.reported({"total_tokens": -1}) is None
    assert ModelCall.reported("12") is None


def test_answers_and_scores_carry_the_call() -> None:
    answer = Answer("1455", call=CALL)
    assert answer.usage == CALL.usage and Answer("x").usage == Usage()
    score = Score(1.0, ScoreStatus.SCORED, "ok", "judge@ds", "v", call=CALL)
    record = score.as_record("q1")
    assert record["call"] == CALL.to_json() and "cost" not in record["evidence"]
    assert "call" not in Score(1.0, ScoreStatus.SCORED, "ok", "rubric", "v").as_record("q1")


def test_provider_of_names_hosted_endpoints_and_the_protocol_otherwise() -> None:
    assert provider_of("https://api.deepseek.com/v1/") == "deepseek"
    assert provider_of("http://127.0.0.1:8080/v1") == "openai"


def test_a_misspelt_field_is_an_error_not_a_silent_none() -> None:
    """The class of bug a dict invited (`evidence.get("costs")` is None, and a cost sheet
    silently 0): on the typed call a misspelling fails at run time, and mypy rejects it."""
    with pytest.raises(AttributeError):
        CALL.costs  # type: ignore[attr-defined]  # noqa: B018
    with pytest.raises(TypeError):
        ModelCall("m", costs=0.1)  # type: ignore[call-arg]


@pytest.mark.process  # mypy, as a process
def test_mypy_rejects_a_misspelt_field(tmp_path: Path) -> None:
    """Checked with the project's own mypy settings and cache (`make test` runs mypy first),
    so the check costs seconds, not the half-minute of a cold start."""
    pytest.importorskip("mypy")
    probe = tmp_path / "probe.py"
    probe.write_text("from assay.core.model_call import ModelCall\n\n\n"
                     "def spent(call: ModelCall) -> float:\n"
                     "    return call.costs or 0.0\n\n\n"
                     "def tokens(call: ModelCall) -> int:\n"
                     "    return call.usage.prompt_token or 0\n", "utf-8")
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "pyproject.toml",
                        str(probe)], capture_output=True, text=True, cwd=root, check=False,
                       env={**os.environ, "MYPYPATH": str(root / "src")})
    assert r.returncode == 1, r.stdout + r.stderr
    assert '"ModelCall" has no attribute "costs"' in r.stdout
    assert '"Usage" has no attribute "prompt_token"' in r.stdout
