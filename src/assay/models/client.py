"""The one model client: the `openai` SDK's async client on its aiohttp transport (measured
here: ~3.5 ms CPU per request vs ~5 ms with the default transport), one per endpoint. Plain
requests go through the SDK's raw `post` and read the reply as JSON (`ModelClient._post`: about
half the CPU of `chat.completions.create`); streamed ones through the typed stream.

Retries are done here rather than by the SDK (its `max_retries` is 0) so every attempt can be
recorded: 429, 5xx, timeouts, connection errors and malformed or truncated bodies are retried
with exponential backoff and jitter, honouring Retry-After, up to `max_retries` times. Errors are
returned as values (`Completion.error`), never cached, never turned into a score.

Empty replies follow one rule in plain and stream mode alike. A completion whose text is empty
or blank is retried like a transient fault; when the last attempt is empty too, that is the
model's answer: returned as such (`Completion.empty`, the attempts say "empty reply"), so a
target's empty answer is flagged and scored as the empty answer it is (the rubric gives 0, never
a silent gap in the mean) and a judge's empty reply is unscored — both redone by `assay retry`.
A 200 with no completion at all (no body, no events, no message) is a malformed body: retried,
then an error.

Replies are made safe here, where they enter: unpaired surrogates and NULs are replaced
(`Completion.sanitized` says so), and every secret the client sent is masked in replies and
errors (assay.core.secrets), before anything can store or print them.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any, cast

import orjson

from assay.core import secrets
from assay.core.errors import ConfigError
from assay.core.model_call import NO_USAGE, Attempt, ModelCall, Usage, provider_of
from assay.core.text import safe_text

from .budget import Budget
from .config import ModelConfig
from .limiter import AdaptiveLimiter, RatePacer

BACKOFF_BASE_S = 0.5
BACKOFF_MAX_S = 20.0
# SDK request options a model's `params` may carry, and their names in a raw request's options
_SDK_OPTIONS = {"extra_body": "extra_json", "extra_headers": "headers",
                "extra_query": "params", "timeout": "timeout"}


class _Malformed(ValueError):
    """A 200 whose body is no completion: its text is the attempt's outcome."""


@dataclass
class Completion:
    text: str | None
    usage: Usage = NO_USAGE
    latency_s: float = 0.0
    attempts: list[dict[str, Any]] = field(default_factory=list)  # one per try: outcome, start, end, delay
    error: str | None = None
    cached: bool = False
    finish_reason: str | None = None  # "length": the reply was cut by max_tokens
    sanitized: bool = False  # unpaired surrogates or NULs in the reply were replaced
    model: str | None = None  # the model that answered, as the response names it (traces)
    # a reasoning model's thinking, when the server returns it apart from the content
    # (`reasoning_content` / `reasoning`): kept as evidence, never parsed for a verdict
    reasoning: str | None = None

    @property
    def empty(self) -> bool:
        """The model replied, with nothing (after every retry): see the module's docstring."""
        return self.text is not None and not self.text.strip()

    @property
    def retries(self) -> int:
        return max(0, len(self.attempts) - 1)


class ModelClient:
    def __init__(self, cfg: ModelConfig, *, backoff_base_s: float = BACKOFF_BASE_S) -> None:
        try:
            from openai import AsyncOpenAI, DefaultAioHttpClient
        except ImportError:  # pragma: no cover - a dependency of assay-eval
            raise ConfigError("the openai package is missing: pip install 'openai[aiohttp]'") \
                from None
        self.cfg = cfg
        self.backoff_base_s = backoff_base_s
        # What a judgment's evidence says about the model, computed once (never the key).
        self.public = {k: v for k, v in cfg.public().items() if k != "max_retries"}
        self.limiter = AdaptiveLimiter(cfg.max_concurrency)
        self.pacer = RatePacer(cfg.rpm) if cfg.rpm else None
        self._client = AsyncOpenAI(base_url=cfg.base_url, api_key=cfg.api_key(), max_retries=0,
                                   timeout=cfg.timeout_s, http_client=DefaultAioHttpClient())
        # the run's spending limit (models/budget.py), set by the runner when it has one
        self.budget: Budget | None = None

    async def close(self) -> None:
        await self._client.close()

    def call_of(self, messages: list[dict[str, str]], c: Completion) -> ModelCall:
        """The typed record of one request and its reply, priced by the registry: the model
        asked and the one that answered, for the trace's model-request spans and cost sheets."""
        cfg = self.cfg
        cost = cfg.cost(c.usage)
        return ModelCall(model=cfg.model, provider=provider_of(cfg.base_url),
                         messages=tuple(messages), reply=c.text, finish_reason=c.finish_reason,
                         usage=c.usage,
                         attempts=tuple(Attempt.from_json(a) for a in c.attempts),
                         latency_s=c.latency_s, cost=None if cost is None else round(cost, 8),
                         response_model=c.model, name=cfg.name, sanitized=c.sanitized)

    async def __aenter__(self) -> ModelClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def chat(self, messages: list[dict[str, str]], params: dict[str, Any] | None = None,
                   ) -> Completion:
        """One request (with its retries). Under a budget it is admitted first — or refused
        with `BudgetExceeded` before anything is sent — and its cost counted when it ends."""
        if self.budget is None:
            return await self._chat(messages, params)
        budget = self.budget
        guess = budget.reserve(self.cfg, messages, {**self.cfg.params, **(params or {})})
        usage = NO_USAGE
        try:
            completion = await self._chat(messages, params)
            usage = completion.usage
            return completion
        finally:
            budget.settle(guess, self.cfg, messages, usage)

    async def _chat(self, messages: list[dict[str, str]], params: dict[str, Any] | None = None,
                    ) -> Completion:
        import openai

        call = {**self.cfg.params, **(params or {})}
        attempts: list[dict[str, Any]] = []
        start = time.perf_counter()
        for attempt in range(self.cfg.max_retries + 1):
            if self.pacer is not None:
                await self.pacer.wait()
            await self.limiter.acquire()
            t0 = time.time()  # wall clock, for the request's span in the trace
            throttled = False
            retry_after: float | None = None
            reasoning: str | None = None
            try:
                if self.cfg.stream:
                    text, usage, finish, outcome, answered = await self._streamed(messages,
                                                                                  call)
                else:
                    reply = await self._post(messages, call)
                    text, outcome = _text_of(reply), "malformed: no message content"
                    reasoning = _reasoning_of(reply)
                    counted = reply.get("usage")
                    usage = counted if isinstance(counted, dict) else {}
                    finish = _finish_of(reply)
                    answered = reply.get("model")
                if text is not None and not text.strip() and attempt < self.cfg.max_retries:
                    text, outcome = None, "empty reply"
                if text is not None:
                    attempts.append(_attempt("ok" if text.strip() else "empty reply", t0))
                    text, sanitized = safe_text(secrets.mask(text))
                    return Completion(text, Usage.from_json(usage),
                                      time.perf_counter() - start, attempts,
                                      finish_reason=finish, sanitized=sanitized,
                                      model=answered if isinstance(answered, str) else None,
                                      reasoning=safe_text(secrets.mask(reasoning))[0]
                                      if reasoning else None)
            except openai.RateLimitError as exc:
                throttled = True
                outcome, retry_after = f"429: {_short(exc)}", _retry_after(exc)
            except openai.APIStatusError as exc:
                if exc.status_code < 500 and exc.status_code not in (408, 409):
                    attempts.append(_attempt(f"{exc.status_code}: {_short(exc)}", t0))
                    return Completion(None, NO_USAGE, time.perf_counter() - start, attempts,
                                      error=f"HTTP {exc.status_code}: {_short(exc)}")
                outcome, retry_after = f"{exc.status_code}: {_short(exc)}", _retry_after(exc)
            except openai.APITimeoutError as exc:
                # the aiohttp transport reports a refused connection as a connect timeout
                refused = _refused(exc)
                outcome = (f"connection error: {refused}" if refused is not None
                           else f"timeout after {self.cfg.timeout_s:g} s")
            except openai.APIConnectionError as exc:
                outcome = f"connection error: {_short(exc)}"
            except _Malformed as exc:
                outcome = str(exc)
            except (openai.APIResponseValidationError, ValueError) as exc:
                outcome = ("malformed: empty body" if isinstance(exc, json.JSONDecodeError)
                           and not exc.doc.strip() else f"malformed body: {_short(exc)}")
            finally:
                await self.limiter.release(throttled=throttled)
            if attempt == self.cfg.max_retries:
                attempts.append(_attempt(outcome, t0))
                break
            delay = retry_after if retry_after is not None else min(
                BACKOFF_MAX_S, self.backoff_base_s * 2 ** attempt) * (0.5 + random.random())
            attempts.append({**_attempt(outcome, t0), "retry_in_s": round(delay, 3)})
            await asyncio.sleep(delay)
        return Completion(None, NO_USAGE, time.perf_counter() - start, attempts,
                          error=f"gave up after {len(attempts)} attempts: "
                                f"{attempts[-1]['outcome']}")

    async def _post(self, messages: list[dict[str, str]], call: dict[str, Any]
                    ) -> dict[str, Any]:
        """One plain completion through the SDK's documented raw request (`client.post`, its
        "undocumented endpoints" path): the same transport, headers, auth, timeout and status
        errors as `chat.completions.create`, without its typed-parameter transform and its
        response models, which cost ~0.8 ms CPU a request here (bench/run_bench.py) — as much
        as the rest of a sample. The reply is read as the JSON it is; an SDK option given in
        `params` (extra_body, extra_headers, extra_query, timeout) keeps its SDK meaning."""
        body = {k: v for k, v in call.items() if k not in _SDK_OPTIONS}
        body["model"] = self.cfg.model
        body["messages"] = messages
        options: Any = {option: call[key] for key, option in _SDK_OPTIONS.items()
                        if key in call}
        # bytes is a cast the SDK documents in its parser but not in post's type bound
        raw = await self._client.post("/chat/completions", cast_to=cast(type[object], bytes),
                                      body=body, options=options)
        assert isinstance(raw, bytes)
        if not raw.strip():
            raise _Malformed("malformed: empty body")
        try:
            reply = orjson.loads(raw)
        except orjson.JSONDecodeError:
            # orjson refuses escaped lone surrogates ("\ud800"), which the standard decoder
            # reads and safe_text then replaces; a body neither reads is malformed (ValueError)
            reply = json.loads(raw)
        if not isinstance(reply, dict):
            raise _Malformed("malformed: the body is not a JSON object")
        return reply

    async def _streamed(self, messages: list[dict[str, str]], call: dict[str, Any]
                        ) -> tuple[str | None, dict[str, Any], str | None, str, str | None]:
        """One streamed completion, assembled. A stream that ends without a finish reason was
        cut off: its partial text must not be judged, so it is reported like a truncated body."""
        import openai

        stream = await self._client.chat.completions.create(  # type: ignore[call-overload]
            model=self.cfg.model, messages=messages, stream=True,
            stream_options={"include_usage": True}, **call)
        parts: list[str] = []
        finish: str | None = None
        usage: dict[str, Any] = {}
        chunks = 0
        answered: str | None = None
        try:
            async for chunk in stream:
                chunks += 1
                answered = getattr(chunk, "model", None) or answered
                if chunk.usage is not None:
                    usage = chunk.usage.model_dump()
                for choice in chunk.choices[:1]:
                    if choice.delta is not None and choice.delta.content:
                        parts.append(choice.delta.content)
                    finish = choice.finish_reason or finish
        except openai.APIError:
            raise
        except Exception as exc:  # the transport's own error for a connection cut mid-body
            raise ValueError(f"stream broken: {type(exc).__name__}: {exc}") from None
        finally:
            await stream.close()
        if chunks == 0:
            return None, usage, None, "malformed: empty stream (no events)", None
        if finish is None:
            return (None, usage, None, "malformed: stream ended before its finish chunk",
                    None)
        return "".join(parts), usage, finish, "ok", answered


def _refused(exc: BaseException) -> str | None:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ConnectionError):
            return _short(seen)
        seen = seen.__cause__ or seen.__context__
    return None


def _attempt(outcome: str, t0: float) -> dict[str, Any]:
    return {"outcome": outcome, "start": round(t0, 4), "end": round(time.time(), 4)}


def _first_choice(reply: dict[str, Any]) -> dict[str, Any]:
    choices = reply.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    return first if isinstance(first, dict) else {}


def _text_of(reply: dict[str, Any]) -> str | None:
    message = _first_choice(reply).get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, str) else None


def _reasoning_of(reply: dict[str, Any]) -> str | None:
    message = _first_choice(reply).get("message")
    if not isinstance(message, dict):
        return None
    for key in ("reasoning_content", "reasoning"):
        value = message.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _finish_of(reply: dict[str, Any]) -> str | None:
    finish = _first_choice(reply).get("finish_reason")
    return finish if isinstance(finish, str) else None


def _retry_after(exc: Any) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return min(BACKOFF_MAX_S * 3, max(0.0, float(value))) if value is not None else None
    except ValueError:
        return None


def _short(exc: BaseException, limit: int = 200) -> str:
    """An exception as one line: secrets masked before it is cut (never half a key), and made
    safe (an error body may carry the same surrogates as a reply)."""
    return safe_text(secrets.clip(str(exc).replace("\n", " "), limit))[0]
