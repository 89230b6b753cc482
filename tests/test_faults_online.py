"""The fault suite's online part (issue 27): a real `assay watch` process under a gzip bomb,
NULs, an oversized trace and a flood of traces, `kill -9`ed mid-flood and restarted. Then:

* its memory stays bounded (RSS read from /proc while the bomb and the flood arrive);
* the receiver stays live: every request after a refused one is answered;
* every stored trace is stored once, whole (its item with its answer), none of the oversized;
* the run's counters equal the store after the restart and after the stop.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path

import pytest

from tests.online.otlp_send import S, agent_trace, new_id, post, request

ASSAY = str(Path(sys.executable).parent / "assay")
SPEC = ('name: faults\nsource: {otlp: "127.0.0.1:0"}\nquiet_s: 0.2\nmax_trace_mb: 0.1\n'
        "evaluators: [finance-rubric]\nrubric: {required: latest price, precision: rounding}\n")
RSS_CAP_KB = 600_000  # the interpreter and its imports take ~150 MB; the bomb alone was 6.4 GB

pytestmark = [pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc"),
              pytest.mark.process, pytest.mark.server]  # `assay watch` as a process, killed


def start(root: Path) -> tuple[subprocess.Popen[str], str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ASSAY_DB", "ASSAY_WATCH_TOKEN")}
    proc = subprocess.Popen([ASSAY, "watch", "watch.yaml", "--db",
                             f"sqlite:///{root / 'w.db'}"], cwd=root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    line = proc.stderr.readline()  # "online run … started: OTLP/HTTP on http://HOST:PORT/…"
    assert "OTLP/HTTP on http://" in line, line + proc.stderr.read()
    return proc, line.split("OTLP/HTTP on ")[1].split()[0]


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def bomb(inflated: int) -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return b"".join(c.compress(bytes(1 << 20)) for _ in range(inflated >> 20)) + c.flush()


def flood(endpoint: str, n: int, tag: str, ids: list[str] | None = None) -> list[str]:
    """`n` traces, 25 a request as a batching exporter sends; their ids in `ids` as they go."""
    ids = [] if ids is None else ids
    for start_at in range(0, n, 25):
        spans: list[S] = []
        batch = []
        for k in range(start_at, min(n, start_at + 25)):
            t = agent_trace(f"贵州茅台最新价{tag}{k}?", "1455.00元")
            batch.append(t[0].trace_id)
            spans += t
        status, body = post(endpoint, request(spans).SerializeToString())
        assert status == 200, body
        ids += batch
    return ids


def store(root: Path) -> dict[str, int]:
    with sqlite3.connect(root / "w.db") as db:
        did = "online:o-faults"
        return {
            "items": db.execute("SELECT count(*) FROM items WHERE dataset_id = ?",
                                (did,)).fetchone()[0],
            "distinct": db.execute("SELECT count(DISTINCT item_id) FROM items WHERE "
                                   "dataset_id = ?", (did,)).fetchone()[0],
            "answers": db.execute("SELECT count(*) FROM answers WHERE run_id = 'o-faults'"
                                  ).fetchone()[0],
            "without_answer": db.execute(
                "SELECT count(*) FROM items i WHERE dataset_id = ? AND NOT EXISTS (SELECT 1 "
                "FROM answers a WHERE a.run_id = 'o-faults' AND a.item_id = i.item_id)",
                (did,)).fetchone()[0],
            "nul": db.execute("SELECT count(*) FROM items WHERE dataset_id = ? AND instr("
                              "fields, char(0)) > 0", (did,)).fetchone()[0]}


def counters(root: Path) -> dict[str, int]:
    import json

    with sqlite3.connect(root / "w.db") as db:
        (summary,) = db.execute("SELECT summary FROM runs WHERE id = 'o-faults'").fetchone()
    return dict(json.loads(summary)["online"])


# more traces than a sender gets out before 300 are stored, however fast the machine: the kill
# comes mid-flood (2,000 was not always enough: the flood could end before the kill)
FLOOD = 50_000


def test_watch_under_faults_and_kill(tmp_path: Path) -> None:
    (tmp_path / "watch.yaml").write_text(SPEC, "utf-8")
    proc, endpoint = start(tmp_path)
    peak = 0
    try:
        # a bomb (256 MiB inflated), with and without its header: 413, memory flat
        b = bomb(256 << 20)
        assert post(endpoint, b)[0] == 413
        assert post(endpoint, b, **{"Content-Encoding": "gzip"})[0] == 413
        peak = max(peak, rss_kb(proc.pid))
        # NULs in the question and the answer: stored, made safe
        assert post(endpoint, request(agent_trace("茅台\x00最新价?", "1455.00\x00元"))
                    .SerializeToString())[0] == 200
        # one trace past max_trace_mb (100 KiB): given up, the receiver goes on
        tid, root = new_id(16), new_id(8)
        big = [S(tid, new_id(8), "tool", root, attributes={"blob": "x" * 2000})
               for _ in range(80)]
        assert post(endpoint, request(big).SerializeToString())[0] == 200
        assert post(endpoint, request([S(tid, root, "agent")]).SerializeToString())[0] == 200
        first: list[str] = []

        def send_first() -> None:
            with contextlib.suppress(OSError, AssertionError):  # the kill cuts it short
                flood(endpoint, FLOOD, "a", first)

        sender = threading.Thread(target=send_first, daemon=True)
        sender.start()
        deadline = time.monotonic() + 20  # the kill comes mid-flood, rows being written
        while time.monotonic() < deadline and store(tmp_path)["answers"] < 300:
            peak = max(peak, rss_kb(proc.pid))
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    sender.join(30)
    proc, endpoint = start(tmp_path)  # the restart reconciles with the store
    try:
        after_kill = counters(tmp_path)
        s = store(tmp_path)
        assert after_kill["evaluated"] + after_kill["unknown"] == s["answers"]
        second = flood(endpoint, 100, "b")
        peak = max(peak, rss_kb(proc.pid))
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and store(tmp_path)["answers"] < s["answers"] + 100:
            time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert peak < RSS_CAP_KB, peak
    s, c = store(tmp_path), counters(tmp_path)
    # every stored trace once and whole; the NUL made safe; the oversized one not stored
    assert s["items"] == s["distinct"] == s["answers"] and s["without_answer"] == 0
    assert s["nul"] == 0
    with sqlite3.connect(tmp_path / "w.db") as db:
        ids = {r[0] for r in db.execute("SELECT item_id FROM items WHERE dataset_id = ?",
                                        ("online:o-faults",))}
    assert tid not in ids and set(second) <= ids
    # the counters equal the store, and every trace is counted once under some reason
    assert c["evaluated"] + c["unknown"] == s["answers"]
    # what the receiver counted in the second before the kill dies with it (saved each second)
    assert c["oversized"] <= 1 and c["bad_requests"] <= 2
    assert len(set(first) & ids) > 0  # the kill came after some of the flood was stored
    assert len(first) < FLOOD  # … and before all of it was sent
    # traces answered 200 but held in memory at the kill die with the process; after the
    # restart the counters claim none of them as evaluated
    assert after_kill["evaluated"] == len(set(first) & ids) + 1  # + the trace with NULs
