# Sourced by the bench scripts that compare trees. A tree is a checkout's root (its src/ runs), a
# built wheel's unpacked folder (e.g. the compiled wheel of `make wheel-compiled`: python -m
# zipfile -e dist/assay_eval-*-cp*.whl DIR), or the wheel file itself (unpacked into $D here);
# `code_of TREE` echoes the folder to put first on PYTHONPATH. Needs $PY and $D.
code_of() {
  if [ -f "$1" ] && [[ $1 == *.whl ]]; then
    local dir
    dir=$(mktemp -d "$D/wheel.XXXXXX")
    "$PY" -m zipfile -e "$1" "$dir"
    echo "$dir"
  elif [ -d "$1/src/assay" ]; then (cd "$1/src" && pwd)
  elif [ -d "$1/assay" ]; then (cd "$1" && pwd)
  else echo "$1: not a checkout, an unpacked wheel or a wheel" >&2; return 2
  fi
}
