"""Calling user code (a Python target, a check of one's own) so that it costs its item, never
the run.

A sync function runs in a daemon thread of its own: it cannot stall the other items, and a
timeout really ends its item — the awaiting side stops waiting, and the thread, which Python
cannot stop from outside, is left behind without keeping the process alive after the run (a
thread of asyncio's default executor would: the loop and the interpreter join those at exit).

Whatever the function raises there — `sys.exit()` (SystemExit), a KeyboardInterrupt of its own,
any BaseException — comes back as `UserExit`, an ordinary Exception that the caller turns into
the item's error: a signal is only ever delivered to the main thread, so nothing raised in this
thread is the user's Ctrl-C. (On the main thread, callers catch SystemExit but let
KeyboardInterrupt through: there it may be a real Ctrl-C, which must stop the run.)"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import Any


class UserExit(Exception):
    """A BaseException that is not an Exception (SystemExit …), raised by user code."""

    def __init__(self, exc: BaseException) -> None:
        self.original = exc
        detail = str(exc)
        what = type(exc).__name__ + (f": {detail}" if detail else "")
        if isinstance(exc, SystemExit):
            what = f"called sys.exit({exc.code!r})"
        super().__init__(what)


# What a caller on the main thread takes as the item's failure: every Exception, and a
# SystemExit (sys.exit in user code), but not KeyboardInterrupt (maybe a real Ctrl-C) nor
# CancelledError (a timeout or a stop cancelling the call)
FAILURES = (Exception, SystemExit)


def failure_text(exc: BaseException) -> str:
    """`Type: message` for an item's error; `called sys.exit(0)` for a SystemExit."""
    if isinstance(exc, SystemExit):
        return str(UserExit(exc))
    if isinstance(exc, UserExit):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


async def in_daemon_thread(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)` in a new daemon thread; cancelling the await abandons the thread (its result,
    if it ever comes, is dropped) instead of waiting for it. A BaseException that is not an
    Exception comes back as UserExit."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if future.done():  # timed out and cancelled meanwhile
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def call() -> None:
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:
            ok, value = False, exc
        except BaseException as exc:  # user code's, never a signal (see above)
            ok, value = False, UserExit(exc)
        else:
            ok, value = True, result
        with contextlib.suppress(RuntimeError):  # a closed loop: the run ended without it
            loop.call_soon_threadsafe(settle, ok, value)

    threading.Thread(target=call, name=f"assay-user-code:{getattr(fn, '__name__', '?')}",
                     daemon=True).start()
    return await future
