"""The UI in a real browser: Playwright driving Debian's chromium (headless, by its executable
path) against `assay view`'s app served by uvicorn on 127.0.0.1. Screenshots are kept in
test-artifacts/ at the project root."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.store.db import open_engine
from tests.conftest import ROOT
from tests.marks import starts
from tests.web.conftest import Store
from tests.web.serving import served

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = ROOT / "test-artifacts"
pytestmark = [pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                 reason="Debian's chromium is not installed (make test installs "
                                 "it: apt-get install chromium)"), pytest.mark.browser]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
@starts("server")
def server(two_runs: Store, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str,
                                                                                      Store]]:
    tmp = tmp_path_factory.mktemp("browser")
    with sqlite3.connect(two_runs.path / "ui.db") as src, sqlite3.connect(tmp / "ui.db") as dst:
        src.backup(dst)
    with served(open_engine(f"sqlite:///{tmp / 'ui.db'}")) as base:
        yield base, two_runs


@pytest.fixture(scope="module")
@starts("browser")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield b
        b.close()


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def test_open_a_run_filter_and_open_an_item(server: tuple[str, Store], browser: Any) -> None:
    base, store = server
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(base + "/")
    page.click(f"text={store.run_a}")
    page.wait_for_selector("#summary")
    assert "99 result(s)" in page.inner_text("#pager")
    page.select_option("select[name=status]", "error")
    page.click("#apply")
    page.wait_for_url("**status=error**")
    assert "1 result(s) · page 1 of 1" in page.inner_text("#pager")
    rows = page.locator("#results tr")
    assert rows.count() == 2 and "S34_bad_truth" in rows.nth(1).inner_text()
    shot(page, "run-filtered")
    page.select_option("select[name=status]", "")
    page.fill("input[name=score]", "1")
    page.click("#apply")
    page.wait_for_url("**score=1**")
    assert "54 result(s)" in page.inner_text("#pager")
    page.click("#next")
    page.wait_for_url("**page=2**")
    assert "page 2 of 2" in page.inner_text("#pager")
    page.goto(base + f"/runs/{store.run_a}")
    page.click("text=(T1)Assay_Sample_S01_right")
    page.wait_for_selector("#item-title")
    trace = page.inner_text(".trace")
    for text in ("question", "answer (recorded)", "ground truth", "finance-rubric → 1.0",
                 "spans" if "spans" in trace else "rule"):
        assert text in trace, text
    assert "1454.95" in trace  # the accepted interval from the rubric's evidence
    shot(page, "item-trace")
    page.close()


def test_compare_two_runs(server: tuple[str, Store], browser: Any) -> None:
    base, store = server
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(base + "/compare")
    page.select_option("select[name=runs] >> nth=0", store.run_a)
    page.select_option("select[name=runs] >> nth=1", store.run_b)
    page.click("#compare")
    page.wait_for_selector("#comparison")
    table = page.inner_text("#comparison")
    assert "finance-rubric" in table and "+0.433" in table
    flips = page.inner_text("body")
    assert "43 item(s) 0→1 (better in" in flips and "1 item(s) 1→0 (worse in" in flips
    shot(page, "compare")
    page.close()


def test_script_in_an_answer_does_not_run(server: tuple[str, Store], browser: Any) -> None:
    base, store = server
    page = browser.new_page()
    page.goto(base + f"/runs/{store.run_b}/items/%28T1%29Assay_Sample_S01_right")
    assert page.evaluate("window.__pwned") is None
    assert "<script>window.__pwned = 1</script>" in page.inner_text(".trace")
    page.close()


# last: it changes the module's store (a review)
def test_review_from_the_item_page(server: tuple[str, Store], browser: Any) -> None:
    base, store = server
    page = browser.new_page()
    page.goto(base + f"/runs/{store.run_a}/items/%28T1%29Assay_Sample_S01_stale")
    page.click("details.review-form summary")
    page.fill("input[name=score]", "1")
    page.fill("input[name=reason]", "stale close accepted")
    page.fill("input[name=reviewer]", "wang")
    page.click("text=save review")
    page.wait_for_selector(".review")
    assert "corrected to 1.0 by wang: stale close accepted" in page.inner_text(".review")
    page.goto(base + f"/runs/{store.run_a}")
    summary = page.inner_text("#summary")
    assert "0.557" in summary and "0.567" in summary  # raw and corrected side by side
    page.close()
