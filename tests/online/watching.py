"""`assay watch` run in-process, on its own event loop in a thread, for the tests: start,
wait until it listens, send traces, stop (as Ctrl-C would) and read the result."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

from assay.online.spec import load_watch_spec
from assay.online.watch import WatchResult, watch
from assay.store.db import open_engine


class Watching:
    def __init__(self, db_url: str, spec_path: Path, **kwargs: Any) -> None:
        self.engine = open_engine(db_url)
        self.spec = load_watch_spec(spec_path)
        self.kwargs = kwargs
        self.port = 0
        self.run_id = ""
        self.resumed = False
        self.result: WatchResult | None = None
        self.error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, daemon=True)

    def _main(self) -> None:
        async def go() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()

            def ready(run_id: str, port: int, resumed: bool) -> None:
                self.run_id, self.port, self.resumed = run_id, port, resumed
                self._ready.set()

            self.result = await watch(self.engine, self.spec, stop=self._stop,
                                      on_ready=ready, **self.kwargs)

        try:
            asyncio.run(go())
        except BaseException as exc:  # handed to the test
            self.error = exc
        finally:
            self._ready.set()

    def start(self) -> Watching:
        self._thread.start()
        self._ready.wait(30)
        if self.error is not None:
            raise self.error
        return self

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1/traces"

    def stop(self) -> WatchResult:
        assert self._loop is not None and self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(60)
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result

    def wait_evaluated(self, n: int, timeout_s: float = 60.0) -> None:
        """Until `n` traces are evaluated or counted otherwise (the live counters)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.error is not None:
                raise self.error
            if self.seen() >= n:
                return
            time.sleep(0.05)
        raise AssertionError(f"only {self.seen()} of {n} traces handled in {timeout_s} s")

    def seen(self) -> int:
        from assay.store.online import online_counters

        c = online_counters(self.engine, self.run_id) if self.run_id else {}
        return int(c.get("evaluated", 0) + c.get("unknown", 0) + c.get("filtered_out", 0)
                   + c.get("sampled_out", 0) + c.get("dropped", 0) + c.get("failed", 0))
