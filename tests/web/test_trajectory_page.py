"""An HTTP agent's trajectory on the item page and in `assay show --item`: an `assay run` against
the test agent (which reports three tool calls with its answer), then the page in Debian's
chromium and the CLI's chain."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.store.db import open_engine
from tests.agent_server import TOOLS, AgentServer
from tests.cli.test_run_cli import run, run_id_of
from tests.conftest import SAMPLE
from tests.marks import starts
from tests.web.serving import served
from tests.web.test_browser import CHROMIUM, browser, shot  # noqa: F401 (a fixture)

ITEM = "q1"


@pytest.fixture(scope="module")
@starts("server")
def agent_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    tmp = tmp_path_factory.mktemp("trajectory")
    agent = AgentServer().start()
    agent.mode = "tools"
    try:
        first = json.loads(SAMPLE.read_text("utf-8"))[0]  # 贵州茅台, with its recorded truth
        (tmp / "items.jsonl").write_text(json.dumps({**first, "id": ITEM},
                                                    ensure_ascii=False) + "\n", "utf-8")
        (tmp / "spec.yaml").write_text(f"""\
dataset: {{path: items.jsonl, id_field: id}}
targets:
  - {{name: agent, type: http, url: {agent.url}, body: {{question: "{{prompt}}"}},
      answer_path: $.data.answer}}
evaluators: [finance-rubric]
""", "utf-8")
        r = run("run", "spec.yaml", cwd=tmp)
        assert r.returncode == 0, r.stderr
        yield tmp, run_id_of(r.stdout)
    finally:
        agent.stop()


def test_show_item_lists_the_tool_calls(agent_run: tuple[Path, str]) -> None:
    tmp, run_id = agent_run
    r = run("show", run_id, "--item", ITEM, cwd=tmp)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert 'tool call 1: quote {"symbol": "600519", "market": "SH"} → {"last": 1455.0, ' \
           '"currency": "CNY"}' in out
    assert "tool call 2: calculator 1455.00 * 1 → 1455.00" in out
    assert "tool call 3: format_answer" in out
    # the span tree: TOOL spans under the target span, with what each was given and returned
    assert out.index("target agent") < out.index("tool quote") < out.index("tool calculator")
    # read as a person reads it: the tool's input as given, not escaped inside JSON
    assert 'input {"symbol":"600519","market":"SH"}' in out


@pytest.fixture(scope="module")
@starts("server")
def page_base(agent_run: tuple[Path, str]) -> Iterator[str]:
    tmp, _ = agent_run
    with served(open_engine(f"sqlite:///{tmp / '.assay' / 'assay.db'}")) as base:
        yield base


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")
def test_item_page_shows_the_agent_trajectory(agent_run: tuple[Path, str], page_base: str,
                                              browser: Any) -> None:  # noqa: F811
    _, run_id = agent_run
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{page_base}/runs/{run_id}/items/{ITEM}")
    page.wait_for_selector("#item-title")
    trace = page.inner_text(".trace")
    assert "3 tool call(s): quote → calculator → format_answer" in trace
    rows = [r.inner_text() for r in page.locator(".trace table.spans tr").all()]
    assert [r.split("\t")[0] for r in rows[1:]] == ["sample", "target", "tool", "tool", "tool",
                                                    "truth", "evaluator"]  # as a tree
    tools = [r for r in rows if r.startswith("tool")]
    assert tools[0].split("\t")[:2] == ["tool", "· · quote"]  # under the target span
    assert "finance-rubric → 1.0" in trace
    assert 'arguments {"symbol":"600519","market":"SH"} → result ' \
           '{"last":1455.0,"currency":"CNY"}' in tools[0]
    assert "250.0" in tools[0]  # its own timing: 01:30:00.100 → 01:30:00.350
    assert "arguments 1455.00 * 1 → result 1455.00" in tools[1]
    assert "(untimed)" in tools[2] and TOOLS[2]["function"]["name"] in tools[2]
    shot(page, "item-trajectory")
    page.close()
