"""LLM-judge throughput: `assay score -e finsearch-t1-judge@stub` on N items against a local
OpenAI-compatible stub, side by side with a bare openai-SDK loop (aiohttp transport) making the
same requests at the same concurrency.

    .venv/bin/python bench/judge_bench.py [--items 2000] [--concurrency 50] [--latency 0.1 1.0]
                                          [--rounds 3]

Each round runs assay and the bare loop back to back against a fresh stub; the order alternates
between rounds (this 2-core VM drifts by ±15 %), and the medians are reported with every round.

The stub (tests/openai_server.py) runs in its own process. CPU per judgment is the client
process's user+system time divided by the number of judgments.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SAMPLE = ROOT / "examples" / "finsearch_t1_sample.json"
ASSAY = str(Path(sys.executable).parent / "assay")

STUB = """
import sys, time
sys.path.insert(0, {root!r})
from tests.openai_server import OpenAIServer
s = OpenAIServer()
s.latency_s = {latency}
s.default = lambda messages: '分析：一致。\\n{{"score": 1}}'
s.start()
print(s.port, flush=True)
time.sleep(10**6)
"""


def start_stub(latency: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-c", STUB.format(root=str(ROOT),
                                                               latency=latency)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    port = proc.stdout.readline().strip()
    return proc, f"http://127.0.0.1:{port}/v1"


def child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_assay(tmp: Path, base_url: str, n: int, concurrency: int
              ) -> tuple[float, float, float]:
    (tmp / "assay-models.yaml").write_text(json.dumps({"models": {"stub": {
        "base_url": base_url, "model": "stub", "max_concurrency": concurrency,
        "timeout_s": 30}}}), "utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("ASSAY_DB", "ASSAY_MODELS")}
    cpu0, t0 = child_cpu(), time.perf_counter()
    r = subprocess.run([ASSAY, "score", "items.json", "-e", "finsearch-t1-judge@stub",
                        "--no-cache", "-q", "--db", f"sqlite:///{tmp / 'b.db'}"],
                       cwd=tmp, env=env, capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - t0, child_cpu() - cpu0
    if r.returncode != 0:
        sys.exit(f"assay failed: {r.stderr}")
    # the scoring phase alone, from the run's own record (no imports, no dataset load)
    import sqlite3
    from datetime import datetime

    with sqlite3.connect(tmp / "b.db") as db:
        created, finished = db.execute("SELECT created_at, finished_at FROM runs").fetchone()
    phase = (datetime.fromisoformat(finished) - datetime.fromisoformat(created)).total_seconds()
    return wall, cpu, phase


Messages = list[dict[str, str]]


async def bare_loop(base_url: str, items: list[list[Messages]],
                    concurrency: int) -> tuple[float, float]:
    """The openai SDK alone: per item, its calls in order; items under one semaphore."""
    from openai import AsyncOpenAI, DefaultAioHttpClient

    client = AsyncOpenAI(base_url=base_url, api_key="x", max_retries=0,
                         http_client=DefaultAioHttpClient())
    gate = asyncio.Semaphore(concurrency)

    async def one(calls: list[Messages]) -> None:
        async with gate:
            for messages in calls:
                await client.chat.completions.create(model="stub", messages=messages)  # type: ignore[arg-type]

    cpu0, t0 = time.process_time(), time.perf_counter()
    await asyncio.gather(*(one(calls) for calls in items))
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    await client.close()
    return wall, cpu


def main() -> None:
    from assay.evaluators.judge.messages import build_messages
    from assay.evaluators.judge.templates import get_template

    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=50)
    ap.add_argument("--latency", type=float, nargs="+", default=[0.1, 1.0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    base = json.loads(SAMPLE.read_text("utf-8"))
    items = [dict(base[i % len(base)], prompt_id=f"j{i}") for i in range(args.items)]
    template = get_template("finsearch-t1-judge")
    requests = [build_messages(template, it, it["response"]) for it in items]
    print(f"{args.items} judgments, concurrency {args.concurrency}, {os.cpu_count()} cores")
    for latency in args.latency:
        ideal = args.concurrency / latency
        rounds: list[tuple[float, float, float, float, float]] = []
        for r in range(args.rounds):
            proc, url = start_stub(latency)
            try:
                with tempfile.TemporaryDirectory() as d:
                    tmp = Path(d)
                    (tmp / "items.json").write_text(json.dumps(items, ensure_ascii=False),
                                                    "utf-8")
                    if r % 2:
                        b_wall, b_cpu = asyncio.run(bare_loop(url, [[m] for m in requests],
                                                              args.concurrency))
                    a_wall, a_cpu, a_phase = run_assay(tmp, url, args.items, args.concurrency)
                    if not r % 2:
                        b_wall, b_cpu = asyncio.run(bare_loop(url, [[m] for m in requests],
                                                              args.concurrency))
            finally:
                proc.kill()
            n = args.items
            rounds.append((n / b_wall, b_cpu / n * 1000, n / a_phase, n / a_wall,
                           a_cpu / n * 1000))
            b, _, p, _, _ = rounds[-1]
            print(f"  latency {latency:g} s, round {r + 1}: bare {b:,.0f}/s, assay scoring "
                  f"phase "
                  f"{p:,.0f}/s = {p / b:.0%}", flush=True)
        b_rate, b_ms, p_rate, a_rate, a_ms = (statistics.median(x) for x in zip(*rounds, strict=True))
        share = statistics.median(p / b for b, _, p, _, _ in rounds)
        print(f"latency {latency:g} s (ideal {ideal:,.0f}/s), medians of {args.rounds} rounds:\n"
              f"  bare SDK loop         {b_rate:7,.0f}/s  {b_ms:5.1f} ms CPU/judgment\n"
              f"  assay, scoring phase  {p_rate:7,.0f}/s  = {share:.0%} of bare (median of "
              f"per-round ratios), {p_rate / ideal:.0%} of ideal\n"
              f"  assay, whole command  {a_rate:7,.0f}/s  {a_ms:5.1f} ms CPU/judgment "
              f"(start-up, dataset load and store included)")

if __name__ == "__main__":
    main()
