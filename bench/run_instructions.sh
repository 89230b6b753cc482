#!/bin/bash
# Instructions (valgrind callgrind) of the run bench's `assay run` — each item one model-target
# call and one LLM-judge call (finsearch-t1-judge), traces and store on, the spec of
# bench/run_bench.py — at two sizes, for several trees; prints each tree's per-item and fixed
# instructions, solved from the two sizes. Where the VM's timer cannot settle the run bench
# (bench/back_to_back.sh), this can. Takes minutes (about 1.5 min per 100 items on the 2-core VM).
#
# Only the `assay run` process (the venv's `assay` script, the tree's code first on PYTHONPATH)
# is under callgrind; the OpenAI-compatible stub (bench/judge_bench.py's, latency 0) and this
# driver run outside it, from this checkout, so every tree talks to the same stub. Concurrency
# is modest (CONC, 8) so callgrind's serialised threads do not change how the run is scheduled.
# asyncio's interleaving is not quite deterministic: REPEAT=2 runs every size twice and prints
# both solutions, to show the spread.
#
#   bench/run_instructions.sh SMALL LARGE TREE [TREE ...]     e.g. 300 900 . /tmp/old
#   REPEAT=2 CONC=8 PY=/path/to/venv/bin/python bench/run_instructions.sh 300 900 /tmp/old
set -euo pipefail
SMALL=$1; LARGE=$2; shift 2
HERE=$(cd "$(dirname "$0")/.." && pwd)
PY=${PY:-$HERE/.venv/bin/python}
CONC=${CONC:-8}
REPEAT=${REPEAT:-1}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
# shellcheck source=bench/trees.sh
. "$HERE/bench/trees.sh"  # code_of TREE: the folder its code runs from
cat > "$D/drive.py" <<'PYEOF'
# drive.py N CONC CODE [VALGRIND ARGS…]: one `assay run` of N items against a fresh stub
import json, os, re, sqlite3, subprocess, sys, tempfile
from pathlib import Path
from judge_bench import start_stub
from run_bench import bench_items, write_run
n, conc, code, vg = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4:]
stub, url = start_stub(0)
try:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        (tmp / "items.json").write_text(json.dumps(bench_items(n), ensure_ascii=False), "utf-8")
        argv = write_run(tmp, url, conc)
        env = {k: v for k, v in os.environ.items() if k not in ("ASSAY_DB", "ASSAY_MODELS")}
        env.update(PYTHONPATH=code, PYTHONHASHSEED="0")
        assay = str(Path(sys.executable).parent / "assay")
        r = subprocess.run([*vg, sys.executable, assay, *argv], cwd=tmp, env=env,
                           capture_output=True, text=True, check=False)
        if r.returncode:
            sys.exit(f"assay run failed ({r.returncode}): {r.stderr[-2000:]}")
        with sqlite3.connect(tmp / "b.db") as db:
            status = dict(db.execute("SELECT status, count(*) FROM results GROUP BY status"))
        # every item judged, none failed or timed out: otherwise the count measures something else
        if status != {"scored": n}:
            sys.exit(f"results not all ok: {status}")
        if vg:
            print(re.search(r"Collected : (\d+)", r.stderr).group(1))
finally:
    stub.kill()
    stub.wait()
PYEOF
# The driver and the stub run this checkout's bench/ and src/ (the stub's replies are the same
# for every tree); only the measured process gets the tree's code.
drive() { PYTHONPATH="$HERE/bench:$HERE/src" "$PY" "$D/drive.py" "$@"; }
for TREE in "$@"; do
  CODE=$(code_of "$TREE")
  declare -A I=()
  # A first run, not measured, writes the tree's bytecode (.pyc), as in score_instructions.sh
  # (even where PYTHONDONTWRITEBYTECODE is set, as on the development VM).
  PYTHONDONTWRITEBYTECODE= drive 20 "$CONC" "$CODE"
  for ((k = 0; k < REPEAT; k++)); do
    for N in "$SMALL" "$LARGE"; do
      I[$N.$k]=$(drive "$N" "$CONC" "$CODE" valgrind --tool=callgrind \
        --callgrind-out-file="$D/cg.out")
    done
  done
  for ((k = 0; k < REPEAT; k++)); do
    "$PY" -c "
s, l, a, b = $SMALL, $LARGE, ${I[$SMALL.$k]}, ${I[$LARGE.$k]}
per = (b - a) / (l - s)
print(f'$TREE (run, concurrency $CONC, repeat $((k + 1))): {per / 1e6:.3f} M instructions per item, '
      f'fixed {(a - per * s) / 1e9:.2f} G ({s}: {a / 1e9:.3f} G, {l}: {b / 1e9:.3f} G)')"
  done
done
