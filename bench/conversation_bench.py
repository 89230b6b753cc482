"""Conversation throughput (issue 26): `assay run` on N scripted conversations × T user turns,
each turn one `model`-target request given the history (system + user/assistant messages) and
judged by `contains` (`evaluate: each_turn`, the default), against the local OpenAI-compatible
stub with a fixed latency; side by side with a bare openai-SDK loop (aiohttp transport) that
makes the same requests: conversations under one semaphore of the same concurrency, each its T
requests in order, the messages growing with the replies.

    .venv/bin/python bench/conversation_bench.py [--conversations 200] [--turns 5]
                                                 [--concurrency 50] [--latency 0.1] [--rounds 5]
    .venv/bin/python bench/conversation_bench.py --verify   # the two sides' requests compared

Both sides run as a user runs them, as processes timed from start to exit (`wait4`: wall, and
user+system CPU): `assay run spec.yaml` with the store and traces on, and `python
conversation_bench.py --bare …` (interpreter start, the openai import, the loop). Each also
reports its own inner phase: Assay's run (the runs row's created_at → finished_at) and the bare
loop's `gather`. Each round has a fresh stub and a fresh store, and alternates which side goes
first; medians of the rounds are reported with every round.

Ideal = conversations × turns × latency / concurrency seconds.

"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ASSAY = str(Path(sys.executable).parent / "assay")
SYSTEM = "You are a broker's assistant. Answer with the instrument's last close."
REFERENCE = "1455.00"

STUB = """
import sys, time
sys.path.insert(0, {root!r})
from tests.openai_server import OpenAIServer
s = OpenAIServer()
s.latency_s = {latency}
s.default = lambda messages: "答：" + messages[-1]["content"] + "，600519 收盘 {reference}元"
s.start()
print(s.port, flush=True)
time.sleep(10**6)
"""

Messages = list[dict[str, str]]


def conversations(n: int, turns: int) -> list[dict[str, Any]]:
    """Scripted conversations; the item's reference holds for every turn (the stub's reply
    carries it), so each turn scores 1."""
    asks = ["600519 的股价是多少？", "那昨天呢？", "成交量呢？", "和上周比怎么样？",
            "谢谢，再确认一次收盘价。"]
    return [{"id": f"c{i}", "reference_output": REFERENCE,
             "turns": [f"{asks[t % len(asks)]} (#{i}.{t + 1})" for t in range(turns)]}
            for i in range(n)]


def start_stub(latency: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-c", STUB.format(
        root=str(ROOT), latency=latency, reference=REFERENCE)], stdout=subprocess.PIPE,
        text=True)
    assert proc.stdout is not None
    port = proc.stdout.readline().strip()
    return proc, f"http://127.0.0.1:{port}/v1"


def write_project(tmp: Path, rows: list[dict[str, Any]], base_url: str,
                  concurrency: int) -> None:
    (tmp / "talks.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    (tmp / "assay-models.yaml").write_text(json.dumps({"models": {"stub": {
        "base_url": base_url, "model": "stub", "max_concurrency": concurrency,
        "timeout_s": 60}}}), "utf-8")
    (tmp / "spec.yaml").write_text(json.dumps({
        "name": "talks", "dataset": {"path": "talks.jsonl", "id_field": "id"},
        "targets": [{"name": "bot", "type": "model", "model": "stub", "system": SYSTEM}],
        "evaluators": ["contains"], "concurrency": concurrency}, ensure_ascii=False), "utf-8")


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """A process as a user runs it: wall seconds from start to exit, its user+system CPU."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    assert proc.stdout is not None and proc.stderr is not None
    out, err = proc.stdout.read(), proc.stderr.read()
    if status != 0:
        sys.exit(f"{cmd[0]} failed ({status}): {err}")
    return wall, ru.ru_utime + ru.ru_stime, out


def run_assay(tmp: Path, concurrency: int, n: int, turns: int
              ) -> tuple[float, float, float]:
    env = {k: v for k, v in os.environ.items() if k not in ("ASSAY_DB", "ASSAY_MODELS")}
    db = tmp / f"a{time.monotonic_ns()}.db"  # a fresh store per run
    assay = [ASSAY]
    wall, cpu, _ = timed([*assay, "run", "spec.yaml", "--no-cache", "-q", "--db",
                          f"sqlite:///{db}"], tmp, env)
    with sqlite3.connect(db) as conn:
        created, finished = conn.execute("SELECT created_at, finished_at FROM runs").fetchone()
        judged = conn.execute("SELECT count(*), sum(score) FROM turn_results").fetchone()
        scored = conn.execute("SELECT count(*), sum(score) FROM results").fetchone()
        said = conn.execute("SELECT count(*) FROM turns WHERE role = 'assistant'").fetchone()[0]
    # every turn answered and judged 1, every conversation scored 1: the run did the work
    if said != n * turns or tuple(judged) != (n * turns, n * turns) or \
            tuple(scored) != (n, n):
        sys.exit(f"assay's store is not whole: {said} answers, turn results {judged}, "
                 f"results {scored}")
    phase = (datetime.fromisoformat(finished) - datetime.fromisoformat(created)).total_seconds()
    return wall, cpu, phase


def run_bare(tmp: Path, base_url: str, concurrency: int) -> tuple[float, float, float]:
    wall, cpu, out = timed([sys.executable, __file__, "--bare", base_url, str(tmp / "talks.jsonl"),
                            "--concurrency", str(concurrency)], tmp, dict(os.environ))
    return wall, cpu, float(out.split()[-1])


async def bare_loop(base_url: str, talks: list[list[str]], concurrency: int,
                    log: list[Messages] | None = None) -> tuple[float, int]:
    """The openai SDK alone: per conversation its turns in order, each request the system
    prompt and the history so far (the replies as the assistant's messages); conversations
    under one semaphore."""
    from openai import AsyncOpenAI, DefaultAioHttpClient

    client = AsyncOpenAI(base_url=base_url, api_key="x", max_retries=0,
                         http_client=DefaultAioHttpClient())
    gate = asyncio.Semaphore(concurrency)
    judged = 0

    async def one(turns: list[str]) -> None:
        nonlocal judged
        async with gate:
            messages: Messages = [{"role": "system", "content": SYSTEM}]
            for said in turns:
                messages.append({"role": "user", "content": said})
                if log is not None:
                    log.append(list(messages))
                r = await client.chat.completions.create(model="stub", messages=messages)  # type: ignore[arg-type]
                reply = r.choices[0].message.content or ""
                judged += REFERENCE in reply  # the same check as `contains`, for parity
                messages.append({"role": "assistant", "content": reply})

    t0 = time.perf_counter()
    await asyncio.gather(*(one(t) for t in talks))
    wall = time.perf_counter() - t0
    await client.close()
    return wall, judged


def bare_main(base_url: str, dataset: str, concurrency: int) -> None:
    talks = [json.loads(line)["turns"] for line in Path(dataset).read_text("utf-8").splitlines()]
    wall, judged = asyncio.run(bare_loop(base_url, talks, concurrency))
    assert judged == sum(len(t) for t in talks), judged
    print(f"{wall:.6f}")


def verify() -> None:
    """The two sides send the same requests: 3 conversations × 3 turns against an in-process
    stub that logs each request's body."""
    sys.path.insert(0, str(ROOT))
    from tests.openai_server import OpenAIServer

    rows = conversations(3, 3)
    bodies: dict[str, list[dict[str, Any]]] = {}
    for side in ("assay", "bare"):
        server = OpenAIServer()
        server.default = lambda m: "答：" + m[-1]["content"] + f"，600519 收盘 {REFERENCE}元"
        server.start()
        try:
            with tempfile.TemporaryDirectory() as d:
                tmp = Path(d)
                write_project(tmp, rows, server.base_url, 2)
                if side == "assay":
                    run_assay(tmp, 2, 3, 3)
                else:
                    asyncio.run(bare_loop(server.base_url, [r["turns"] for r in rows], 2))
        finally:
            server.stop()
        bodies[side] = sorted(server.requests, key=lambda b: json.dumps(b, ensure_ascii=False))
    a, b = bodies["assay"], bodies["bare"]
    print(f"assay sent {len(a)} requests, the bare loop {len(b)}; one of them:\n"
          f"{json.dumps(a[-1], ensure_ascii=False, indent=1)}")
    if a != b:
        keys = {k for x in a + b for k in x}
        diff = [k for k in sorted(keys) if [x.get(k) for x in a] != [x.get(k) for x in b]]
        sys.exit(f"the requests differ in {diff}")
    print("the same requests, body for body")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--conversations", type=int, default=200)
    ap.add_argument("--turns", type=int, default=5)
    ap.add_argument("--concurrency", type=int, default=50)
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--bare", nargs=2, metavar=("BASE_URL", "DATASET"))
    ap.add_argument("--verify", action="store_true")
    args = ap.parse_args()
    if args.bare:
        return bare_main(*args.bare, args.concurrency)
    if args.verify:
        return verify()
    n, turns, c = args.conversations, args.turns, args.concurrency
    rows = conversations(n, turns)
    ideal = n * turns * args.latency / c
    print(f"{n} conversations × {turns} turns ({n * turns} requests, each judged by contains), "
          f"concurrency {c}, "
          f"stub latency {args.latency:g} s, ideal {ideal:.2f} s; "
          f"{os.cpu_count()} cores, load {Path('/proc/loadavg').read_text().split()[:3]}",
          flush=True)
    rounds = []
    for r in range(args.rounds):
        proc, url = start_stub(args.latency)
        try:
            with tempfile.TemporaryDirectory() as d:
                tmp = Path(d)
                write_project(tmp, rows, url, c)
                if r % 2:
                    bare = run_bare(tmp, url, c)
                assay = run_assay(tmp, c, n, turns)
                if not r % 2:
                    bare = run_bare(tmp, url, c)
        finally:
            proc.kill()
            proc.wait()
        rounds.append((*bare, *assay))
        bw, bc, bl, aw, ac, ap_ = rounds[-1]
        print(f"  round {r + 1} ({'bare' if r % 2 else 'assay'} first): "
              f"bare {bw:.2f} s (loop {bl:.2f} s, CPU {bc:.2f} s), "
              f"assay {aw:.2f} s (run phase {ap_:.2f} s, CPU {ac:.2f} s); "
              f"assay/bare throughput {bw / aw:.0%} whole, {bl / ap_:.0%} inner; "
              f"load {Path('/proc/loadavg').read_text().split()[0]}", flush=True)
    med = [statistics.median(x) for x in zip(*rounds, strict=True)]
    whole = statistics.median(b[0] / b[3] for b in rounds)
    inner = statistics.median(b[2] / b[5] for b in rounds)
    print(f"medians of {args.rounds} rounds:\n"
          f"  bare SDK loop, whole process {med[0]:6.2f} s  CPU {med[1]:5.2f} s "
          f"(loop alone {med[2]:.2f} s)\n"
          f"  assay run, whole command     {med[3]:6.2f} s  CPU {med[4]:5.2f} s "
          f"(run phase {med[5]:.2f} s)\n"
          f"  assay / bare throughput: whole {whole:.0%}, inner {inner:.0%} "
          f"(medians of the per-round ratios); ideal {ideal:.2f} s")


if __name__ == "__main__":
    main()
