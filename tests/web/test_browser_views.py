"""The issue-28 views in Debian's chromium (Playwright): results with the judge's reason,
search, field filters and sort; the compare matrix and side-by-side; the item page's marks,
waterfall and truth gap. Screenshots go to test-artifacts/ (and to docs/ui/ with
ASSAY_UI_SHOTS=1)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from assay.store.db import open_engine
from tests.conftest import ROOT
from tests.web.conftest import Store
from tests.web.rich import PROSE, Rich, make_rich
from tests.web.serving import served
from tests.web.test_browser import CHROMIUM, browser, shot  # noqa: F401 (a fixture)

DOCS = ROOT / "docs" / "ui"


@pytest.fixture(scope="module")
def site(two_runs: Store, tmp_path_factory: pytest.TempPathFactory
         ) -> Iterator[tuple[str, Rich]]:
    rich = make_rich(two_runs, tmp_path_factory.mktemp("views-browser") / "ui.db")
    with served(open_engine(rich.url)) as base:
        yield base, rich


def snap(page: Any, name: str) -> None:
    shot(page, name)
    if os.environ.get("ASSAY_UI_SHOTS"):
        DOCS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(DOCS / f"{name}.png"), full_page=True)


def test_results_search_filter_sort_and_judge_reason(site: tuple[str, Rich],
                                                     browser: Any) -> None:  # noqa: F811
    base, rich = site
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(base + f"/runs/{rich.run_b}")
    page.select_option("select[name=evaluator]", "finsearch-t1-judge@m")
    page.click("#apply")
    page.wait_for_url("**evaluator=**")
    assert "3 result(s)" in page.inner_text("#pager")
    table = page.inner_text("#results")
    assert PROSE in table and "verdict read from the last JSON object" in table
    snap(page, "results-judge-reason")
    page.goto(base + f"/runs/{rich.run_a}")
    page.fill("#search", "贵州茅台")
    page.fill("#where", "question_id=S01")
    page.select_option("#sort", "-score")
    page.click("#apply")
    page.wait_for_url("**sort=-score**")
    pager = page.inner_text("#pager")
    rows = page.locator("#results tr")
    n = rows.count() - 1
    assert f"{n} result(s)" in pager and n > 1
    cells = [rows.nth(i).locator("td").nth(4).inner_text() for i in range(1, n + 1)]
    assert cells[0] == "1.0" and cells == sorted(cells, reverse=True)
    for i in range(1, n + 1):
        assert "Assay_Sample_S01" in rows.nth(i).inner_text()
    # the filters stay in the form and in the pager's links
    assert page.input_value("#search") == "贵州茅台"
    assert page.locator("input[name=where]").first.input_value() == "question_id=S01"
    snap(page, "results-search")
    page.fill("#search", "no such text anywhere")
    page.click("#apply")
    page.wait_for_selector("#no-results")
    assert "0 result(s)" in page.inner_text("#pager")
    page.close()
