#!/bin/bash
# Wall-clock benches of two trees back to back, alternating which goes first (A B B A A B …):
# each bench script is the tree's own (bench/X.py), run with the tree's src/ first on PYTHONPATH,
# so the stub, the assay CLI and the bench's in-process imports are that tree's. One log a run,
# named BENCH.N.TREE-LABEL.log in OUT, with the load average before it in its first line.
#
#   bench/back_to_back.sh OUT PAIRS OLD NEW BENCH [ARGS…]
#   e.g. bench/back_to_back.sh /tmp/wall 3 /tmp/old /tmp/new run_bench.py --items 2000 --rounds 1
set -euo pipefail
OUT=$1; PAIRS=$2; OLD=$3; NEW=$4; BENCH=$5; shift 5
HERE=$(cd "$(dirname "$0")/.." && pwd)
PY=${PY:-$HERE/.venv/bin/python}
mkdir -p "$OUT"
n=0
for ((p = 0; p < PAIRS; p++)); do
  if ((p % 2)); then order="new old"; else order="old new"; fi
  for side in $order; do
    n=$((n + 1))
    if [ "$side" = old ]; then TREE=$OLD; else TREE=$NEW; fi
    log="$OUT/${BENCH%.py}.$n.$side.log"
    echo "load $(cat /proc/loadavg) at $(date -u +%T)" > "$log"
    (cd "$TREE" && PYTHONPATH="$TREE/src" "$PY" "bench/$BENCH" "$@") >> "$log" 2>&1
    echo "${BENCH%.py} $n $side: $(head -1 "$log")"
  done
done
