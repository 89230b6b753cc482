"""Async user code on a loop of its own (core/calls.py): what a task it spawned raises —
sys.exit(), a KeyboardInterrupt of its own — is the item's error, and the loop lives on for the
next items; state a module keeps between calls stays on the one loop it was made on."""

from __future__ import annotations

import asyncio
import sys

import pytest

from assay.core.calls import UserExit, in_user_loop


async def _spawns(raising: BaseException, n: int) -> int:
    async def later() -> None:
        await asyncio.sleep(0.01)
        raise raising

    asyncio.get_running_loop().create_task(later())
    await asyncio.sleep(0.2)
    return n


@pytest.mark.parametrize("raising", [KeyboardInterrupt(), SystemExit(4)])
def test_what_a_spawned_task_raises_is_the_calls_error_and_the_loop_lives(
        raising: BaseException) -> None:
    async def main() -> tuple[str, int]:
        with pytest.raises(UserExit) as exc:
            await asyncio.wait_for(in_user_loop(_spawns, raising, 1), 5)

        async def plain(n: int) -> int:
            return n
        return str(exc.value), await asyncio.wait_for(in_user_loop(plain, 2), 5)

    what, after = asyncio.run(main())
    assert what == ("called sys.exit(4)" if isinstance(raising, SystemExit)
                    else "KeyboardInterrupt")
    assert after == 2


_LOCK: asyncio.Lock | None = None


async def _locked(n: int) -> int:
    """A module-level lock, made on the first call's loop and used by every later call."""
    global _LOCK
    if _LOCK is None:
        _LOCK = asyncio.Lock()
    async with _LOCK:
        await asyncio.sleep(0)
        return n


def test_state_kept_between_calls_stays_on_one_loop() -> None:
    async def main() -> list[int]:
        return list(await asyncio.gather(*(in_user_loop(_locked, n) for n in range(20))))

    assert asyncio.run(main()) == list(range(20))
    assert asyncio.run(main()) == list(range(20))  # a second run (another caller loop) too
    assert sys.modules[__name__]._LOCK is not None
