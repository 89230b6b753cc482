"""One owner per run: a lease in the run's row.

The process that creates or continues a run holds its lease — `lease_owner` ("host:pid:token")
and `lease_until` — and renews it from a daemon thread while it works; a finished or failed run
gives it back. Another process asking for the run (`assay run --resume`, `assay retry`) gets it
only when it is free, expired, or held by a process of this host that no longer exists (a
`kill -9` leaves a lease no one renews: the next resume takes it over at once, without waiting
for it to expire). Otherwise it is refused with one line, before anything is read or sent.
"""

from __future__ import annotations

import os
import socket
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, select, update

from assay.core.errors import RunBusyError

from .schema import runs

HOST = socket.gethostname()
_TOKEN = uuid.uuid4().hex[:8]
TTL_S = 60.0  # a lease not renewed for this long is free (a process on another host died)
RENEW_S = 15.0

_lock = threading.Lock()
_held: dict[tuple[int, str], tuple[Engine, int]] = {}  # (engine, run) → (engine, depth)
_renewer: threading.Thread | None = None


def _now() -> datetime:
    return datetime.now(UTC)


def owner() -> str:
    """This process, as a lease holder (the token tells apart a reused pid)."""
    return f"{HOST}:{os.getpid()}:{_TOKEN}"


def fields() -> dict[str, Any]:
    """The lease columns of a run this process creates (repo.create_run)."""
    return {"lease_owner": owner(), "lease_until": _now() + timedelta(seconds=TTL_S)}


def _aware(t: datetime) -> datetime:
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def _alive(holder: str, until: datetime | None) -> bool:
    """Whether `holder` still holds its lease: a process of this host while it exists; one of
    another host until its lease expires."""
    host, _, rest = holder.partition(":")
    pid_text = rest.partition(":")[0]
    if host == HOST and pid_text.isdigit():
        try:
            os.kill(int(pid_text), 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # exists, belongs to someone else
            return True
        return True
    return until is not None and _aware(until) > _now()


def acquire(engine: Engine, run_id: str) -> None:
    """Take the run's lease, or raise RunBusyError naming its holder. Atomic: the update only
    happens if the holder is still the one seen, so two processes never both get it."""
    with engine.begin() as conn:
        row = conn.execute(select(runs.c.lease_owner, runs.c.lease_until, runs.c.kind)
                           .where(runs.c.id == run_id)).first()
        if row is None:
            return  # no such run: the caller says so
        holder, until, kind = row
        if holder and holder != owner() and _alive(holder, until):
            raise busy(run_id, holder, kind)
        seen = runs.c.lease_owner.is_(None) if holder is None else \
            runs.c.lease_owner == holder
        taken = conn.execute(update(runs).where(runs.c.id == run_id, seen).values(
            **fields())).rowcount
    if not taken:
        raise busy(run_id, holder or "another process", kind)


# how each kind of run is continued: the hint of a refusal names the command that resumes it
RESUME = {"run": "assay run --resume {id}", "score": "assay score --resume {id}",
          "online": "assay watch SPEC (the spec named as this online run)"}


def busy(run_id: str, holder: str, kind: str | None = None) -> RunBusyError:
    host, _, rest = holder.partition(":")
    pid = rest.partition(":")[0]
    who = f"process {pid} on {host}" if pid.isdigit() else holder
    resume = RESUME.get(kind or "run", RESUME["run"]).format(id=run_id)
    return RunBusyError(f"run {run_id} is being worked on by another process ({who}); "
                        f"nothing was done — wait for it to finish, or stop it and resume "
                        f"with: {resume}")


def release(engine: Engine, run_id: str) -> None:
    with engine.begin() as conn:
        conn.execute(update(runs).where(runs.c.id == run_id, runs.c.lease_owner == owner())
                     .values(lease_owner=None, lease_until=None))


@contextmanager
def held(engine: Engine, run_id: str, *, new: bool = False) -> Iterator[None]:
    """Hold the run's lease for the block (re-entrant within this process), renewed in the
    background. `new`: the run is about to be created, with this process as its owner."""
    key = (id(engine), run_id)
    with _lock:
        depth = _held.get(key, (engine, 0))[1]
    if depth == 0 and not new:
        acquire(engine, run_id)
    with _lock:
        _held[key] = (engine, depth + 1)
        _start_renewer()
    try:
        yield
    finally:
        with _lock:
            eng, d = _held.pop(key)
            if d > 1:
                _held[key] = (eng, d - 1)
        if d == 1:
            release(engine, run_id)


def _start_renewer() -> None:
    global _renewer
    if _renewer is None or not _renewer.is_alive():
        _renewer = threading.Thread(target=_renew_forever, name="assay-run-lease",
                                    daemon=True)
        _renewer.start()


def _renew_forever() -> None:
    stop = threading.Event()
    while not stop.wait(RENEW_S):
        renew_all()


def renew_all() -> None:
    with _lock:
        held_now = [(eng, run_id) for (_, run_id), (eng, _) in _held.items()]
    for engine, run_id in held_now:
        try:
            with engine.begin() as conn:
                conn.execute(update(runs).where(runs.c.id == run_id,
                                                runs.c.lease_owner == owner())
                             .values(lease_until=_now() + timedelta(seconds=TTL_S)))
        except Exception:  # a busy or closed store: the next turn tries again
            continue
