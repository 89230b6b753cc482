"""A conversation in Debian's chromium (Playwright): the item page's turns with the simulated
user marked, tool calls, the truth at a turn and per-turn scores; the run page's outcome counts,
one followed to the filtered results. Screenshots go to test-artifacts/ (and to docs/ui/ with
ASSAY_UI_SHOTS=1)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.store.db import open_engine
from tests.marks import starts
from tests.web.conversations import HOSTILE, SIM_FIRST, Conversations, make_conversations
from tests.web.serving import served
from tests.web.test_browser import CHROMIUM, browser  # noqa: F401 (a fixture)
from tests.web.test_browser_views import snap

pytestmark = [pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                 reason="Debian's chromium is not installed"),
              pytest.mark.browser]


@pytest.fixture(scope="module")
@starts("server")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Conversations]]:
    conv = make_conversations(tmp_path_factory.mktemp("conversation-browser"))
    with served(open_engine(conv.url)) as base:
        yield base, conv


def test_conversation_item_page(site: tuple[str, Conversations],
                                browser: Any) -> None:  # noqa: F811
    base, conv = site
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    page.goto(f"{base}/runs/{conv.run_id}/items/s1")
    page.wait_for_selector("#turns-0")
    assert page.locator("#turns-0 > li.turn").count() == 3
    first = page.inner_text("#turn-0-1")
    assert "simulated user" in first and "sim-qwen · 122 tokens" in first and SIM_FIRST in first
    assert "truth at this turn: akshare 600519 (SH)" in first
    assert page.locator("#turn-0-2 .tool-call").inner_text() == \
        "quote arguments 600519 prev → error: quote service timed out"
    assert page.locator(".source.simulated").count() == 3
    assert "combined by min from turn 1 → 1.0, turn 2 → 0.0" in page.inner_text("#combined-0-0")
    snap(page, "item-conversation")
    page.goto(f"{base}/runs/{conv.run_id}/items/c1")
    page.wait_for_selector("#turns-0")
    assert page.evaluate("window.__pwned") is None
    assert HOSTILE in page.inner_text("#turn-0-2")
    page.close()


def test_outcome_counts_open_the_filtered_results(site: tuple[str, Conversations],
                                                  browser: Any) -> None:  # noqa: F811
    base, conv = site
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(f"{base}/runs/{conv.run_id}")
    page.wait_for_selector("#outcomes")
    assert "simulator" in page.inner_text("#costs")
    assert "stale_data" in page.inner_text("#causes")
    page.evaluate("document.querySelector('h2 + #costs').previousElementSibling"
                  ".scrollIntoView()")  # the cost split, outcomes and causes in one screenful
    snap(page, "run-conversations")
    page.click("a.outcome-link[data-outcome=max_turns]")
    page.wait_for_url("**outcome=max_turns**")
    assert "2 result(s)" in page.inner_text("#pager")
    assert page.input_value("#outcome") == "max_turns"
    page.close()
