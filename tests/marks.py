"""The end-to-end families of tests, by marker (registered in pyproject.toml), and the guard
that keeps the markers true.

    process   starts a process: the `assay` entry point, a command target, `python -c`, git …
    server    listens on a port: a local HTTP server (OpenAI-compatible, agent, OTLP), the
              receiver of `assay watch`, uvicorn, PostgreSQL
    ray       starts a real local Ray cluster (processes and servers)
    browser   drives chromium through Playwright (a process, and the UI served by uvicorn)

`make check` runs every test that has none of them; `make test` runs them all.

A fixture that starts one of these says so where it is defined (`@starts("server")`), and every
test that uses it, directly or through another fixture, gets the marker at collection
(`pytest_collection_modifyitems`); a test that starts one itself is marked by hand (or its
module, with `pytestmark`). The guard (`pytest_runtest_*` below) fails any test — in `make test`
too — that starts a process without `process`, `ray` or `browser`, or listens on a socket
without `server`, `ray` or `browser`: a test that needs a marker says so the first time it
runs, instead of slipping into `make check`."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest

FAMILIES = ("process", "server", "ray", "browser")
# what each marker allows: starting a process, listening on a socket
ALLOWS = {"process": {"process"}, "server": {"server"}, "ray": {"process", "server"},
          "browser": {"process", "server"}}
F = TypeVar("F", bound=Callable[..., Any])


def starts(*marks: str) -> Callable[[F], F]:
    """Declares what a fixture starts (under `@pytest.fixture`): each test that uses it gets
    `marks`."""
    unknown = set(marks) - set(FAMILIES)
    assert not unknown, f"not a family of tests/marks.py: {sorted(unknown)}"

    def declare(fixture: F) -> F:
        fixture._assay_starts = marks  # type: ignore[attr-defined]
        return fixture
    return declare


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        # every fixture the test uses, directly or through others (pytest's own record of them)
        info = getattr(item, "_fixtureinfo", None)
        for defs in getattr(info, "name2fixturedefs", {}).values():
            for fixturedef in defs:
                for mark in getattr(fixturedef.func, "_assay_starts", ()):
                    item.add_marker(mark)


class UnmarkedError(RuntimeError):
    """Raised where an unmarked test starts a process or listens (and recorded, so the test
    fails even if the code under test catches it)."""


def _allowed(item: pytest.Item) -> set[str]:
    out: set[str] = set()
    for name in FAMILIES:
        if item.get_closest_marker(name) is not None:
            out |= ALLOWS[name]
    return out


@contextlib.contextmanager
def _guard(item: pytest.Item) -> Iterator[list[str]]:
    allowed = _allowed(item)
    seen: list[str] = []
    if allowed >= {"process", "server"}:
        yield seen
        return

    def refuse(marker: str, what: str) -> None:
        message = (f"{item.nodeid} {what}, but is not marked {marker!r}: mark it "
                   f"(@pytest.mark.{marker}, or @starts({marker!r}) on the fixture that does it) "
                   "so `make check` leaves it out")
        seen.append(message)
        raise UnmarkedError(message)

    def spawning(original: Callable[..., Any], what: str) -> Callable[..., Any]:
        def guarded(*args: Any, **kwargs: Any) -> Any:
            refuse("process", what)
            return original(*args, **kwargs)
        return guarded

    def listen(sock: socket.socket, *args: Any) -> None:
        refuse("server", f"listens on {sock.getsockname()}")
        real_listen(sock, *args)

    real_listen = socket.socket.listen
    patches: list[tuple[Any, str, Any]] = []
    if "process" not in allowed:
        import _posixsubprocess

        execute = subprocess.Popen._execute_child  # type: ignore[attr-defined]

        def execute_child(popen: subprocess.Popen[Any], args: Any, *rest: Any) -> Any:
            refuse("process", f"starts a process ({args!r:.120})")
            return execute(popen, args, *rest)

        patches += [(subprocess.Popen, "_execute_child", execute_child),
                    (_posixsubprocess, "fork_exec",
                     spawning(_posixsubprocess.fork_exec, "starts a process (fork_exec)")),
                    (os, "fork", spawning(os.fork, "forks")),
                    (os, "system", spawning(os.system, "starts a shell (os.system)"))]
        for name in ("posix_spawn", "posix_spawnp"):
            if hasattr(os, name):
                patches.append((os, name, spawning(getattr(os, name), f"starts a process "
                                                                      f"({name})")))
    if "server" not in allowed:
        patches.append((socket.socket, "listen", listen))
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    for owner, name, value in patches:
        setattr(owner, name, value)
    try:
        yield seen
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


def _phase(item: pytest.Item) -> Iterator[None]:
    with _guard(item) as seen:
        result = yield
    if seen:
        pytest.fail("\n".join(dict.fromkeys(seen)), pytrace=False)
    return result  # type: ignore[no-any-return]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    return (yield from _phase(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    return (yield from _phase(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    return (yield from _phase(item))


def pytest_sessionstart(session: pytest.Session) -> None:
    """What a process works out once and keeps, done before any test: the manifest's git
    commit (`git rev-parse`, cached) and the processor name (`uname -p`, cached by `platform`;
    the OpenAI SDK's request headers), so that the first test to need them starts no process."""
    import platform

    from assay.runner.manifest import git_commit

    git_commit()
    platform.uname().processor  # noqa: B018  (computed once, on first access)
