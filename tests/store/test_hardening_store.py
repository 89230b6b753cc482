"""Hardening of the store (issue 13): creating a store is atomic and safe to race; a dataset is
saved once however many runs save it at the same moment; a run has one owner at a time."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import event, inspect, text

import assay
from assay.core.types import Item
from assay.store import repo
from assay.store.db import HEAD, current_revision, open_engine

SRC = Path(assay.__file__).resolve().parents[1]  # children run the code this test imports

# A child that opens a fresh store and is SIGKILLed right after its Nth CREATE TABLE: the hook
# is SQLAlchemy's own event (third-party), nothing inside Assay is patched.
KILL_DURING_CREATE = """
import os, sys
from sqlalchemy import event
from sqlalchemy.engine import Engine
seen = [0]
@event.listens_for(Engine, "after_cursor_execute")
def kill(conn, cursor, statement, *rest):
    if statement.lstrip().upper().startswith("CREATE TABLE"):
        seen[0] += 1
        if seen[0] == int(sys.argv[2]):
            os.kill(os.getpid(), 9)
from assay.store.db import open_engine
open_engine(sys.argv[1])
"""

# A child that waits for a common start time, then opens the (fresh) store.
OPEN_AT = """
import sys, time
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
from assay.store.db import open_engine
open_engine(sys.argv[1])
print("ok")
"""


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    return env


def assert_complete(url: str) -> None:
    engine = open_engine(url)
    assert current_revision(engine) == HEAD
    assert set(inspect(engine).get_table_names()) >= {
        "datasets", "items", "runs", "answers", "results", "spans", "truth_snapshots",
        "reviews", "response_cache", "alembic_version"}


@pytest.mark.parametrize("nth", [1, 2, 5])
@pytest.mark.process
def test_a_kill_while_tables_are_created_leaves_a_usable_store(tmp_path: Path,
                                                               nth: int) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    proc = subprocess.run([sys.executable, "-c", KILL_DURING_CREATE, url, str(nth)],
                          env=child_env(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == -9, proc.stderr  # it was killed mid-creation
    assert_complete(url)  # the next command opens it (and finishes creating it)


@pytest.mark.process
def test_processes_opening_a_fresh_store_at_once_all_succeed(tmp_path: Path) -> None:
    for trial in range(3):
        url = f"sqlite:///{tmp_path / f't{trial}.db'}"
        start = time.time() + 1.5  # after every child has imported what it needs
        procs = [subprocess.Popen([sys.executable, "-c", OPEN_AT, url, str(start)],
                                  env=child_env(), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(4)]
        outs = [p.communicate(timeout=60) for p in procs]
        assert [p.returncode for p in procs] == [0] * 4, [e for _, e in outs]
        assert_complete(url)


# ---- 7. races between writers ---------------------------------------------------------------

def test_runs_saving_one_dataset_at_once_store_it_once(tmp_path: Path) -> None:
    """Two writers interleaved deterministically: the first waits, after its first statement
    on `datasets`, until the second has run its own (or 1 s: a writer blocked on the store's
    write lock never gets there) — the window of a check-then-insert race."""
    url = f"sqlite:///{tmp_path / 'd.db'}"
    open_engine(url)
    rows = [Item(f"i{n}", {"q": n}, "v1", n) for n in range(50)]
    second_ran = threading.Event()
    outcome: dict[str, object] = {}

    def writer(name: str) -> None:
        engine = open_engine(url)
        first = [True]

        @event.listens_for(engine, "after_cursor_execute")
        def pause(conn, cursor, statement, *rest):  # type: ignore[no-untyped-def]
            if "datasets" not in statement or not first[0]:
                return
            first[0] = False
            if name == "A":
                second_ran.wait(1.0)
            else:
                second_ran.set()

        try:
            outcome[name] = repo.save_dataset(engine, version="v1", name="d", path="d.json",
                                              fmt="json", rows=rows)
        except Exception as exc:  # what the race used to raise
            outcome[name] = exc

    a = threading.Thread(target=writer, args=("A",))
    a.start()
    time.sleep(0.2)
    b = threading.Thread(target=writer, args=("B",))
    b.start()
    a.join(30)
    b.join(30)
    assert sorted(map(repr, outcome.values())) == ["False", "True"], outcome
    with open_engine(url).connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM items")).scalar() == 50
        assert conn.execute(text("SELECT count(*) FROM datasets")).scalar() == 1


def _set_lease(url: str, run_id: str, owner: str | None, until: datetime | None) -> None:
    with open_engine(url).begin() as conn:
        conn.execute(text("UPDATE runs SET lease_owner = :o, lease_until = :u WHERE id = :r"),
                     {"o": owner, "u": until.isoformat(sep=" ") if until else None,
                      "r": run_id})


@pytest.mark.process
def test_a_run_has_one_owner_at_a_time(tmp_path: Path) -> None:
    from assay.core.errors import RunBusyError
    from assay.store import lease

    url = f"sqlite:///{tmp_path / 'l.db'}"
    engine = open_engine(url)
    repo.save_dataset(engine, version="v1", name="d", path="d.json", fmt="json",
                      rows=[Item("a", {}, "v1", 1)])
    repo.create_run(engine, run_id="r1", kind="run", dataset_id="v1", manifest={})
    assert repo.get_run(engine, "r1")["lease_owner"] == lease.owner()  # its creator holds it
    repo.finish_run(engine, "r1", "interrupted", {})
    assert repo.get_run(engine, "r1")["lease_owner"] is None  # … until it stops

    # a live process of this host holds it: refused, naming the process
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        _set_lease(url, "r1", f"{lease.HOST}:{sleeper.pid}:abcd1234", None)
        with pytest.raises(RunBusyError, match=rf"run r1 is being worked on by another "
                           rf"process \(process {sleeper.pid} on "):
            lease.acquire(engine, "r1")
    finally:
        sleeper.kill()
        sleeper.wait()
    lease.acquire(engine, "r1")  # the holder is gone (kill -9): taken over at once
    assert repo.get_run(engine, "r1")["lease_owner"] == lease.owner()
    lease.release(engine, "r1")

    # a process of another host: until its lease expires
    soon = datetime.now(UTC) + timedelta(seconds=30)
    _set_lease(url, "r1", "elsewhere:77:abcd1234", soon)
    with pytest.raises(RunBusyError, match="process 77 on elsewhere"):
        lease.acquire(engine, "r1")
    _set_lease(url, "r1", "elsewhere:77:abcd1234", datetime.now(UTC) - timedelta(seconds=1))
    with lease.held(engine, "r1"), lease.held(engine, "r1"):  # re-entrant
        assert repo.get_run(engine, "r1")["lease_owner"] == lease.owner()
        lease.renew_all()
        until = repo.get_run(engine, "r1")["lease_until"]
        assert until.replace(tzinfo=UTC) > datetime.now(UTC) + timedelta(seconds=50)
    assert repo.get_run(engine, "r1")["lease_owner"] is None


# ---- 1. no single item may stop a run --------------------------------------------------------

def test_text_no_boundary_made_safe_is_still_written(tmp_path: Path) -> None:
    """The last guard: a row with an unpaired surrogate (in a text column, and in a JSON one)
    is written with it replaced, instead of failing the run's whole transaction."""
    url = f"sqlite:///{tmp_path / 'w.db'}"
    engine = open_engine(url)
    repo.save_dataset(engine, version="v1", name="d", path="d.json", fmt="json",
                      rows=[Item("a", {}, "v1", 1)])
    repo.create_run(engine, run_id="r1", kind="run", dataset_id="v1", manifest={})
    repo.write_rows(engine, {"answers": [
        {"run_id": "r1", "item_id": "a", "target": "t", "epoch": 0, "text": "x\ud800",
         "error": None, "latency_s": None, "usage": {}, "extras": {"raw": "y\ud800"}}]})
    (a,) = repo.list_answers(engine, "r1")
    assert (a["text"], a["extras"]) == ("x\ufffd", {"raw": "y\ufffd"})
