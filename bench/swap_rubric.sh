#!/bin/bash
# A tree of this checkout whose `finance-rubric` decides T1 items with an older tree's rubric,
# so the rest of a change (the pipeline, the store, the registries) can be timed on its own
# against that older tree with the same rubric work in both (BENCHMARKS.md, issue 10).
#
#   bench/swap_rubric.sh OLD_TREE NEW_TREE        e.g. OLD_TREE from
#   git worktree add --detach /tmp/old 11f0001
#
# NEW_TREE is made with `git worktree add --detach` from HEAD; the old rubric (a package with
# `evaluator.FinanceRubric().evaluate(item, answer)`, as in 11f0001) is copied in as
# `assay.evaluators.oldrubric`. Bench use only: the swapped tree is never committed.
set -euo pipefail
OLD=$(cd "$1" && pwd); NEW=$2
HERE=$(cd "$(dirname "$0")/.." && pwd)
git -C "$HERE" worktree add --detach "$NEW" HEAD > /dev/null
cp -r "$OLD/src/assay/evaluators/rubric" "$NEW/src/assay/evaluators/oldrubric"
rm -rf "$NEW/src/assay/evaluators/oldrubric/__pycache__"
"${PY:-$HERE/.venv/bin/python}" - "$NEW/src/assay/evaluators/finance.py" <<'PYEOF'
import sys
path = sys.argv[1]
src = open(path, encoding="utf-8").read()
old = "            score = self.t1.check(item, answer, truth)"
if src.count(old) != 1:
    sys.exit(f"{path}: the T1 call to swap was not found once")
src = src.replace(old, "            score = _OLD.evaluate(item, answer)  # bench: the old rubric")
src += ("\n\nfrom .oldrubric.evaluator import FinanceRubric as _OldRubric  # noqa: E402\n\n"
        "_OLD = _OldRubric()\n")
open(path, "w", encoding="utf-8").write(src)
PYEOF
env -u PYTHONDONTWRITEBYTECODE "${PY:-$HERE/.venv/bin/python}" -m compileall -q "$NEW/src"
echo "$NEW: this checkout with the rubric of $OLD"
