"""`http`: an agent behind an HTTP JSON API.

The request body is a JSON template: a string that is exactly `{field}` takes the item's value
as is (numbers stay numbers); other strings have `{field}` placeholders filled as text. Header
values may name environment variables as `${VAR}`; they are read at call time and never stored
(nor printed: an agent that echoes one back finds it masked, see assay.core.secrets).
The answer is taken from the response with a JSONPath (`$.answer`, `$.choices[0].text`); the
agent's tool calls, when it reports them, from `tool_calls` (default `$.tool_calls`; see
targets/trajectory.py): they become TOOL spans of the item's trace."""

from __future__ import annotations

import json
import os
import re
import time
from typing import Any

import orjson

from assay.core import secrets
from assay.core.conversation import history_of
from assay.core.errors import ConfigError
from assay.core.model_call import ModelCall
from assay.core.render import SINGLE, render
from assay.core.types import Answer, Item

from .base import TargetContext, mapping_option, timeout_option
from .boundary import settled
from .trajectory import read as read_tool_calls

_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_WHOLE = re.compile(r"^\{([A-Za-z_][A-Za-z0-9_]*)\}$")


def _env_secret(name: str) -> str:
    """A header's `${VAR}`, read now and remembered as a secret to mask."""
    value = os.environ.get(name, "")
    secrets.remember(value, name)
    return value


def _body_text(raw: bytes, limit: int = 200) -> str:
    """The start of a response body for an error line: masked before it is cut."""
    return secrets.clip(raw[:65536].decode("utf-8", "replace"), limit)


def _loads(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        # orjson refuses escapes of lone surrogates ("\ud800") that the json module accepts;
        # such a reply is still an answer: its text is made safe by `settled`
        return json.loads(raw.decode("utf-8", "replace"))


def _jsonpath(expr: str, where: str) -> Any:
    try:
        # the extended parser: filters too, e.g. $.items[?(@.kind == 'answer')].text
        from jsonpath_ng.ext.parser import parse
    except ImportError:  # pragma: no cover - a dependency of assay-eval
        raise ConfigError("the jsonpath-ng package is missing: pip install jsonpath-ng") \
            from None
    try:
        return parse(expr)
    except Exception as exc:  # jsonpath-ng raises its own lexer/parser exception types
        raise ConfigError(f"{where}: bad JSONPath '{expr}': {exc}") from None


class HttpTarget:
    kind = "http"

    def __init__(self, name: str, url: str, *, method: str = "POST",
                 headers: dict[str, str] | None = None, body: Any = None,
                 answer_path: str = "$.answer", extras: dict[str, str] | None = None,
                 timeout_s: float = 60.0, tool_calls: str = "$.tool_calls",
                 history: str = "messages", end: str = "$.end") -> None:
        self.name = name
        self.url = url
        self.method = method.upper()
        self.headers = dict(headers or {})
        self.body = body if body is not None else {"question": "{prompt}"}
        self.answer_path = answer_path
        self.extra_paths = dict(extras or {})
        self.timeout_s = timeout_s
        self.tool_calls_path = tool_calls
        # a conversation's turn: the history as a `messages` array, or only this turn's input
        # with a `session_id` the agent keeps its own history under
        self.history = history
        self.end_path = end
        where = f"target '{name}'"
        if history not in ("messages", "session"):
            raise ConfigError(f"{where}: history must be messages or session, not '{history}'")
        if not re.match(r"^https?://", url):
            raise ConfigError(f"{where}: url must start with http:// or https://")
        self._answer = _jsonpath(answer_path, where)
        self._extras = {k: _jsonpath(v, where) for k, v in self.extra_paths.items()}
        self._tools = _jsonpath(tool_calls, where)
        self._end = _jsonpath(end, where)
        missing = sorted({m.group(1) for v in self.headers.values() for m in _ENV.finditer(v)
                          if not os.environ.get(m.group(1))})
        if missing:
            raise ConfigError(f"{where}: environment variable(s) not set for its headers: "
                              f"{', '.join(missing)}")
        self._session: Any = None

    def public(self) -> dict[str, Any]:
        # Header values are stored as written (`Bearer ${AGENT_TOKEN}`), never expanded.
        return {"type": self.kind, "url": self.url, "method": self.method,
                "headers": self.headers, "body": self.body, "answer_path": self.answer_path,
                "extras": self.extra_paths, "timeout_s": self.timeout_s,
                "tool_calls": self.tool_calls_path, "history": self.history,
                "end": self.end_path}

    def request_body(self, item: Item) -> Any:
        where = f"target {self.name}, item {item.id} (line {item.line})"

        def fill(node: Any) -> Any:
            if isinstance(node, str):
                whole = _WHOLE.match(node)
                if whole:
                    value = item.fields.get(whole.group(1))
                    if value is None:
                        raise ConfigError(f"{where}: no value for template variable "
                                          f"{whole.group(1)}")
                    return value
                return render(node, item.fields, SINGLE, where=where)
            if isinstance(node, dict):
                return {k: fill(v) for k, v in node.items()}
            if isinstance(node, list):
                return [fill(v) for v in node]
            return node
        body = fill(self.body)
        history = history_of(item)
        if history is None:
            return body
        # a conversation's turn: the history as the body's `messages` (an OpenAI-shaped
        # template's own one-message list is replaced by it), or its `session_id`
        key, placeholder = ("messages", "{messages}") if self.history == "messages" else \
            ("session_id", "{session_id}")
        if isinstance(body, dict):
            body[key] = history if key == "messages" else item.fields["session_id"]
        elif placeholder not in orjson.dumps(self.body).decode():
            raise ConfigError(f"target '{self.name}': in a conversation its body must be a "
                              f"JSON object (the history goes in its '{key}'), or place "
                              f'"{placeholder}" in it')
        return body

    async def answer(self, item: Item) -> Answer:
        return settled(await self._respond(item))

    async def _respond(self, item: Item) -> Answer:
        import aiohttp

        if self._session is None:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=self.timeout_s))
        body = self.request_body(item)
        headers = {"Content-Type": "application/json",
                   **{k: _ENV.sub(lambda m: _env_secret(m.group(1)), v)
                      for k, v in self.headers.items()}}
        start = time.perf_counter()
        extras: dict[str, Any] = {"request": body}
        try:
            async with self._session.request(self.method, self.url, data=orjson.dumps(body),
                                             headers=headers) as resp:
                raw = await resp.read()
                latency = time.perf_counter() - start
                extras["http_status"] = resp.status
                if resp.status >= 400:
                    return Answer(None, extras, latency, None,
                                  f"HTTP {resp.status}: {_body_text(raw)}")
        except TimeoutError:
            return Answer(None, extras, time.perf_counter() - start, None,
                          f"timeout after {self.timeout_s:g} s")
        except aiohttp.ClientError as exc:
            return Answer(None, extras, time.perf_counter() - start, None,
                          f"connection error: {type(exc).__name__}: {exc}")
        try:
            data = _loads(raw)
        except ValueError:
            return Answer(None, extras, latency, None,
                          f"response is not JSON: {_body_text(raw)}")
        found = self._answer.find(data)
        if not found:
            return Answer(None, extras, latency, data,
                          f"no value at {self.answer_path} in the response")
        for key, path in self._extras.items():
            hits = path.find(data)
            extras[key] = hits[0].value if hits else None
        hits = self._tools.find(data)
        if hits:  # the agent's trajectory: TOOL spans under the target's (runner/pipeline.py)
            calls, problems = read_tool_calls(hits[0].value)
            extras["tool_calls"] = calls
            if problems:
                extras["tool_call_problems"] = problems
        ends = self._end.find(data)
        if ends and isinstance(ends[0].value, str):  # the agent ends the conversation
            extras["end"] = ends[0].value
        value = found[0].value
        # the tokens the agent says it used (and the model it names): the answer's call
        call = ModelCall.reported(data.get("usage"), data.get("model")) \
            if isinstance(data, dict) else None
        return Answer(value if isinstance(value, str) else orjson.dumps(value).decode(),
                      extras, latency, data, None, call)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()


def build(ctx: TargetContext, *, name: str, url: str, method: str = "POST",
          headers: dict[str, Any] | None = None, body: Any = None,
          answer_path: str = "$.answer", extras: dict[str, Any] | None = None,
          timeout_s: float = 60, tool_calls: str = "$.tool_calls", history: str = "messages",
          end: str = "$.end") -> HttpTarget:
    return HttpTarget(name, str(url), method=str(method),
                      headers={str(k): str(v) for k, v in
                               mapping_option(headers, "headers", name).items()},
                      body=body, answer_path=str(answer_path),
                      extras={str(k): str(v) for k, v in
                              mapping_option(extras, "extras", name).items()},
                      timeout_s=timeout_option(timeout_s, name), tool_calls=str(tool_calls),
                      history=str(history), end=str(end))
