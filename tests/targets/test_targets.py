"""Targets against real things: an HTTP agent on 127.0.0.1, Python functions, subprocesses."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.core.errors import ConfigError
from assay.core.model_call import Usage
from assay.core.types import Answer, Item
from assay.targets.command import CommandTarget
from assay.targets.http import HttpTarget
from assay.targets.python import PythonTarget
from tests.agent_server import AgentServer
from tests.marks import starts

ITEM = Item("q1", {"prompt": "贵州茅台最新股价", "ticker": "600519", "n": 3}, "v", 2)


def answer(target: Any, item: Item = ITEM) -> Answer:
    async def go() -> Answer:
        try:
            return await target.answer(item)  # type: ignore[no-any-return]
        finally:
            await target.close()
    return asyncio.run(go())


@pytest.fixture()
@starts("server")
def agent() -> Iterator[AgentServer]:
    server = AgentServer().start()
    yield server
    server.stop()


def test_http_target_fills_the_body_and_reads_the_answer_path(
        agent: AgentServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_TOKEN", "tok-SECRET-1")
    t = HttpTarget("agent", agent.url, headers={"Authorization": "Bearer ${AGENT_TOKEN}"},
                   body={"question": "{prompt}", "code": "{ticker}", "k": "{n}",
                         "note": "ticker {ticker} please", "fixed": [1, True]},
                   answer_path="$.data.answer", extras={"sources": "$.data.sources"})
    a = answer(t)
    assert a.error is None and a.text == "答：贵州茅台最新股价 1455.00元"
    assert a.extras["sources"] == ["sse.com.cn"] and a.usage == Usage(total_tokens=12)
    assert agent.requests == [{"question": "贵州茅台最新股价", "code": "600519", "k": 3,
                               "note": "ticker 600519 please", "fixed": [1, True]}]
    assert agent.headers[0]["Authorization"] == "Bearer tok-SECRET-1"
    assert "tok-SECRET-1" not in repr(t.public())  # stored as written: ${AGENT_TOKEN}
    assert t.public()["headers"] == {"Authorization": "Bearer ${AGENT_TOKEN}"}


@pytest.mark.parametrize(("mode", "path", "error"), [
    ("status", "$.data.answer", "HTTP 503: "),
    ("not_json", "$.data.answer", "response is not JSON: <html>oops</html>"),
    ("answer", "$.data.missing", "no value at $.data.missing in the response"),
])
def test_http_failures_are_item_errors(agent: AgentServer, mode: str, path: str,
                                       error: str) -> None:
    agent.mode = mode
    a = answer(HttpTarget("agent", agent.url, answer_path=path))
    assert a.text is None and a.error is not None and a.error.startswith(error)


def test_http_timeout_and_refused_connection(agent: AgentServer) -> None:
    agent.mode = "slow"
    a = answer(HttpTarget("agent", agent.url, timeout_s=0.3))
    assert a.error == "timeout after 0.3 s"
    a = answer(HttpTarget("agent", "http://127.0.0.1:9/ask"))
    assert a.error is not None and a.error.startswith("connection error: ")


def test_http_config_errors() -> None:
    with pytest.raises(ConfigError, match=r"environment variable.*NOT_SET_ANYWHERE_X"):
        HttpTarget("a", "http://x/ask", headers={"X-Key": "${NOT_SET_ANYWHERE_X}"})
    with pytest.raises(ConfigError, match="bad JSONPath"):
        HttpTarget("a", "http://x/ask", answer_path="$.[[")
    with pytest.raises(ConfigError, match="no value for template variable missing"):
        HttpTarget("a", "http://x/ask", body={"q": "{missing}"}).request_body(ITEM)


AGENT_MODULE = '''
import asyncio

def sync_agent(item):
    return f"{item['prompt']}：1455.00元"

async def async_agent(item):
    await asyncio.sleep(0)
    return {"text": "1455", "metadata": {"tool": "quote", "usage": {"total_tokens": 5}}}

def broken(item):
    raise RuntimeError("quote service down")

def wrong_type(item):
    return 1455
'''


@pytest.fixture()
def agent_module(tmp_path: Path) -> Path:
    (tmp_path / "my_agents.py").write_text(AGENT_MODULE, "utf-8")
    yield tmp_path
    sys.modules.pop("my_agents", None)


def test_python_targets(agent_module: Path) -> None:
    a = answer(PythonTarget("s", "my_agents:sync_agent", search=agent_module))
    assert a.text == "贵州茅台最新股价：1455.00元" and a.error is None
    a = answer(PythonTarget("a", "my_agents:async_agent", search=agent_module))
    assert a.text == "1455" and a.extras == {"metadata": {"tool": "quote",
                                                          "usage": {"total_tokens": 5}}}
    assert a.usage == Usage(total_tokens=5) and a.call is not None and a.call.model == ""
    a = answer(PythonTarget("b", "my_agents:broken", search=agent_module))
    assert a.error == "RuntimeError: quote service down"
    a = answer(PythonTarget("w", "my_agents:wrong_type", search=agent_module))
    assert a.error is not None and "returned int; expected text" in a.error


def test_python_target_config_errors(agent_module: Path) -> None:
    with pytest.raises(ConfigError, match="must be 'module:function'"):
        PythonTarget("x", "my_agents.sync_agent", search=agent_module)
    with pytest.raises(ConfigError, match="has no function 'nope'"):
        PythonTarget("x", "my_agents:nope", search=agent_module)
    with pytest.raises(ConfigError, match="cannot import module 'no_such_mod_zz'"):
        PythonTarget("x", "no_such_mod_zz:f", search=agent_module)


@pytest.mark.process
def test_command_targets(tmp_path: Path) -> None:
    script = tmp_path / "agent.py"
    script.write_text("import json, sys\nitem = json.load(sys.stdin)\n"
                      "if item['n'] > 5: sys.exit('too big')\n"
                      "print(item['id'], item['prompt'], '1455.00')\n", "utf-8")
    a = answer(CommandTarget("c", [sys.executable, str(script)]))
    assert a.text == "q1 贵州茅台最新股价 1455.00" and a.extras == {"exit_code": 0}
    big = Item("q2", {"prompt": "x", "n": 9})
    a = answer(CommandTarget("c", [sys.executable, str(script)]), big)
    assert a.error == "exit code 1: too big"
    a = answer(CommandTarget("c", f"{sys.executable} -c 'import time; time.sleep(5)'",
                             timeout_s=0.3))
    assert a.error == "timeout after 0.3 s"
    a = answer(CommandTarget("c", ["/no/such/agent"]))
    assert a.error is not None and a.error.startswith("cannot start /no/such/agent")


def test_http_agent_tool_calls_are_kept_with_its_answer(agent: AgentServer) -> None:
    from tests.agent_server import TOOLS

    agent.mode = "tools"
    a = answer(HttpTarget("agent", agent.url, answer_path="$.data.answer"))
    assert a.error is None and a.text == "答：贵州茅台最新股价 1455.00元"
    calls = a.extras["tool_calls"]
    assert [c["name"] for c in calls] == ["quote", "calculator", "format_answer"]
    assert calls[0]["arguments"] == TOOLS[0]["arguments"]
    assert calls[0]["result"] == TOOLS[0]["result"]
    assert calls[1]["start"] == 1796002200.4 and "tool_call_problems" not in a.extras
    # another field, by its JSONPath; a path that finds nothing means no trajectory
    a = answer(HttpTarget("agent", agent.url, answer_path="$.data.answer",
                          tool_calls="$.usage"))
    assert a.extras["tool_calls"] == []
    assert a.extras["tool_call_problems"] == ["tool calls: expected a list, got dict"]
    agent.mode = "answer"
    assert "tool_calls" not in answer(HttpTarget("agent", agent.url,
                                                 answer_path="$.data.answer")).extras
