"""`command`: a subprocess per item — the item as JSON on stdin, the answer on stdout. A non-zero
exit or a timeout is that item's error (with the end of stderr); the process is killed on
timeout."""

from __future__ import annotations

import asyncio
import shlex
import time
from pathlib import Path
from typing import Any

import orjson

from assay.core.errors import ConfigError
from assay.core.types import Answer, Item

from .base import TargetContext, timeout_option
from .boundary import settled


class CommandTarget:
    kind = "command"

    def __init__(self, name: str, command: str | list[str], *, timeout_s: float = 60.0,
                 cwd: Path | None = None) -> None:
        self.name = name
        self.argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in
                                                                          command]
        if not self.argv:
            raise ConfigError(f"target '{name}': command is empty")
        self.timeout_s = timeout_s
        self.cwd = cwd

    def public(self) -> dict[str, Any]:
        return {"type": self.kind, "command": self.argv, "timeout_s": self.timeout_s}

    async def answer(self, item: Item) -> Answer:
        return settled(await self._respond(item))

    async def _respond(self, item: Item) -> Answer:
        payload = orjson.dumps({"id": item.id, **item.fields}, default=str)
        start = time.perf_counter()
        try:
            proc = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, cwd=self.cwd)
        except OSError as exc:
            return Answer(None, {}, 0.0, None, f"cannot start {self.argv[0]}: {exc}")
        try:
            out, err = await asyncio.wait_for(proc.communicate(payload), self.timeout_s)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            return Answer(None, {}, time.perf_counter() - start, None,
                          f"timeout after {self.timeout_s:g} s")
        latency = time.perf_counter() - start
        extras = {"exit_code": proc.returncode}
        if proc.returncode != 0:
            tail = err.decode("utf-8", "replace").strip()[-300:]
            return Answer(None, extras, latency, None,
                          f"exit code {proc.returncode}" + (f": {tail}" if tail else ""))
        return Answer(out.decode("utf-8", "replace").rstrip("\n"), extras, latency)

    async def close(self) -> None:
        pass


def build(ctx: TargetContext, *, name: str, command: str | list[str],
          timeout_s: float = 60) -> CommandTarget:
    return CommandTarget(name, command, timeout_s=timeout_option(timeout_s, name), cwd=ctx.base)
