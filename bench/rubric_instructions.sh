#!/bin/bash
# Instructions (valgrind callgrind, deterministic) of `FinanceRubricEvaluator.check` alone, per
# answer, for one or more source trees: the T1 sample (examples/finsearch_t1_sample.json, the
# score bench's answers) checked once to warm (99 answers: the per-item preparation and the
# canonical form are cached by content), then 396 checks (the sample four times) counted
# between two markers; the same for the T2/T3 sample (79 warm, 316 counted), whose reader is
# a separate path. Only the counted loop is collected: it runs inside `functools.reduce`,
# which callgrind toggles collection on (`--toggle-collect`) and which nothing under the
# rubric calls. Takes a minute or two a tree; run one at a time on a shared machine.
#
#   bench/rubric_instructions.sh TREE [TREE ...]        e.g. . /tmp/base
#   SAMPLES=t1 bench/rubric_instructions.sh .           (T1 only; t23 for T2/T3 only)
#
# A TREE is a checkout (its src/ runs: the sources); the line says which reader ran. For the
# compiled reader, give a folder holding an unpacked compiled wheel under src/ (`make
# wheel-compiled`, then python -m zipfile -e dist/assay_eval-*-cp*.whl DIR/src).
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
PY=${PY:-$HERE/.venv/bin/python}
SAMPLES=${SAMPLES:-t1 t23}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
cat > "$D/check.py" <<'PYEOF'
import functools, json, sys
sample, rounds = sys.argv[1], int(sys.argv[2])
from assay.core.types import Answer, Item
from assay.evaluators.finance import FinanceRubricEvaluator
import assay.evaluators.rubric as rubric
base = json.load(open(sample, encoding="utf-8"))
items = [Item(f"bench-{i}", dict(base[i % len(base)]), line=i + 1)
         for i in range(len(base) * (1 + rounds))]
answers = [Answer(it.fields["response"]) for it in items]
ev = FinanceRubricEvaluator()
check = ev.check
warm = len(base)
for it, a in zip(items[:warm], answers[:warm]):
    check(it, a, None)
pairs = list(zip(items[warm:], answers[warm:]))
def step(n, pair):
    check(pair[0], pair[1], None)
    return n + 1
n = functools.reduce(step, pairs, 0)  # the counted part: callgrind collects inside reduce only
print(f"checked {n} compiled={getattr(rubric, 'compiled', lambda: False)()}")
PYEOF
for TREE in "$@"; do
  TREE=$(cd "$TREE" && pwd)
  for S in $SAMPLES; do
    case $S in
      t1) FILE=$HERE/examples/finsearch_t1_sample.json ;;
      t23) FILE=$HERE/examples/finsearch_t23_sample.json ;;
      *) echo "unknown sample $S (t1, t23)" >&2; exit 2 ;;
    esac
    PYTHONHASHSEED=0 PYTHONPATH="$TREE/src" valgrind --tool=callgrind --collect-atstart=no \
      --toggle-collect=functools_reduce --dump-instr=no \
      --callgrind-out-file="$D/cg.out" "$PY" "$D/check.py" "$FILE" 4 > "$D/log" 2>&1 || {
        cat "$D/log" >&2; exit 1; }
    N=$(grep -o "checked [0-9]*" "$D/log" | awk '{print $2}')
    C=$(grep -o "compiled=[A-Za-z]*" "$D/log")
    I=$(grep -o "Collected : [0-9]*" "$D/log" | awk '{print $3}')
    if [ -n "${KEEP:-}" ]; then cp "$D/cg.out" "$KEEP.$S.$(basename "$TREE")"; fi
    "$PY" -c "print(f'$TREE $S ($C, $N answers): {$I / $N / 1e3:.1f} k instructions an answer')"
  done
done
