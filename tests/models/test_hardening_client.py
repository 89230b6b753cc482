"""Hardening of the model client (issue 13): text made safe where a reply enters, keys an
endpoint echoes back masked, and one rule for an empty 200 reply in plain and stream mode."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from assay.core import secrets
from assay.core.model_call import Usage
from assay.models.client import ModelClient
from assay.models.config import ModelConfig
from tests.openai_server import OpenAIServer

KEY = "sk-canary-7f3a9c1e5b"


@pytest.fixture(autouse=True)
def _no_secrets() -> Iterator[None]:
    secrets.forget_all()
    yield
    secrets.forget_all()


def chat(server: OpenAIServer, **kw: Any) -> Any:
    base = {"name": "t", "base_url": server.base_url, "model": "m", "max_retries": 2,
            "timeout_s": 5.0}

    async def go() -> Any:
        async with ModelClient(ModelConfig(**{**base, **kw}), backoff_base_s=0.01) as client:
            return await client.chat([{"role": "user", "content": "hi"}])
    return asyncio.run(go())


@pytest.mark.parametrize("stream", [False, True])
def test_a_lone_surrogate_or_nul_in_a_reply_is_replaced_and_noted(
        openai_server: OpenAIServer, stream: bool) -> None:
    openai_server.script = [("ok", "1455.00\ud800元\x00!")]
    c = chat(openai_server, stream=stream)
    assert c.error is None
    assert c.text == "1455.00\ufffd元\ufffd!"
    assert c.sanitized is True
    c.text.encode("utf-8")  # storable
    openai_server.script = [("ok", "plain 元")]
    c = chat(openai_server, stream=stream)
    assert (c.text, c.sanitized) == ("plain 元", False)


@pytest.mark.parametrize("status", [401, 500])
def test_a_key_echoed_in_an_error_body_is_masked(openai_server: OpenAIServer,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 status: int) -> None:
    monkeypatch.setenv("CANARY_KEY", KEY)
    openai_server.script = [("echo_auth", status)] * 3
    c = chat(openai_server, api_key_env="CANARY_KEY")
    assert openai_server.auth[0] == f"Bearer {KEY}"  # the key was sent …
    assert c.error is not None and KEY not in c.error  # … and is never kept
    assert "[secret $CANARY_KEY]" in c.error
    assert all(KEY not in a["outcome"] for a in c.attempts)
    assert all("[secret $CANARY_KEY]" in a["outcome"] for a in c.attempts)


@pytest.mark.parametrize("stream", [False, True])
def test_an_empty_reply_is_retried_then_accepted_the_same_way_in_both_modes(
        openai_server: OpenAIServer, stream: bool) -> None:
    openai_server.script = [("empty",), ("ok", "fine")]
    c = chat(openai_server, stream=stream)
    assert (c.text, c.retries, c.empty) == ("fine", 1, False)
    assert [a["outcome"] for a in c.attempts] == ["empty reply", "ok"]
    openai_server.script = [("empty",)] * 3
    c = chat(openai_server, stream=stream)
    assert len(openai_server.requests) == 5
    assert (c.text, c.error, c.empty) == ("", None, True)  # the model's answer: nothing
    assert [a["outcome"] for a in c.attempts] == ["empty reply"] * 3


@pytest.mark.parametrize("stream", [False, True])
def test_a_200_without_any_body_is_malformed_in_both_modes(
        openai_server: OpenAIServer, stream: bool) -> None:
    openai_server.script = [("empty_body",)] * 3
    c = chat(openai_server, stream=stream)
    assert c.text is None and c.error is not None
    assert c.error.startswith("gave up after 3 attempts: malformed: empty")


def test_a_negative_or_boolean_token_count_from_a_provider_is_dropped(
        openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """M7 (review of issue 27): prompt_tokens -100000000 made a cost of about -$100k that
    opened any budget; a negative (or boolean) count is unknown, never a negative cost."""
    import tests.openai_server as fake

    real = fake._payload

    def payload(body: dict[str, Any], text: str) -> dict[str, Any]:
        return {**real(body, text), "usage": {"prompt_tokens": -100_000_000,
                                              "completion_tokens": 7, "total_tokens": True}}
    monkeypatch.setattr(fake, "_payload", payload)
    c = chat(openai_server, price_in_per_mtok=1000.0, price_out_per_mtok=1000.0)
    assert c.error is None and c.usage == Usage(completion_tokens=7)
    cost = ModelConfig(name="t", base_url="http://x", model="m", price_in_per_mtok=1000.0,
                       price_out_per_mtok=1000.0).cost(c.usage)
    assert cost == 7 * 1000.0 / 1e6
