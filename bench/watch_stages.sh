#!/bin/bash
# Instructions (valgrind callgrind) of the watcher's per-trace path, stage by stage, in one
# process without the receiver, the queue or the store, for several trees: where
# bench/watch_instructions.sh says how much a trace costs, this says where. The traces are the
# watch bench's (bench/watch_bench.py's `build`: two spans each, the answer's instrument on the
# root); each stage runs for SMALL and LARGE traces inside `functools.reduce`, which callgrind
# counts alone (`--toggle-collect`), after one warm pass; per trace = the difference / the
# difference in traces. Stages:
#   decode  an OTLP/protobuf request of the traces → spans (traces/otlp_in.py `decode`)
#   read    a trace's spans → the item's fields and the agent's span rows (online/reading.py,
#           online/items.py)
#   fetch   the item's ground truth from the recorded A-share table (truth/capture.py, the
#           spec's `snapshot:` truth), made safe where it enters
#   check   finance-rubric's decision against that snapshot
# Stages the trees lay out alike (old trees kept `decode` in assay/online/otlp_in.py: found).
#
#   bench/watch_stages.sh SMALL LARGE TREE [TREE ...]      e.g. 100 300 /tmp/old .
#   STAGES="decode fetch" bench/watch_stages.sh 100 300 .
set -euo pipefail
SMALL=$1; LARGE=$2; shift 2
HERE=$(cd "$(dirname "$0")/.." && pwd)
PY=${PY:-$HERE/.venv/bin/python}
STAGES=${STAGES:-decode read fetch check}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
# shellcheck source=bench/trees.sh
. "$HERE/bench/trees.sh"  # code_of TREE: the folder its code runs from
cat > "$D/stage.py" <<'PYEOF'
# stage.py STAGE N BENCH: STAGE for N traces, the counted loop inside functools.reduce
import asyncio, functools, sys, types
from pathlib import Path
stage, n = sys.argv[1], int(sys.argv[2])
sys.path.insert(0, sys.argv[3])
try:
    from assay.traces.otlp_in import decode
except ImportError:  # a tree from before the traces package: watch_bench imports it there
    import assay.online.otlp_in as otlp_in
    sys.modules["assay.traces"] = types.ModuleType("assay.traces")
    sys.modules["assay.traces.otlp_in"] = otlp_in
    decode = otlp_in.decode
from watch_bench import SNAPSHOTS, build
from assay.core.types import Answer, Item
from assay.evaluators.finance import FinanceRubricEvaluator
from assay.online.items import agent_row, item_fields
from assay.online.reading import read_trace
from assay.truth.capture import Capture, TruthConfig
body = build(0, n)
reference = "必答点：最新价\n精度要求：rounding"  # the bench spec's rubric, as the watcher gives it
capture = Capture(TruthConfig.parse(f"snapshot:{SNAPSHOTS}",
                                    {"field": "span.quote.code", "market": "cn_stock"}, Path(".")))
evaluator = FinanceRubricEvaluator()
spans = decode(body, "application/x-protobuf")
traces = [spans[2 * i:2 * i + 2] for i in range(n)]
def item(trace):
    return Item(trace[0].trace_id, item_fields(read_trace(trace), trace, reference), "d", 1)
loop = asyncio.new_event_loop()
fetch = lambda it: loop.run_until_complete(capture.fetch(it))
items = [item(t) for t in traces]
snap = fetch(items[0])
for it in items[:4]:  # warm: the tables loaded, the rubric's per-question preparation cached
    evaluator.check(it, Answer(it.fields.get("response")), fetch(it))
if stage == "decode":
    functools.reduce(lambda _, __: decode(body, "application/x-protobuf"), range(1), 0)
elif stage == "read":
    functools.reduce(lambda _, t: (item(t), [agent_row("r", t[0].trace_id, s) for s in t]),
                     traces, 0)
elif stage == "fetch":
    functools.reduce(lambda _, it: fetch(it), items, 0)
elif stage == "check":
    pairs = [(it, Answer(it.fields.get("response"))) for it in items]
    functools.reduce(lambda _, p: evaluator.check(p[0], p[1], snap), pairs, 0)
else:
    sys.exit(f"unknown stage {stage!r}")
PYEOF
count() {  # count CODE STAGE N → instructions counted
  PYTHONHASHSEED=0 PYTHONPATH="$1" valgrind --tool=callgrind --callgrind-out-file="$D/cg.out" \
    --toggle-collect='*functools_reduce*' "$PY" "$D/stage.py" "$2" "$3" "$HERE/bench" 2>&1 \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for TREE in "$@"; do
  CODE=$(code_of "$TREE")
  # bytecode written first (as in score_instructions.sh), whatever PYTHONDONTWRITEBYTECODE says
  PYTHONDONTWRITEBYTECODE= PYTHONPATH="$CODE" "$PY" "$D/stage.py" check 4 "$HERE/bench"
  for S in $STAGES; do
    a=$(count "$CODE" "$S" "$SMALL"); b=$(count "$CODE" "$S" "$LARGE")
    "$PY" -c "print(f'$TREE $S: {($b - $a) / ($LARGE - $SMALL) / 1e3:.1f} k instructions a trace')"
  done
done
