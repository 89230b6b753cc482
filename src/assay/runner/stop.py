"""Deferring Ctrl-C to a safe point.

A KeyboardInterrupt raised mid-commit could leave a batch half-known (committed, yet still in
the buffer) and be written twice, or lost. Instead, while a run is going, SIGINT only sets a
flag; the loop checks it between items, writes what it has once, and stops."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class StopFlag:
    def __init__(self) -> None:
        self.requested = False

    def _handler(self, _signum: int, _frame: FrameType | None) -> None:
        if self.requested:  # a second Ctrl-C means "now"
            raise KeyboardInterrupt
        self.requested = True


@contextmanager
def deferred_interrupt() -> Iterator[StopFlag]:
    flag = StopFlag()
    if threading.current_thread() is not threading.main_thread():
        yield flag  # signals can only be handled in the main thread; nothing to defer
        return
    previous = signal.signal(signal.SIGINT, flag._handler)
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, previous)
