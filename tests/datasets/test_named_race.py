"""`assay datasets add` under one name from several processes at once (issue 27): each content
gets its own version, none dies with an IntegrityError. Writers are interleaved
deterministically: every one reads the name's latest version before any inserts its own —
the window where two allocate the same number."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event

from assay.datasets.named import add_named
from assay.store import dataset_names
from assay.store.db import open_engine

WRITERS = 4


def test_concurrent_adds_under_one_name_each_get_a_version(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'd.db'}"
    open_engine(url)  # created once, as the first command would
    files = []
    for n in range(WRITERS):
        f = tmp_path / f"d{n}.jsonl"
        f.write_text(json.dumps({"id": f"i{n}", "prompt": f"question {n}"}) + "\n", "utf-8")
        files.append(f)
    all_read = threading.Barrier(WRITERS, timeout=5)
    outcome: dict[int, Any] = {}

    def writer(n: int) -> None:
        engine = _held_after_first_read(url, all_read)

        try:
            named, new = add_named(engine, "prices", files[n])
            outcome[n] = (named.version, new, named.dataset_id)
        except Exception as exc:  # what the race raised: an IntegrityError traceback
            outcome[n] = exc

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(WRITERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert all(isinstance(v, tuple) for v in outcome.values()), outcome
    assert sorted(v[0] for v in outcome.values()) == [1, 2, 3, 4]
    assert all(v[1] for v in outcome.values())
    stored = dataset_names.versions(open_engine(url), "prices")
    assert sorted((v.version, v.dataset_id) for v in stored) == sorted(
        (v[0], v[2]) for v in outcome.values())


def test_concurrent_adds_of_one_content_make_one_version(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'd.db'}"
    open_engine(url)
    f = tmp_path / "d.jsonl"
    f.write_text(json.dumps({"id": "i", "prompt": "q"}) + "\n", "utf-8")
    all_read = threading.Barrier(3, timeout=5)
    outcome: list[Any] = []

    def writer() -> None:
        engine = _held_after_first_read(url, all_read)

        try:
            named, new = add_named(engine, "prices", f)
            outcome.append((named.version, new))
        except Exception as exc:
            outcome.append(exc)

    threads = [threading.Thread(target=writer) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(outcome, key=repr) == [(1, False), (1, False), (1, True)], outcome


def _held_after_first_read(url: str, all_read: threading.Barrier) -> Engine:
    """An engine that waits at `all_read` right after its first read of the versions: every
    writer has read "no version yet" before any writes (the race window)."""
    engine = open_engine(url)
    first = [True]

    @event.listens_for(engine, "after_cursor_execute")
    def wait(conn, cursor, statement, *rest):  # type: ignore[no-untyped-def]
        if first[0] and statement.lstrip().upper().startswith("SELECT") and \
                "dataset_versions" in statement:
            first[0] = False
            all_read.wait()

    return engine
