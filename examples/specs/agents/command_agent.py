"""An example command target: one item as JSON on stdin, the answer on stdout."""

from __future__ import annotations

import json
import sys

item = json.load(sys.stdin)
if not item.get("prompt"):
    sys.exit("item has no prompt")  # a non-zero exit: this item's error, with this message
print(item.get("response") or "")  # stand-in for a real agent's answer
