"""tests/marks.py: a test that starts a process or listens without its marker fails, a marked
one may, and a fixture declared with `@starts` marks the tests that use it."""

from __future__ import annotations

import socket
import subprocess

import pytest

from tests.marks import UnmarkedError, _guard, starts


def test_an_unmarked_test_starts_no_process(request: pytest.FixtureRequest) -> None:
    with pytest.raises(UnmarkedError, match=r"starts a process .*, but is not marked 'process'"), \
            _guard(request.node) as seen:
        subprocess.run(["true"], check=False)
    assert len(seen) == 1  # recorded too: the test fails even if the code under test catches it


def test_an_unmarked_test_does_not_listen(request: pytest.FixtureRequest) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        with pytest.raises(UnmarkedError, match=r"listens on .*, but is not marked 'server'"), \
                _guard(request.node):
            s.listen()


@pytest.mark.process
def test_a_test_marked_process_may_start_one_but_not_listen(
        request: pytest.FixtureRequest) -> None:
    with _guard(request.node) as seen:
        assert subprocess.run(["true"], check=False).returncode == 0
        with socket.socket() as s, pytest.raises(UnmarkedError):
            s.bind(("127.0.0.1", 0))
            s.listen()
    assert len(seen) == 1


@pytest.fixture()
@starts("server")
def pretend_server() -> str:
    return "http://127.0.0.1:9"


@pytest.fixture()
def uses_it(pretend_server: str) -> str:
    return pretend_server


def test_a_fixture_marks_the_tests_that_use_it(uses_it: str,
                                               request: pytest.FixtureRequest) -> None:
    assert request.node.get_closest_marker("server") is not None
    assert request.node.get_closest_marker("process") is None


def test_starts_knows_the_families() -> None:
    with pytest.raises(AssertionError, match="not a family"):
        starts("servr")
