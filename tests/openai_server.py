"""A real HTTP server speaking the OpenAI chat-completions protocol, on 127.0.0.1, for tests.

Replies are scripted: `server.script` is a list of actions taken in order (then `default`):
    ("ok", "reply text")                  200 with a normal completion
    ("status", 429, {"Retry-After": "0"}) an error status with headers
    ("delay", 2.0)                         sleep (to trigger client timeouts), then `default`
    ("malformed",)                         200 with a body that is not JSON
    ("truncated",)                         200 with a JSON body cut in half
    ("no_content",)                        200 with a completion lacking message content
    ("empty",)                             200 with a completion whose content is ""
    ("empty_body",)                        200 with no body at all
    ("echo_auth", 401)                     an error status whose body repeats the request's
                                           Authorization header (a hostile or careless proxy)
    ("surrogate",)                         the `default` reply with a lone surrogate and a NUL
    ("reasoning", "reply", "thinking")     a completion whose message also carries
                                           `reasoning_content` (reasoning models behind
                                           OpenAI-compatible servers)
Text is sent with JSON escapes (ensure_ascii), so a reply may carry a lone surrogate ("\ud800")
or a NUL exactly as a real endpoint's JSON can.
`default` may be a function of the request's messages returning the reply text. `chooser`, when
set, is asked for an action for each request the script does not cover (None: `default`).
A request with `"stream": true` gets the same actions as server-sent events, chunked a few
characters at a time (usage in a last chunk when `stream_options.include_usage` is set);
"truncated" then cuts the stream before its finish chunk and "malformed" sends a bad event.
Every request is logged in `server.requests` (the parsed JSON body).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

from tests.local_server import LocalServer

Action = tuple[Any, ...]


class OpenAIServer(LocalServer):
    def __init__(self) -> None:
        super().__init__()
        self.script: list[Action] = []
        self.default: Callable[[list[dict[str, str]]], str] = lambda messages: '{"score": 1}'
        self.chooser: Callable[[dict[str, Any]], Action | None] | None = None
        self.requests: list[dict[str, Any]] = []
        self.auth: list[str] = []  # Authorization headers seen
        self.queries: list[dict[str, str]] = []  # each request's query string, parsed
        self.headers: list[dict[str, str]] = []  # each request's headers, names lowercased
        self.latency_s = 0.0
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> OpenAIServer:
        super().start()
        return self

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        return app

    def _next(self) -> Action | None:
        with self._lock:
            return self.script.pop(0) if self.script else None

    def _choose(self, body: dict[str, Any]) -> Action | None:
        action = self._next()
        if action is None and self.chooser is not None:
            action = self.chooser(body)
        return action

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        with self._lock:
            self.requests.append(body)
            self.auth.append(request.headers.get("Authorization", ""))
            self.queries.append(dict(request.query))
            self.headers.append({k.lower(): v for k, v in request.headers.items()})
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        action = self._choose(body)
        while action is not None and action[0] == "delay":
            await asyncio.sleep(action[1])
            action = self._choose(body)
        if action is None:
            return await self._reply(request, body, self.default(body["messages"]))
        kind = action[0]
        if kind == "ok":
            return await self._reply(request, body, action[1])
        if kind == "status":
            headers = action[2] if len(action) > 2 else {}
            return web.json_response({"error": {"message": f"scripted {action[1]}",
                                                "type": "test"}}, status=action[1],
                                     headers=headers)
        if kind == "echo_auth":
            auth = request.headers.get("Authorization", "")
            return web.json_response({"error": {"message": f"invalid credentials: {auth}",
                                                "type": "test"}}, status=action[1])
        if kind == "empty":
            return await self._reply(request, body, "")
        if kind == "surrogate":
            return await self._reply(request, body, self.default(body["messages"]) + "\ud800\x00")
        if kind == "empty_body":
            if body.get("stream"):
                resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
                await resp.prepare(request)
                await resp.write_eof()
                return resp
            return web.Response(body=b"", content_type="application/json")
        if body.get("stream") and kind in ("malformed", "truncated"):
            return await _stream(request, body, "x" * 40, cut=kind)
        if kind == "malformed":
            return web.Response(text="<html>gateway error</html>",
                                content_type="application/json")
        if kind == "truncated":
            full = json.dumps(_payload(body, "x"))
            return web.Response(text=full[: len(full) // 2], content_type="application/json")
        if kind == "reasoning":
            payload = _payload(body, action[1])
            payload["choices"][0]["message"]["reasoning_content"] = action[2]
            return web.json_response(payload)
        if kind == "no_content":
            payload = _payload(body, "x")
            payload["choices"] = []
            return web.json_response(payload)
        raise AssertionError(f"unknown scripted action {action!r}")

    async def _reply(self, request: web.Request, body: dict[str, Any],
                     text: str) -> web.StreamResponse:
        if body.get("stream"):
            return await _stream(request, body, text)
        return _completion(body, text)


def _payload(body: dict[str, Any], text: str) -> dict[str, Any]:
    prompt_tokens = sum(len(m.get("content", "")) for m in body.get("messages", [])) // 4
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
        "model": body.get("model", "test"),
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(text) // 4 + 1,
                  "total_tokens": prompt_tokens + len(text) // 4 + 1},
    }


def _completion(body: dict[str, Any], text: str) -> web.Response:
    return web.json_response(_payload(body, text))


async def _stream(request: web.Request, body: dict[str, Any], text: str,
                  cut: str | None = None) -> web.StreamResponse:
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await resp.prepare(request)
    full = _payload(body, text)
    base = {k: full[k] for k in ("id", "created", "model")}
    base["object"] = "chat.completion.chunk"

    async def event(data: dict[str, Any] | str) -> None:
        line = data if isinstance(data, str) else json.dumps(data)
        await resp.write(f"data: {line}\n\n".encode())

    await event({**base, "choices": [{"index": 0, "delta": {"role": "assistant"},
                                      "finish_reason": None}]})
    pieces = [text[i:i + 7] for i in range(0, len(text), 7)]
    for n, piece in enumerate(pieces):
        if cut == "malformed" and n == 1:
            await event("{not json")
        if cut == "truncated" and n == len(pieces) // 2:
            await resp.write_eof()  # the connection ends before any finish chunk
            return resp
        await event({**base, "choices": [{"index": 0, "delta": {"content": piece},
                                          "finish_reason": None}]})
    await event({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    if (body.get("stream_options") or {}).get("include_usage"):
        await event({**base, "choices": [], "usage": full["usage"]})
    await event("[DONE]")
    await resp.write_eof()
    return resp
