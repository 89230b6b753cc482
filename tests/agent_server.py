"""A real HTTP agent on 127.0.0.1 for tests: POST /ask with JSON; replies per `mode`.

    answer    {"data": {"answer": "...", "sources": [...]}, "usage": {...}}
    status    HTTP 503
    not_json  a text body
    slow      sleeps 2 s first
    echo      HTTP 403 whose page repeats the request's headers (tokens included)
    surrogate an answer carrying a lone surrogate and a NUL as JSON escapes
    transfer  the answer with `"end": "transfer"` (the agent hands a conversation over)
    tools     the answer with its trajectory in `tool_calls` (TOOLS: a quote lookup timed in
              ISO 8601, a calculator timed in Unix milliseconds, an untimed OpenAI-shaped call)
`chooser`, when set, picks the mode for each request (None: `mode`).
Each request body and its headers are logged."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from aiohttp import web

from tests.local_server import LocalServer

TOOLS: list[dict[str, Any]] = [
    {"id": "call_1", "name": "quote", "arguments": {"symbol": "600519", "market": "SH"},
     "result": {"last": 1455.0, "currency": "CNY"},
     "start": "2026-11-30T01:30:00.100Z", "end": "2026-11-30T01:30:00.350Z"},
    {"name": "calculator", "arguments": "1455.00 * 1", "result": "1455.00",
     "start": 1796002200400, "end": 1796002200420},
    {"id": "call_3", "type": "function",
     "function": {"name": "format_answer", "arguments": "{\"digits\": 2}"}},
]


class AgentServer(LocalServer):
    def __init__(self) -> None:
        super().__init__()
        self.mode = "answer"
        self.chooser: Callable[[dict[str, Any]], str | None] | None = None
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/ask"

    def start(self) -> AgentServer:
        super().start()
        return self

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/ask", self._handle)
        return app

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        mode = (self.chooser(body) if self.chooser is not None else None) or self.mode
        if mode == "status":
            return web.json_response({"error": "busy"}, status=503)
        if mode == "not_json":
            return web.Response(text="<html>oops</html>")
        if mode == "echo":
            seen = "; ".join(f"{k}: {v}" for k, v in request.headers.items())
            return web.Response(text=f"<h1>403 Forbidden</h1><p>{seen}</p>", status=403)
        if mode == "surrogate":
            return web.json_response({"data": {"answer": "1455.00\ud800元\u0000"}})
        if mode == "slow":
            await asyncio.sleep(2)
        question = body.get("question", "")
        if mode == "transfer":
            return web.json_response({"data": {"answer": f"答：{question} 转人工"},
                                      "end": "transfer"})
        if mode == "tools":
            return web.json_response({"data": {"answer": f"答：{question} 1455.00元"},
                                      "tool_calls": TOOLS, "usage": {"total_tokens": 12}})
        return web.json_response({"data": {"answer": f"答：{question} 1455.00元",
                                           "sources": ["sse.com.cn"]},
                                  "usage": {"total_tokens": 12}})
