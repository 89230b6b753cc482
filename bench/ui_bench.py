"""Web UI server time on a run of N items (default 100,000): the runs list, the run page (first
page, a deep page, filtered by status, by label, by score, by text search, by an item field,
sorted), the item page, the JSON results API, and (with a second run of the same items) the
compare page's items × runs matrix, its changed-only filter and the side-by-side item page.

    .venv/bin/python bench/ui_bench.py [--items 100000] [--repeat 10] [--db FILE]

With `--db FILE` the store is kept in FILE: a first call makes the two runs there, later calls
(with the same --items) time the same runs again without scoring anything, so one data set can
be timed before and after a change (a store of an older revision is upgraded on opening).

The run is made by `assay score` (finance-rubric) on the sample repeated with fresh ids; the app
is served by uvicorn on 127.0.0.1 and timed from a client on the same machine (loopback adds
well under a millisecond). Prints, per page, the first request (which fills the finished run's
summary cache where it uses it) and the median and worst of the repeats after it.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "finsearch_t1_sample.json"
ASSAY = str(Path(sys.executable).parent / "assay")


def main() -> None:
    import uvicorn

    from assay.store.db import open_engine
    from assay.web.app import create_app

    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--db", type=Path, help="keep the store in this file and reuse its runs")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        db = args.db.resolve() if args.db else tmp / "ui.db"
        url = f"sqlite:///{db}"
        kept = db.with_suffix(".runs")
        if args.db and db.exists() and kept.exists():
            run_id, run_b = kept.read_text().split()
            t0 = time.perf_counter()
            engine = open_engine(url)  # (an older store is upgraded here, once)
            print(f"runs {run_id} and {run_b} reused from {db} "
                  f"(opened in {time.perf_counter() - t0:.1f} s)")
        else:
            run_id, run_b = _make_runs(tmp, url, args.items)
            kept.write_text(f"{run_id} {run_b}")
            engine = open_engine(url)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(create_app(engine), host="127.0.0.1",
                                               port=port, log_level="warning"))
        threading.Thread(target=server.run, daemon=True).start()
        while not server.started:
            time.sleep(0.05)
        label = quote("Time-Sensitive_Data_Fetching(Global)")
        item = quote(f"ui-{args.items // 2}", safe="")
        pages = {
            "run page, first page": f"/runs/{run_id}",
            "run page, page 1,000": f"/runs/{run_id}?page=1000",
            "run page, status=error": f"/runs/{run_id}?status=error",
            "run page, score=0": f"/runs/{run_id}?score=0",
            "run page, label filter": f"/runs/{run_id}?label={label}",
            "run page, label + score, page 50": f"/runs/{run_id}?label={label}&score=1&page=50",
            "run page, search q=茅台": f"/runs/{run_id}?q={quote('茅台')}",
            "run page, where tags=Stock": f"/runs/{run_id}?where={quote('tags=Stock')}",
            "run page, sort -score, page 100": f"/runs/{run_id}?sort=-score&page=100",
            "runs list": "/",
            "runs list, search": f"/?q={run_id[-6:]}",
            "item page": f"/runs/{run_id}/items/{item}",
            "compare, 2 runs (matrix + stats)": f"/compare?runs={run_id}&runs={run_b}",
            "compare, matrix page 1,000": f"/compare?runs={run_id}&runs={run_b}&page=1000",
            "compare, changed only": f"/compare?runs={run_id}&runs={run_b}&changed=1",
            "compare, side by side": f"/compare/item?item={item}&runs={run_id}&runs={run_b}",
            "API results, page 100": f"/api/runs/{run_id}/results?page=100",
            "API item": f"/api/runs/{run_id}/items/{item}",
        }
        conn = http.client.HTTPConnection("127.0.0.1", port)
        print(f"{'page':36s} {'first ms':>9s} {'median ms':>10s} {'worst ms':>10s} "
              f"{'bytes':>9s}")
        for name, path in pages.items():
            times = []
            size = 0
            for _ in range(args.repeat + 1):
                t = time.perf_counter()
                conn.request("GET", path)
                resp = conn.getresponse()
                body = resp.read()
                times.append((time.perf_counter() - t) * 1000)
                assert resp.status == 200, (path, resp.status, body[:200])
                size = len(body)
            first, times = times[0], times[1:]  # the first request fills the caches
            print(f"{name:36s} {first:9.1f} {statistics.median(times):10.1f} "
                  f"{max(times):10.1f} {size:9,d}")
        server.should_exit = True


def _make_runs(tmp: Path, url: str, n: int) -> tuple[str, str]:
    """Two `assay score` runs of the same n items (finance-rubric)."""
    base = json.loads(SAMPLE.read_text("utf-8"))
    items = [dict(base[i % len(base)], prompt_id=f"ui-{i}") for i in range(n)]
    (tmp / "items.json").write_text(json.dumps(items, ensure_ascii=False), "utf-8")
    env = {k: v for k, v in os.environ.items() if k != "ASSAY_DB"}
    ids = []
    for _ in range(2):
        t0 = time.perf_counter()
        out = subprocess.run([ASSAY, "score", "items.json", "-q", "--db", url], cwd=tmp,
                             env=env, capture_output=True, text=True, check=True).stdout
        ids.append(out.split("run ")[-1].split()[0])
        print(f"run {ids[-1]}: {n:,} items scored in {time.perf_counter() - t0:.1f} s")
    return ids[0], ids[1]


if __name__ == "__main__":
    main()
