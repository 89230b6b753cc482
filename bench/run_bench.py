"""Experiment throughput: `assay run` on N items, each one model-target call plus one LLM-judge
call (finsearch-t1-judge), against a local OpenAI-compatible stub with a fixed latency; side by
side with a bare openai-SDK loop (aiohttp transport) making the same two calls per item at the
same concurrency. Traces and the store are on, as a user runs it.

    .venv/bin/python bench/run_bench.py [--items 10000] [--concurrency 50] [--latency 0.1]
                                        [--rounds 1]

Ideal rate = concurrency / (2 × latency). Peak memory is the assay process's max RSS; CPU per
item is its user+system time over the items.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from judge_bench import bare_loop, start_stub

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "finsearch_t1_sample.json"
ASSAY = str(Path(sys.executable).parent / "assay")


def bench_items(n: int) -> list[dict[str, object]]:
    """The bench's dataset: the T1 sample repeated with fresh ids."""
    base = json.loads(SAMPLE.read_text("utf-8"))
    return [dict(base[i % len(base)], prompt_id=f"b{i}") for i in range(n)]


def write_run(tmp: Path, base_url: str, concurrency: int) -> list[str]:
    """Writes the models file and the spec (a model target, then the LLM judge, both on the stub)
    into tmp, next to tmp/items.json; returns the arguments of `assay` that run it, from tmp.
    Shared with bench/run_instructions.sh, which runs the same command under callgrind."""
    (tmp / "assay-models.yaml").write_text(json.dumps({"models": {"stub": {
        "base_url": base_url, "model": "stub", "max_concurrency": concurrency,
        "timeout_s": 60}}}), "utf-8")
    (tmp / "spec.yaml").write_text(json.dumps({
        "name": "bench", "dataset": "items.json",
        "targets": [{"name": "m", "type": "model", "model": "stub", "prompt": "{prompt}"}],
        "evaluators": ["finsearch-t1-judge@stub"], "concurrency": concurrency}), "utf-8")
    return ["run", "spec.yaml", "--no-cache", "-q", "--db", f"sqlite:///{tmp / 'b.db'}"]


def run_assay(tmp: Path, base_url: str, concurrency: int) -> tuple[float, float, float, float]:
    argv = write_run(tmp, base_url, concurrency)
    env = {k: v for k, v in os.environ.items() if k not in ("ASSAY_DB", "ASSAY_MODELS")}
    t0 = time.perf_counter()
    proc = subprocess.Popen([ASSAY, *argv], cwd=tmp, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        sys.exit(f"assay failed: {proc.stderr.read().decode() if proc.stderr else status}")
    with sqlite3.connect(tmp / "b.db") as db:
        created, finished = db.execute("SELECT created_at, finished_at FROM runs").fetchone()
        spans = db.execute("SELECT count(*) FROM spans").fetchone()[0]
    phase = (datetime.fromisoformat(finished) - datetime.fromisoformat(created)).total_seconds()
    print(f"    (assay stored {spans:,} spans)", flush=True)
    return wall, ru.ru_utime + ru.ru_stime, phase, ru.ru_maxrss / 1024


def main() -> None:
    from assay.evaluators.judge.messages import build_messages
    from assay.evaluators.judge.templates import get_template

    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--concurrency", type=int, default=50)
    ap.add_argument("--latency", type=float, nargs="+", default=[0.1])
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    items = bench_items(args.items)
    template = get_template("finsearch-t1-judge")
    reply = '分析：一致。\n{"score": 1}'  # the stub's reply: the target's answer, then judged
    judge = [build_messages(template, it, reply) for it in items]
    # per item: the target's call (the prompt as is), then the judge's
    calls = [[[{"role": "user", "content": str(it["prompt"])}], j]
             for it, j in zip(items, judge, strict=True)]
    n = args.items
    print(f"{n} items × (1 target call + 1 judge call), concurrency {args.concurrency}, "
          f"{os.cpu_count()} cores")
    for latency in args.latency:
        ideal = args.concurrency / (2 * latency)
        rounds = []
        for r in range(args.rounds):
            proc, url = start_stub(latency)
            try:
                with tempfile.TemporaryDirectory() as d:
                    tmp = Path(d)
                    (tmp / "items.json").write_text(json.dumps(items, ensure_ascii=False),
                                                    "utf-8")
                    if r % 2:
                        b_wall, b_cpu = asyncio.run(bare_loop(url, calls,
                                                              args.concurrency))
                    a_wall, a_cpu, a_phase, a_rss = run_assay(tmp, url, args.concurrency)
                    if not r % 2:
                        b_wall, b_cpu = asyncio.run(bare_loop(url, calls,
                                                              args.concurrency))
            finally:
                proc.kill()
                proc.wait()
            rounds.append((n / b_wall, b_cpu / n * 1000, n / a_phase, n / a_wall,
                           a_cpu / n * 1000, a_rss))
            b, _, p, *_ = rounds[-1]
            print(f"  latency {latency:g} s, round {r + 1}: bare {b:,.1f}/s, assay run phase "
                  f"{p:,.1f}/s = {p / b:.0%}", flush=True)
        b_rate, b_ms, p_rate, a_rate, a_ms, rss = (statistics.median(x) for x in
                                                   zip(*rounds, strict=True))
        share = statistics.median(x[2] / x[0] for x in rounds)
        print(f"latency {latency:g} s (ideal {ideal:,.0f} items/s), medians of "
              f"{args.rounds} round(s):\n"
              f"  bare SDK loop        {b_rate:8,.1f} items/s  {b_ms:5.1f} ms CPU/item\n"
              f"  assay, run phase     {p_rate:8,.1f} items/s  = {share:.0%} of bare, "
              f"{p_rate / ideal:.0%} of ideal\n"
              f"  assay, whole command {a_rate:8,.1f} items/s  {a_ms:5.1f} ms CPU/item, "
              f"peak RSS {rss:,.0f} MB")
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print(f"(bench process peak RSS {ru.ru_maxrss / 1024:,.0f} MB)")


if __name__ == "__main__":
    main()
