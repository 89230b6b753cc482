"""The model client against a real local server: retries, backoff, adaptive concurrency."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from assay.core.errors import ConfigError
from assay.models.client import ModelClient
from assay.models.config import ModelConfig
from tests.openai_server import OpenAIServer


def cfg(server: OpenAIServer, **kw: Any) -> ModelConfig:
    base = {"name": "test", "base_url": server.base_url, "model": "judge-1",
            "max_retries": 3, "timeout_s": 5.0}
    return ModelConfig(**{**base, **kw})


def chat(server: OpenAIServer, messages: list[dict[str, str]] | None = None,
         **kw: Any) -> Any:
    async def go() -> Any:
        async with ModelClient(cfg(server, **kw), backoff_base_s=0.01) as client:
            return await client.chat(messages or [{"role": "user", "content": "hi"}])
    return asyncio.run(go())


def test_plain_call_records_usage_and_latency(openai_server: OpenAIServer) -> None:
    openai_server.script = [("ok", '{"score": 1}')]
    c = chat(openai_server, params={"temperature": 0})
    assert c.text == '{"score": 1}' and c.error is None
    assert (c.usage.total_tokens or 0) > 0 and c.latency_s > 0
    assert [a["outcome"] for a in c.attempts] == ["ok"] and c.retries == 0
    assert c.finish_reason == "stop"
    assert 0 <= c.attempts[0]["end"] - c.attempts[0]["start"] <= c.latency_s + 0.01
    sent = openai_server.requests[0]
    assert sent["model"] == "judge-1" and sent["temperature"] == 0


def test_sdk_options_in_params_keep_their_sdk_meaning(openai_server: OpenAIServer) -> None:
    # plain requests go through the SDK's raw `post`: its options must still be options, not
    # body fields the endpoint would reject
    openai_server.script = [("ok", "fine")]
    c = chat(openai_server, params={"temperature": 0.5, "extra_body": {"top_k": 5},
                                    "extra_query": {"api-version": "2024-10-21"},
                                    "extra_headers": {"X-Team": "quant"}, "timeout": 9})
    assert c.text == "fine" and c.error is None
    sent = openai_server.requests[0]
    assert sent["temperature"] == 0.5 and sent["top_k"] == 5
    assert not {"extra_body", "extra_query", "extra_headers", "timeout"} & set(sent)
    assert sent["messages"] == [{"role": "user", "content": "hi"}]
    assert openai_server.queries[0] == {"api-version": "2024-10-21"}
    assert openai_server.headers[0]["x-team"] == "quant"


def test_the_reply_is_read_with_its_model_usage_and_finish(openai_server: OpenAIServer) -> None:
    openai_server.script = [("ok", "答案 1,455.00 元")]
    c = chat(openai_server)
    assert c.text == "答案 1,455.00 元" and c.model == "judge-1"
    assert c.finish_reason == "stop"
    u = c.usage
    assert all(isinstance(v, int) for v in (u.prompt_tokens, u.completion_tokens,
                                            u.total_tokens))


@pytest.mark.parametrize("failure", [
    ("status", 429, {"Retry-After": "0"}), ("status", 500), ("status", 503), ("malformed",),
    ("truncated",), ("no_content",),
])
def test_transient_failures_are_retried(openai_server: OpenAIServer,
                                        failure: tuple[Any, ...]) -> None:
    openai_server.script = [failure, failure, ("ok", "fine")]
    c = chat(openai_server)
    assert c.text == "fine"
    assert c.retries == 2 and len(openai_server.requests) == 3
    assert all("retry_in_s" in a for a in c.attempts[:2])


def test_retry_after_is_honoured(openai_server: OpenAIServer) -> None:
    openai_server.script = [("status", 429, {"Retry-After": "0.3"}), ("ok", "x")]
    c = chat(openai_server)
    assert c.attempts[0]["retry_in_s"] == 0.3 and c.latency_s >= 0.3


def test_timeouts_are_retried(openai_server: OpenAIServer) -> None:
    openai_server.script = [("delay", 1.5), ("ok", "late")]
    c = chat(openai_server, timeout_s=0.5)
    assert c.text == '{"score": 1}' or c.text == "late"
    assert c.attempts[0]["outcome"].startswith("timeout")


def test_gives_up_after_max_retries_with_an_error_not_a_reply(
        openai_server: OpenAIServer) -> None:
    openai_server.script = [("status", 500)] * 3
    c = chat(openai_server, max_retries=2)
    assert c.text is None
    assert c.error is not None and c.error.startswith("gave up after 3 attempts: 500")
    assert len(openai_server.requests) == 3


def test_client_errors_are_not_retried(openai_server: OpenAIServer) -> None:
    openai_server.script = [("status", 400)]
    c = chat(openai_server)
    assert c.text is None and c.error is not None and c.error.startswith("HTTP 400")
    assert len(openai_server.requests) == 1


def test_adaptive_concurrency_halves_on_429_and_grows_back(
        openai_server: OpenAIServer) -> None:
    openai_server.latency_s = 0.05

    async def go() -> tuple[list[int], int]:
        async with ModelClient(cfg(openai_server, max_concurrency=8),
                               backoff_base_s=0.01) as client:
            openai_server.script = [("status", 429, {"Retry-After": "0"})] * 2
            await asyncio.gather(*(client.chat([{"role": "user", "content": str(i)}])
                                   for i in range(8)))
            return [client.limiter.lowest], client.limiter.limit
    (low,), after = asyncio.run(go())
    assert low == 2  # two 429s: 8 → 4 → 2
    assert after == 8  # grown back by the successes


def test_limiter_arithmetic() -> None:
    from assay.models.limiter import AdaptiveLimiter

    async def go() -> list[int]:
        lim = AdaptiveLimiter(4)
        seen = []
        for throttled in (True, True, True, False, False, False, False, False):
            await lim.acquire()
            await lim.release(throttled=throttled)
            seen.append(lim.limit)
        return seen
    assert asyncio.run(go()) == [2, 1, 1, 2, 3, 4, 4, 4]


def test_limiter_bounds_requests_in_flight(openai_server: OpenAIServer) -> None:
    openai_server.latency_s = 0.1
    peak = 0

    async def go() -> None:
        nonlocal peak
        async with ModelClient(cfg(openai_server, max_concurrency=3)) as client:
            async def one() -> None:
                nonlocal peak
                task = asyncio.create_task(client.chat([{"role": "user", "content": "x"}]))
                await asyncio.sleep(0.05)
                peak = max(peak, client.limiter.in_flight)
                await task
            await asyncio.gather(*(one() for _ in range(9)))
    asyncio.run(go())
    assert peak == 3


def test_missing_key_variable_is_a_config_error(openai_server: OpenAIServer,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASSAY_TEST_KEY", raising=False)
    with pytest.raises(ConfigError, match="ASSAY_TEST_KEY is not set"):
        ModelClient(cfg(openai_server, api_key_env="ASSAY_TEST_KEY"))


def test_rpm_spaces_request_starts(openai_server: OpenAIServer) -> None:
    import time

    async def go() -> float:
        async with ModelClient(cfg(openai_server, rpm=600, max_concurrency=10)) as client:
            t0 = time.perf_counter()
            await asyncio.gather(*(client.chat([{"role": "user", "content": str(i)}])
                                   for i in range(6)))
            return time.perf_counter() - t0
    elapsed = asyncio.run(go())
    assert elapsed >= 0.5  # 6 starts at 0.1 s spacing: the last starts at 0.5 s
    assert len(openai_server.requests) == 6


def test_streamed_reply_is_assembled_with_usage(openai_server: OpenAIServer) -> None:
    reply = '分析：答案与标准一致，误差在四舍五入范围内。\n{"score": 1}'
    openai_server.script = [("ok", reply)]
    c = chat(openai_server, stream=True)
    assert c.text == reply and c.error is None
    assert c.usage.completion_tokens == len(reply) // 4 + 1
    sent = openai_server.requests[0]
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}
    assert c.finish_reason == "stop"


@pytest.mark.parametrize("failure", [("truncated",), ("malformed",), ("status", 503)])
def test_broken_streams_are_retried_not_judged(openai_server: OpenAIServer,
                                               failure: tuple[Any, ...]) -> None:
    openai_server.script = [failure, ("ok", '{"score": 0}')]
    c = chat(openai_server, stream=True)
    assert c.text == '{"score": 0}'
    assert c.retries == 1 and len(openai_server.requests) == 2
    assert not c.attempts[0]["outcome"].startswith("ok")


def test_stream_cut_every_time_gives_an_error_not_partial_text(
        openai_server: OpenAIServer) -> None:
    openai_server.script = [("truncated",)] * 2
    c = chat(openai_server, stream=True, max_retries=1)
    assert c.text is None and c.error is not None
    assert "stream" in c.error or "malformed" in c.error


def test_stream_given_as_a_param_is_refused() -> None:
    from assay.models.config import validate

    with pytest.raises(ConfigError, match="--stream"):
        validate(ModelConfig("m", "http://127.0.0.1:1/v1", "x", params={"stream": True}))


def test_a_refused_connection_is_not_called_a_timeout() -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    async def go() -> Any:
        cfg = ModelConfig("x", f"http://127.0.0.1:{port}/v1", "m", max_retries=1)
        async with ModelClient(cfg, backoff_base_s=0.01) as client:
            return await client.chat([{"role": "user", "content": "hi"}])
    c = asyncio.run(go())
    assert c.text is None and len(c.attempts) == 2
    assert all(a["outcome"].startswith("connection error: ") for a in c.attempts)
    assert "Connect call failed" in c.attempts[0]["outcome"]


def test_a_servers_separate_reasoning_is_kept_apart_from_the_reply(
        openai_server: OpenAIServer) -> None:
    """Reasoning models behind OpenAI-compatible servers send their thinking as
    `reasoning_content`: kept on the completion (the judge's evidence), never in its text."""
    openai_server.script = [("reasoning", '{"score": 1}', 'draft {"score": 0}')]
    c = chat(openai_server)
    assert (c.text, c.reasoning) == ('{"score": 1}', 'draft {"score": 0}')
    openai_server.script = [("ok", "plain")]
    assert chat(openai_server).reasoning is None
