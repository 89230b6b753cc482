#!/bin/bash
# Instructions (valgrind callgrind, deterministic) of an in-process `assay score` of the score
# bench's data — the 99-item sample repeated with fresh ids — at two sizes, for several trees
# (a checkout's root, or a built wheel, unpacked or not: the compiled one of `make
# wheel-compiled`); prints each tree's per-item and fixed instructions, solved from the two
# sizes. Where the VM's timer cannot settle a few per cent (bench/score_cpu.sh), this can. Takes
# minutes.
#
#   bench/score_instructions.sh SMALL LARGE TREE [TREE ...]     e.g. 1000 5000 . /tmp/oldmain
#   bench/score_instructions.sh 1000 5000 . dist/assay_eval-0.1.0-cp311-*.whl   (sources, compiled)
#   EV=json-valid bench/score_instructions.sh …                  (the pipeline without the rubric)
#   DISTINCT=1 bench/score_instructions.sh 1000 3000 …           (every item's text its own)
#
# The sample repeated as it is serves each repeat's per-question preparation (instrument,
# criteria, stored truth) and canonical form from the rubric's caches, so the per-item figure
# leaves them out. DISTINCT=1 makes each repeat's question, reference and answer its own text
# with the same meaning (blanks after the question and the reference; blanks and a full stop
# after the answer), so each item pays for them, as in a run where no two answers are alike.
set -euo pipefail
SMALL=$1; LARGE=$2; shift 2
HERE=$(cd "$(dirname "$0")/.." && pwd)
PY=${PY:-$HERE/.venv/bin/python}
EV=${EV:-finance-rubric}
DISTINCT=${DISTINCT:-0}
LABEL=""; [ "$DISTINCT" = 1 ] && LABEL=", distinct"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
# shellcheck source=bench/trees.sh
. "$HERE/bench/trees.sh"  # code_of TREE: the folder its code runs from
cat > "$D/score.py" <<'PYEOF'
import asyncio, json, sys, tempfile
from pathlib import Path
n, sample, ev, distinct = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4] == "1"
base = json.load(open(sample, encoding="utf-8"))
d = Path(tempfile.mkdtemp())
data = d / "bench.json"
def item(i):
    b = dict(base[i % len(base)], prompt_id=f"bench-{i}")
    pad = " " * (i // len(base))
    if distinct and pad:  # the same meaning, another text: no cache serves it
        b.update(prompt=b["prompt"] + pad, response_reference=b["response_reference"] + pad,
                 response=b["response"] + pad + "。")
    return b
data.write_text(json.dumps([item(i) for i in range(n)], ensure_ascii=False), "utf-8")
from assay.runner.score import score, score_spec
from assay.store.db import open_engine
engine = open_engine(f"sqlite:///{d / 'db.sqlite'}")
asyncio.run(score(engine, score_spec(data, [ev]), out=d / "out.jsonl"))
PYEOF
for TREE in "$@"; do
  CODE=$(code_of "$TREE")
  declare -A I=()
  # A first run, not measured, writes the tree's bytecode (.pyc): otherwise the SMALL run alone
  # pays for compiling every changed module, which the solve reads as fixed cost and takes off
  # the per-item figure. Written even where the environment says not to (PYTHONDONTWRITEBYTECODE,
  # set on the development VM): without it every measured run compiled every source module, a
  # cost an installed package never pays (pip writes the bytecode) and a compiled module never
  # had, which made the fixed part of a tree of sources look about 1 G larger than it is.
  PYTHONDONTWRITEBYTECODE= PYTHONHASHSEED=0 PYTHONPATH="$CODE" "$PY" "$D/score.py" 20 \
    "$HERE/examples/finsearch_t1_sample.json" "$EV" "$DISTINCT" > "$D/log" 2>&1
  for N in "$SMALL" "$LARGE"; do
    PYTHONHASHSEED=0 PYTHONPATH="$CODE" valgrind --tool=callgrind \
      --callgrind-out-file="$D/cg.out" "$PY" "$D/score.py" "$N" \
      "$HERE/examples/finsearch_t1_sample.json" "$EV" "$DISTINCT" > "$D/log" 2>&1
    I[$N]=$(grep -o "Collected : [0-9]*" "$D/log" | awk '{print $3}')
  done
  "$PY" -c "
s, l, a, b = $SMALL, $LARGE, ${I[$SMALL]}, ${I[$LARGE]}
per = (b - a) / (l - s)
print(f'$TREE ($EV$LABEL): {per / 1e6:.3f} M instructions per item, fixed {(a - per * s) / 1e9:.2f} G, '
      f'100,000 items {(a + per * (100000 - s)) / 1e9:.1f} G')"
done
