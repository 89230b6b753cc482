#!/bin/bash
# Instructions (valgrind callgrind) of the watch bench's watcher — `assay watch` with
# finance-rubric and the recorded A-share table as ground truth (bench/watch_bench.py's spec),
# fed the bench's OTLP traces (two spans each, PER a request) — at two trace counts, for several
# trees; prints each tree's instructions a trace and fixed, solved from the two counts. Where the
# VM's timer cannot settle the watcher's CPU a trace (bench/back_to_back.sh), this can.
#
# Only the watcher (the venv's `assay` script, the tree's code first on PYTHONPATH) is under
# callgrind; the sender (bench/watch_bench.py's `offer`, this checkout's) runs outside it. The
# traces are paced (RATE a second, 10: well within what the watcher does under callgrind, so no
# backlog builds up and none is dropped; the queue holds them all anyway). The watcher's sweep
# wakes every 0.1 s whatever comes, so its idle ticks are counted too: paced, they grow with the
# traces (RATE 10 = one tick a trace) and land in the per-trace figure, the same for every tree
# whose sweep ticks alike. REPEAT=2 runs every count twice, to show the spread.
#
#   bench/watch_instructions.sh SMALL LARGE TREE [TREE ...]     e.g. 200 600 . /tmp/old
#   REPEAT=2 RATE=10 PER=50 PY=/path/to/venv/bin/python bench/watch_instructions.sh 200 600 .
set -euo pipefail
SMALL=$1; LARGE=$2; shift 2
HERE=$(cd "$(dirname "$0")/.." && pwd)
PY=${PY:-$HERE/.venv/bin/python}
RATE=${RATE:-10}
PER=${PER:-50}
REPEAT=${REPEAT:-1}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
# shellcheck source=bench/trees.sh
. "$HERE/bench/trees.sh"  # code_of TREE: the folder its code runs from
cat > "$D/drive.py" <<'PYEOF'
# drive.py N RATE PER CODE [VALGRIND ARGS…]: one watcher fed N traces, stopped when all are stored
import asyncio, json, os, re, signal, sqlite3, subprocess, sys, tempfile, time
from pathlib import Path
from watch_bench import offer, write_spec
n, rate, per, code, vg = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4], \
    sys.argv[5:]
with tempfile.TemporaryDirectory() as d:
    tmp = Path(d)
    db = tmp / "assay.db"
    write_spec(tmp, max(2000, n), "snapshot")
    env = {**os.environ, "ASSAY_DB": f"sqlite:///{db}", "PYTHONPATH": code,
           "PYTHONHASHSEED": "0"}
    log = tmp / "valgrind.log"  # valgrind's own lines apart from the watcher's ready line
    cmd = [*vg, f"--log-file={log}"] if vg else []
    proc = subprocess.Popen([*cmd, sys.executable, str(Path(sys.executable).parent / "assay"),
                             "watch", "watch.yaml"], cwd=tmp, env=env, text=True,
                            stderr=subprocess.PIPE)
    assert proc.stderr is not None
    line = proc.stderr.readline()
    endpoint, run_id = line.split(" on ")[1].split()[0], line.split()[2]
    try:
        asyncio.run(offer(endpoint, 0, n, per, rate, proc.pid, db, run_id, []))
        t0, stored = time.monotonic(), 0
        while stored < n and time.monotonic() - t0 < 600:
            time.sleep(0.5)
            with sqlite3.connect(db) as c:
                stored = c.execute("SELECT count(*) FROM results WHERE run_id = ?",
                                   (run_id,)).fetchone()[0]
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=600)
    with sqlite3.connect(db) as c:
        summary = json.loads(c.execute("SELECT summary FROM runs WHERE id = ?",
                                       (run_id,)).fetchone()[0])["online"]
    # every trace evaluated, none dropped or failed: otherwise the count measures something else
    if summary.get("evaluated") != n or any(summary.get(k) for k in (
            "dropped", "dropped_waiting", "dropped_at_stop", "failed", "unknown")):
        sys.exit(f"watcher did not evaluate all {n} traces: {summary}; {err[-1000:]}")
    if vg:
        print(re.search(r"Collected : (\d+)", log.read_text()).group(1))
PYEOF
# The driver and the sender run this checkout's bench/ and src/ (every tree gets the same
# bytes); only the watcher gets the tree's code.
drive() { PYTHONPATH="$HERE/bench:$HERE/src" "$PY" "$D/drive.py" "$@"; }
for TREE in "$@"; do
  CODE=$(code_of "$TREE")
  declare -A I=()
  # A first run, not measured, writes the tree's bytecode (.pyc), as in score_instructions.sh
  # (even where PYTHONDONTWRITEBYTECODE is set, as on the development VM).
  PYTHONDONTWRITEBYTECODE= drive 50 100 "$PER" "$CODE"
  for ((k = 0; k < REPEAT; k++)); do
    for N in "$SMALL" "$LARGE"; do
      I[$N.$k]=$(drive "$N" "$RATE" "$PER" "$CODE" valgrind --tool=callgrind \
        --callgrind-out-file="$D/cg.out")
    done
  done
  for ((k = 0; k < REPEAT; k++)); do
    "$PY" -c "
s, l, a, b = $SMALL, $LARGE, ${I[$SMALL.$k]}, ${I[$LARGE.$k]}
per = (b - a) / (l - s)
print(f'$TREE (watch, {$RATE:g} traces/s, $PER a request, repeat $((k + 1))): '
      f'{per / 1e6:.3f} M instructions per trace, fixed {(a - per * s) / 1e9:.2f} G '
      f'({s}: {a / 1e9:.3f} G, {l}: {b / 1e9:.3f} G)')"
  done
done
