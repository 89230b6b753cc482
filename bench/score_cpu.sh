#!/bin/bash
# CPU seconds (user+sys) of `assay score` on N items (the 99-item sample repeated with fresh
# ids), for several trees run alternately, so two versions compare back to back on one machine.
# A tree is a checkout's root (e.g. made with `git worktree add --detach DIR COMMIT`), or a built
# wheel, unpacked or not (the compiled one: `make wheel-compiled`); each runs with the current
# venv's packages and its own code first on the path.
#
#   bench/score_cpu.sh N ROUNDS TREE [TREE ...]     e.g. 2000 4 . dist/assay_eval-0.1.0-cp311-*.whl
set -euo pipefail
N=$1; ROUNDS=$2; shift 2
HERE=$(cd "$(dirname "$0")/.." && pwd)
PY=${PY:-$HERE/.venv/bin/python}
ASSAY=$(dirname "$PY")/assay
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
# shellcheck source=bench/trees.sh
. "$HERE/bench/trees.sh"  # code_of TREE: the folder its code runs from
declare -A CODE=()
for TREE in "$@"; do CODE[$TREE]=$(code_of "$TREE"); done
"$PY" - "$N" "$D" "$HERE/examples/finsearch_t1_sample.json" <<'PYEOF'
import json, sys
n, d, sample = int(sys.argv[1]), sys.argv[2], sys.argv[3]
base = json.load(open(sample, encoding="utf-8"))
items = [dict(base[i % len(base)], prompt_id=f"bench-{i}") for i in range(n)]
json.dump(items, open(d + "/bench.json", "w", encoding="utf-8"), ensure_ascii=False)
PYEOF
cd "$D"
for r in $(seq "$ROUNDS"); do
  for TREE in "$@"; do
    rm -f db.sqlite
    /usr/bin/time -f "%U %S %e" -o t.txt env PYTHONPATH="${CODE[$TREE]}" "$ASSAY" score bench.json \
      -q --db "sqlite:///$D/db.sqlite" --out out.jsonl > /dev/null
    echo "$TREE round $r cpu $(awk '{print $1+$2}' t.txt) s wall $(awk '{print $3}' t.txt) s"
  done
done
