from __future__ import annotations

from pathlib import Path

import pytest

from tests.marks import pytest_collection_modifyitems as mark_started_families
from tests.marks import (  # noqa: F401  (the markers' hooks: see tests/marks.py)
    pytest_runtest_call,
    pytest_runtest_setup,
    pytest_runtest_teardown,
    pytest_sessionstart,
    starts,
)

# `make test` runs the suite in two lanes, a file at a time (pytest-xdist, --dist loadfile),
# handing the files out in the order collected. The longest file (the compiled wheel's: mypyc
# builds it for minutes) goes first, so the other lane runs the rest beside it; collected in
# place, it started last and ran alone for four of the suite's nine minutes.
FIRST = ("tests/evaluators/rubric/test_compiled_wheel.py",)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mark_started_families(items)
    items.sort(key=lambda item: not item.nodeid.startswith(FIRST))  # stable: the rest in place

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "finsearch_t1_sample.json"
SAMPLE_T23 = ROOT / "examples" / "finsearch_t23_sample.json"  # T2/T3: the reference is the truth
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture()
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'assay.db'}"


@pytest.fixture()
@starts("server")
def openai_server():  # type: ignore[no-untyped-def]
    from tests.openai_server import OpenAIServer

    server = OpenAIServer().start()
    yield server
    server.stop()


def wait_for_results(db_path: Path, at_least: int, timeout_s: float = 60.0) -> int:
    """Poll a store being written by another process until it holds `at_least` results (or
    the time is up); returns how many it holds."""
    import sqlite3
    import time

    deadline = time.monotonic() + timeout_s
    done = 0
    while time.monotonic() < deadline:
        time.sleep(0.05)
        if not db_path.exists():
            continue
        try:
            with sqlite3.connect(db_path) as db:
                done = db.execute("SELECT count(*) FROM results").fetchone()[0]
        except sqlite3.OperationalError:  # not migrated yet, or locked for a moment
            continue
        if done >= at_least:
            break
    return int(done)
