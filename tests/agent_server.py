"""A real HTTP agent on 127.0.0.1 for tests: POST /ask with JSON; replies per `mode`.

    answer    {"data": {"answer": "...", "sources": [...]}, "usage": {...}}
    status    HTTP 503
    not_json  a text body
    slow      sleeps 2 s first
Each request body and its headers are logged."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from aiohttp import web


class AgentServer:
    def __init__(self) -> None:
        self.mode = "answer"
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self.port = 0
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/ask"

    def start(self) -> AgentServer:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_post("/ask", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        if self.mode == "status":
            return web.json_response({"error": "busy"}, status=503)
        if self.mode == "not_json":
            return web.Response(text="<html>oops</html>")
        if self.mode == "slow":
            await asyncio.sleep(2)
        question = body.get("question", "")
        return web.json_response({"data": {"answer": f"答：{question} 1455.00元",
                                           "sources": ["sse.com.cn"]},
                                  "usage": {"total_tokens": 12}})
