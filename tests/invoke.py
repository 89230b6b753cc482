"""The `assay` command for the tests, two ways, both answering as `subprocess.run` does
(returncode, stdout, stderr as text):

- `assay_in_process`: `assay.cli.main.main()` called in this process, with the arguments,
  working directory and environment a process would have, its stdout and stderr captured, and
  what a call may change in the interpreter put back afterwards (see `_isolated`). A CLI test
  costs what the command does, not the second or more of starting Python and importing Assay.
- `assay_process`: the installed entry point as a real process (the test is then marked
  `process`), for what only a process shows: a signal (Ctrl-C, SIGKILL and resume), two
  processes at once, the process exiting while user code still hangs in a thread, the entry
  point itself.

What no in-process call can show stays with `assay_process`; everything else a test asserts
(exit code, output, the store, files) is the same either way."""

from __future__ import annotations

import contextlib
import functools
import importlib
import io
import logging
import os
import signal
import subprocess
import sys
import traceback
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import FrameType, ModuleType
from typing import cast

ASSAY = str(Path(sys.executable).parent / "assay")
_ROOT = Path(__file__).resolve().parent.parent
HIDDEN = ("ASSAY_DB", "ASSAY_MODELS")  # the caller's own store and models never leak in


def cli_env(extra: Mapping[str, str] | None = None, hide: tuple[str, ...] = HIDDEN
            ) -> dict[str, str]:
    """This process's environment without `hide`, plus `extra`: what the command runs with."""
    env = {k: v for k, v in os.environ.items() if k not in hide}
    env.update(extra or {})
    return env


def assay_process(*args: str, cwd: Path, env: Mapping[str, str] | None = None,
                  timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`assay ARGS` as a process of the installed entry point."""
    return subprocess.run([ASSAY, *args], capture_output=True, text=True, cwd=cwd,
                          env=dict(cli_env() if env is None else env), timeout=timeout,
                          check=False)


class _TimedOut(BaseException):
    """Raised in the main thread by SIGALRM when an in-process call runs past its timeout
    (a BaseException, so no `except Exception` in the command swallows it)."""


def assay_in_process(*args: str, cwd: Path, env: Mapping[str, str] | None = None,
                     timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`assay ARGS` run by calling the entry point's `main()` here. The exit code is that of
    the SystemExit it ends with; an exception that escapes `main()` is printed to stderr as a
    traceback, exit 1, as the interpreter would. Past `timeout` seconds it raises
    subprocess.TimeoutExpired, as `subprocess.run` does."""
    from assay.cli.main import main

    argv = [ASSAY, *args]
    out, err = _stream("strict"), _stream("backslashreplace")
    code: int
    environ = dict(cli_env() if env is None else env)
    with _isolated(Path(cwd), environ, argv, out, err), _alarm(timeout):
        try:
            main()
        except SystemExit as exc:
            if exc.code is None or isinstance(exc.code, int):
                code = (exc.code or 0) & 0xFF  # what the parent of a process sees
            else:  # sys.exit("message"): printed to stderr, exit 1
                print(exc.code, file=sys.stderr)
                code = 1
        except _TimedOut:
            raise subprocess.TimeoutExpired(argv, timeout) from None
        except BaseException:  # escaped main(): the interpreter's traceback and exit 1
            traceback.print_exc()
            code = 1
        else:
            code = 0
    return subprocess.CompletedProcess(argv, code, _text(out), _text(err))


def _stream(errors: str) -> io.TextIOWrapper:
    """A pipe's text stream as a process in a UTF-8 locale has it (not a terminal; stdout
    strict, stderr backslashreplace)."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors=errors, newline="\n",
                            write_through=True)


def _text(stream: io.TextIOWrapper) -> str:
    """The bytes written, read back as `subprocess.run(text=True)` reads a pipe (universal
    newlines)."""
    stream.flush()
    data = cast(io.BytesIO, stream.buffer).getvalue()
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


@contextlib.contextmanager
def _alarm(timeout: float) -> Iterator[None]:
    def expired(signum: int, frame: FrameType | None) -> None:
        raise _TimedOut()

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# Python's own warning filters (what a fresh `assay` process has), not pytest's
_DEFAULT_WARNINGS = [("default", DeprecationWarning, "__main__"),
                     ("ignore", DeprecationWarning, ""), ("ignore", PendingDeprecationWarning, ""),
                     ("ignore", ImportWarning, ""), ("ignore", ResourceWarning, "")]


@contextlib.contextmanager
def _isolated(cwd: Path, env: dict[str, str], argv: list[str], out: io.TextIOWrapper,
              err: io.TextIOWrapper) -> Iterator[None]:
    """For the length of one call: the process's argv and `__main__`, working directory,
    environment, empty stdin and captured stdout and stderr, Python's default warning filters
    and no logging handler but Python's last resort (to stderr, as in a process). Afterwards
    everything is put back: the environment, the working directory, sys.path, the signal
    handlers, the root logger. The modules of user code (a target's `agents.py`, a check's
    `checks.py`: see `_user_modules`) that other calls or tests imported are hidden from the call,
    and those it imports are forgotten after it, so each call imports its own, as a process
    would; and the loop that runs async user code (assay.core.calls) is stopped, so a call never
    inherits another's."""
    import assay.core.calls as calls

    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_path = list(sys.path)
    hidden = _user_modules()  # a process of its own has none of them
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    saved_argv = sys.argv
    saved_main = sys.modules["__main__"]
    saved_signals = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    root = logging.getLogger()
    saved_logging = (list(root.handlers), root.level)
    importlib.invalidate_caches()  # a file written since the last import is seen, as by a process
    try:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        for name in hidden:
            del sys.modules[name]
        sys.argv = argv
        sys.modules["__main__"] = _script(argv[0])  # click names the program from it
        sys.stdin = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
        sys.stdout, sys.stderr = out, err
        root.handlers = []
        root.setLevel(logging.WARNING)
        with warnings.catch_warnings():
            warnings.resetwarnings()
            for action, category, module in reversed(_DEFAULT_WARNINGS):
                warnings.filterwarnings(action, category=category, module=module)
            yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        sys.argv = saved_argv
        sys.modules["__main__"] = saved_main
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        sys.path[:] = saved_path
        for s, handler in saved_signals.items():
            if handler is not None:
                signal.signal(s, handler)
        root.handlers, level = saved_logging
        root.setLevel(level)
        for name in _user_modules():  # the call's own: the next call imports them afresh
            del sys.modules[name]
        sys.modules.update(hidden)
        if calls._user_loop is not None:
            loop, _ = calls._user_loop
            calls._user_loop = None
            with contextlib.suppress(RuntimeError):  # already closed
                loop.call_soon_threadsafe(loop.stop)


def _script(path: str) -> ModuleType:
    """`__main__` as a console script has it (no package: click then names the program after
    argv[0], `assay`, not after pytest's `python -m pytest`)."""
    main = ModuleType("__main__")
    main.__file__ = path
    main.__package__ = None
    main.__spec__ = None
    return main


def _user_modules() -> dict[str, ModuleType]:
    """The loaded modules that are not Assay's, the tests' or an installed library's: a
    target's or check's own code (`agents.py`, `checks.py`, the examples' `agents` package)."""
    out = {}
    for name, module in list(sys.modules.items()):
        where = getattr(module, "__file__", None) or next(iter(getattr(module, "__path__", ())),
                                                         None)
        if isinstance(where, str) and _users(where):
            out[name] = module
    return out


@functools.cache
def _users(where: str) -> bool:
    import assay

    path = os.path.realpath(where)
    return not any(path.startswith(os.path.realpath(p) + os.sep) for p in (
        Path(assay.__file__).parent.parent, _ROOT / "tests", sys.prefix, sys.base_prefix,
        sys.exec_prefix))
