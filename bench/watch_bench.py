"""`assay watch` under load: sustained incoming traces/s with a code evaluator, and the
watcher's memory (RSS) over many traces.

    .venv/bin/python bench/watch_bench.py [--traces 100000] [--rate 500] [--burst 20000]

`assay watch` runs as its own process (the real CLI); this script is the agent side: OTLP/HTTP
protobuf requests of `--per-request` traces each (as an SDK's batch exporter sends them), two
spans a trace (an OpenInference AGENT root with question and answer, and its LLM span), the
root naming its instrument (`quote.code`). Each trace is scored by finance-rubric against the
recorded A-share table (ground truth `snapshot:`, read at the answer's time), so every trace
goes through capture, rubric and store.

Phase 1 offers `--traces` at `--rate` traces/s and reports how many were evaluated and dropped
(backpressure), the evaluation rate, and the watcher's RSS as the traces go by. Phase 2 offers
`--burst` traces as fast as the sender can and reports the rate evaluation sustains when it is
the bottleneck (the rest is dropped and counted). Figures go to stdout."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ASSAY = str(Path(sys.executable).parent / "assay")
SNAPSHOTS = ROOT / "examples" / "data" / "market_snapshots"  # the sample's recorded rows


def build(first: int, n: int) -> bytes:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    from assay.traces.otlp_in import encode_kv

    req = ExportTraceServiceRequest()
    rs = req.resource_spans.add()
    rs.resource.attributes.append(encode_kv("service.name", "quote-agent"))
    ss = rs.scope_spans.add()
    now = time.time_ns()
    for i in range(first, first + n):
        tid = (i + 1).to_bytes(16, "big")  # an all-zero trace id is invalid OTLP
        root, llm = (2 * i + 1).to_bytes(8, "big"), (2 * i + 2).to_bytes(8, "big")
        answer = "贵州茅台最新价1455.00元" if i % 2 else "贵州茅台最新价1460.00元"
        s = ss.spans.add(trace_id=tid, span_id=llm, parent_span_id=root, name="ChatCompletion",
                         start_time_unix_nano=now - 900_000_000, end_time_unix_nano=now - 1000)
        for k, v in (("openinference.span.kind", "LLM"), ("llm.model_name", "m1"),
                     ("llm.token_count.prompt", 20), ("llm.token_count.completion", 9)):
            s.attributes.append(encode_kv(k, v))
        s = ss.spans.add(trace_id=tid, span_id=root, name="agent",
                         start_time_unix_nano=now - 1_000_000_000, end_time_unix_nano=now)
        for k, v in (("openinference.span.kind", "AGENT"), ("input.value", "贵州茅台最新价是多少?"),
                     ("output.value", answer), ("quote.code", "600519")):
            s.attributes.append(encode_kv(k, v))
    return req.SerializeToString()


def write_spec(tmp: Path, queue: int, truth: str) -> None:
    """tmp/watch.yaml: an OTLP source on a free port, finance-rubric, the recorded table as the
    ground truth (truth "snapshot") or none. Shared with bench/watch_instructions.sh."""
    (tmp / "watch.yaml").write_text(f"""\
name: watch-bench
source: {{otlp: "127.0.0.1:0"}}
quiet_s: 0.5
queue: {queue}
evaluators: [finance-rubric]
rubric: {{required: 最新价, precision: rounding}}
""" + (f"ground_truth: snapshot:{SNAPSHOTS}\ntruth: {{field: span.quote.code, market: cn_stock}}\n"
       if truth == "snapshot" else ""), "utf-8")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of the watcher so far (the machine is shared: CPU per trace
    is the figure that does not depend on the neighbours)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def eval_window(db: Path, run_id: str, after: str = "") -> tuple[int, float]:
    """Results written after `after` and the seconds between the first and the last."""
    with sqlite3.connect(db) as c:
        n, first, last = c.execute(
            "SELECT count(*), min(created_at), max(created_at) FROM results WHERE run_id = ? "
            "AND created_at > ?", (run_id, after)).fetchone()
    if not n:
        return 0, 0.0
    from datetime import datetime

    span = (datetime.fromisoformat(last) - datetime.fromisoformat(first)).total_seconds()
    return int(n), span


def last_result(db: Path, run_id: str) -> str:
    with sqlite3.connect(db) as c:
        return str(c.execute("SELECT max(created_at) FROM results WHERE run_id = ?",
                             (run_id,)).fetchone()[0] or "")


def counters(db: Path, run_id: str) -> dict[str, int]:
    try:
        with sqlite3.connect(db) as c:
            row = c.execute("SELECT summary FROM runs WHERE id = ?", (run_id,)).fetchone()
    except sqlite3.OperationalError:
        return {}
    if not row or not row[0]:
        return {}
    return dict(json.loads(row[0]).get("online", {}))


def handled(c: dict[str, int]) -> int:
    return sum(int(c.get(k, 0)) for k in ("evaluated", "unknown", "filtered_out",
                                          "sampled_out", "dropped", "dropped_waiting",
                                          "failed"))


async def offer(endpoint: str, first: int, total: int, per: int, rate: float | None,
                pid: int, db: Path, run_id: str, rss: list[tuple[int, int]]) -> float:
    import aiohttp

    t0 = time.monotonic()
    sent = 0
    next_rss = 0
    async with aiohttp.ClientSession() as http:
        inflight: set[asyncio.Task[None]] = set()

        async def post(body: bytes) -> None:
            async with http.post(endpoint, data=body, headers={
                    "Content-Type": "application/x-protobuf"}) as r:
                assert r.status == 200, await r.text()

        while sent < total:
            n = min(per, total - sent)
            if rate is not None:
                due = t0 + sent / rate
                if due > time.monotonic():
                    await asyncio.sleep(due - time.monotonic())
            task = asyncio.create_task(post(build(first + sent, n)))
            inflight.add(task)
            task.add_done_callback(inflight.discard)
            if len(inflight) >= 8:
                await asyncio.wait(inflight, return_when=asyncio.FIRST_COMPLETED)
            sent += n
            if sent >= next_rss:
                rss.append((sent, rss_kib(pid)))
                next_rss += max(total // 10, 1)
        await asyncio.gather(*inflight)
    return time.monotonic() - t0


def wait_handled(db: Path, run_id: str, target: int, timeout_s: float) -> tuple[dict[str, int],
                                                                                 float]:
    t0 = time.monotonic()
    c: dict[str, int] = {}
    while time.monotonic() - t0 < timeout_s:
        c = counters(db, run_id)
        if handled(c) >= target:
            break
        time.sleep(0.5)
    return c, time.monotonic()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--traces", type=int, default=100_000)
    ap.add_argument("--rate", type=float, default=500.0)
    ap.add_argument("--burst", type=int, default=20_000)
    ap.add_argument("--per-request", type=int, default=50)
    ap.add_argument("--queue", type=int, default=2000)
    ap.add_argument("--truth", choices=("snapshot", "none"), default="snapshot",
                    help="snapshot: each trace's quote read from the recorded table (capture and "
                    "rubric); none: no ground truth (the rubric says so; the watcher's own cost)")
    ap.add_argument("--profile", type=Path, help="run the watcher under cProfile, to FILE")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="watch-bench-"))
    db = tmp / "assay.db"
    write_spec(tmp, args.queue, args.truth)
    env = {**os.environ, "ASSAY_DB": f"sqlite:///{db}"}
    cmd = [ASSAY, "watch", "watch.yaml"]
    if args.profile:
        cmd = [sys.executable, "-m", "cProfile", "-o", str(args.profile.resolve()), *cmd]
    proc = subprocess.Popen(cmd, cwd=tmp, env=env, text=True,
                            stderr=subprocess.PIPE)
    assert proc.stderr is not None
    line = proc.stderr.readline()
    endpoint, run_id = line.split(" on ")[1].split()[0], line.split()[2]
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}; store SQLite in {tmp}; truth: {args.truth}")
    print(f"watcher pid {proc.pid}, RSS at start {rss_kib(proc.pid) / 1024:.1f} MiB")
    try:
        rss: list[tuple[int, int]] = []
        cpu0 = cpu_s(proc.pid)
        t_start = time.monotonic()
        took = asyncio.run(offer(endpoint, 0, args.traces, args.per_request, args.rate,
                                 proc.pid, db, run_id, rss))
        c, t_end = wait_handled(db, run_id, args.traces, 600)
        c = counters(db, run_id)
        cpu1 = cpu_s(proc.pid)
        n, span = eval_window(db, run_id)
        print(f"phase 1: watcher CPU {1000 * (cpu1 - cpu0) / max(1, args.traces):.2f} ms a trace "
              f"(receive, decode, assemble, read, evaluate, store); results written over "
              f"{span:.1f} s: {n / span if span else 0:.0f} evaluated/s")
        print(f"phase 1: {args.traces} traces offered at {args.rate:g}/s in {took:.1f} s "
              f"({args.traces / took:.0f}/s offered); evaluated {c.get('evaluated')}, dropped "
              f"{c.get('dropped', 0)} (backpressure) + {c.get('dropped_waiting', 0)} (waiting), "
              f"unknown {c.get('unknown', 0)}, failed {c.get('failed', 0)}; all handled "
              f"{t_end - t_start:.1f} s after the first was sent "
              f"({c.get('evaluated', 0) / (t_end - t_start):.0f} evaluated/s)")
        print("phase 1 RSS of the watcher (traces sent → MiB): " + ", ".join(
            f"{n}→{k / 1024:.1f}" for n, k in rss) + f"; after: {rss_kib(proc.pid) / 1024:.1f}")
        if args.burst:
            before = counters(db, run_id)
            mark = last_result(db, run_id)
            cpu0 = cpu_s(proc.pid)
            t_start = time.monotonic()
            took = asyncio.run(offer(endpoint, args.traces, args.burst, args.per_request, None,
                                     proc.pid, db, run_id, []))
            c, t_end = wait_handled(db, run_id, handled(before) + args.burst, 600)
            c = counters(db, run_id)
            ev = c.get("evaluated", 0) - before.get("evaluated", 0)
            dropped = c.get("dropped", 0) - before.get("dropped", 0)
            n, span = eval_window(db, run_id, mark)
            print(f"phase 2: watcher CPU {1000 * (cpu_s(proc.pid) - cpu0) / max(1, ev):.2f} ms "
                  f"an evaluated trace; results written over {span:.1f} s: "
                  f"{n / span if span else 0:.0f} evaluated/s")
            print(f"phase 2: {args.burst} traces offered unpaced in {took:.1f} s "
                  f"({args.burst / took:.0f}/s offered); evaluated {ev}, dropped {dropped}; "
                  f"{ev / (t_end - t_start):.0f} evaluated/s; RSS {rss_kib(proc.pid) / 1024:.1f} "
                  "MiB")
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=300)
        with sqlite3.connect(db) as conn:
            print("results by status and score: " + ", ".join(
                f"{st} {sc}: {n}" for st, sc, n in conn.execute(
                    "SELECT status, score, count(*) FROM results GROUP BY status, score")))
        print("watcher: " + err.strip().splitlines()[-1] if err.strip() else "watcher: (silent)")


if __name__ == "__main__":
    main()
