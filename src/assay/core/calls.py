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
import contextvars
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


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


# The failures of one async user call that escaped it through the event loop: a callback it
# scheduled (`loop.call_soon(sys.exit, 0)`) or a task it spawned that called sys.exit(). Set
# while the call runs; callbacks and tasks copy it with their context.
_ESCAPED: contextvars.ContextVar[list[BaseException] | None] = contextvars.ContextVar(
    "assay_user_call", default=None)


async def in_user_coroutine(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`await fn(*args, **kwargs)` for an async target or check. What it raises that is not an
    Exception — sys.exit(), a BaseException of its own, a CancelledError it raised itself —
    comes back as UserExit (the item's error), as does a SystemExit raised by a callback or
    task it scheduled on the run's loop (caught there instead of ending `asyncio.run`). A
    KeyboardInterrupt (maybe a real Ctrl-C) and a cancellation of the caller (a timeout, a
    stop) go through."""
    _guard(asyncio.get_running_loop())
    escaped: list[BaseException] = []
    token = _ESCAPED.set(escaped)
    try:
        result = await fn(*args, **kwargs)
    except asyncio.CancelledError as exc:
        task = asyncio.current_task()
        if task is not None and task.cancelling():  # the caller is being cancelled
            raise
        raise UserExit(exc) from None
    except (Exception, KeyboardInterrupt):
        raise
    except BaseException as exc:
        raise UserExit(exc) from None
    finally:
        _ESCAPED.reset(token)
    await asyncio.sleep(0)  # what it scheduled to run at once runs before its result counts
    if escaped:
        raise UserExit(escaped[0])
    return result


# The loop async user code runs on: one for the process, in a daemon thread of its own. On the
# run's own loop, an async check that blocks (time.sleep, a sync HTTP call in `async def`)
# would stop every timer, the receiver of a watch and the other items with it, and one that
# swallows its cancellation would hold `wait_for` forever; here the run's loop stays free, a
# timeout ends the item at once (its task is cancelled on this loop and not waited for), and
# the thread does not keep the process alive. One loop, not one per call, so what a module
# keeps between calls (a client session, a lock) stays on the loop it was made on.
_user_loop: tuple[asyncio.AbstractEventLoop, threading.Thread] | None = None
_user_loop_lock = threading.Lock()


def _the_user_loop() -> asyncio.AbstractEventLoop:
    global _user_loop
    with _user_loop_lock:
        if _user_loop is None or not _user_loop[1].is_alive():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=_serve, args=(loop,), name="assay-user-loop",
                                      daemon=True)
            thread.start()
            _user_loop = (loop, thread)
        return _user_loop[0]


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    """The user loop's thread: a KeyboardInterrupt or SystemExit that a task of user code
    raised (asyncio lets those out of the loop) is that task's end, not the loop's — the calls
    of other items on it go on. (No signal reaches this thread: none is a real Ctrl-C.)"""
    while True:
        try:
            loop.run_forever()
            return
        except (KeyboardInterrupt, SystemExit):
            continue


async def in_user_loop(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`in_user_coroutine(fn, …)` on the user loop (above), awaited from the caller's loop.
    Cancelling the await (a timeout, a stop) cancels the call there without waiting for it.
    Whatever it raises that is not an Exception comes back as UserExit: in that thread no
    KeyboardInterrupt is the user's Ctrl-C, and a BaseException left to the loop would end it."""

    async def call() -> Any:
        try:
            return await in_user_coroutine(fn, *args, **kwargs)
        except (Exception, asyncio.CancelledError):
            raise
        except BaseException as exc:
            raise UserExit(exc) from None

    future = asyncio.run_coroutine_threadsafe(call(), _the_user_loop())
    return await asyncio.wrap_future(future)


class BoundedElsewhere:
    """A stand-in whose every call is bounded in time where it runs (a Ray worker, which
    knows each call's own start): the caller sets no timer of its own, which would also end
    the calls batched with a slow one."""


async def within(call: Awaitable[T], limit: float | None, timed_out: Callable[[float], T]) -> T:
    """`await call`, or `timed_out(limit)` when it takes longer than `limit` seconds."""
    if limit is None:
        return await call
    try:
        return await asyncio.wait_for(call, limit)
    except TimeoutError:
        return timed_out(limit)


def _guard(loop: asyncio.AbstractEventLoop) -> None:
    """From now on a callback scheduled from user code (its context holds _ESCAPED) that
    raises SystemExit records it there instead of ending the loop; others run as before."""
    if vars(loop).get("_assay_guarded"):
        return

    def guarded(callback: Callable[..., Any], context: contextvars.Context | None
                ) -> Callable[..., Any]:
        escaped = context.get(_ESCAPED) if context is not None else _ESCAPED.get()
        if escaped is None:
            return callback
        record = escaped

        def run(*args: Any) -> None:
            try:
                callback(*args)
            except (SystemExit, KeyboardInterrupt) as exc:  # on the user loop's thread,
                record.append(exc)  # where no KeyboardInterrupt is a real Ctrl-C
        return run

    soon, threadsafe, at = loop.call_soon, loop.call_soon_threadsafe, loop.call_at

    def call_soon(callback: Callable[..., Any], *args: Any,
                  context: contextvars.Context | None = None) -> asyncio.Handle:
        return soon(guarded(callback, context), *args, context=context)

    def call_soon_threadsafe(callback: Callable[..., Any], *args: Any,
                             context: contextvars.Context | None = None) -> asyncio.Handle:
        return threadsafe(guarded(callback, context), *args, context=context)

    def call_at(when: float, callback: Callable[..., Any], *args: Any,
                context: contextvars.Context | None = None) -> asyncio.TimerHandle:
        return at(when, guarded(callback, context), *args, context=context)

    vars(loop).update(call_soon=call_soon, call_soon_threadsafe=call_soon_threadsafe,
                      call_at=call_at, _assay_guarded=True)
