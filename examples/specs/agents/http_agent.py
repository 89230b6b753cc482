"""An example HTTP agent for examples/specs/http.yaml: POST /ask {"question", "ticker"} →
{"data": {"answer", "sources"}}. It answers from the sample dataset's recorded answers.

    python3 examples/specs/agents/http_agent.py [--port 8765]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from aiohttp import web

SAMPLE = Path(__file__).resolve().parents[2] / "finsearch_t1_sample.json"


def make_app() -> web.Application:
    by_question: dict[str, str] = {}
    for row in json.loads(SAMPLE.read_text("utf-8")):
        by_question.setdefault(row["prompt"], str(row["response"]))

    async def ask(request: web.Request) -> web.Response:
        body = await request.json()
        text = by_question.get(body.get("question", ""))
        if text is None:
            return web.json_response({"error": "unknown question"}, status=404)
        return web.json_response({"data": {"answer": text, "sources": ["sample"]}})

    app = web.Application()
    app.router.add_post("/ask", ask)
    return app


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=8765)
    web.run_app(make_app(), host="127.0.0.1", port=ap.parse_args().port)
