"""The agent under test in the CI example. A stand-in: it answers with the sample's recorded
answers, so the example's pull request run matches its baseline; set ASSAY_CI_DEMO_REGRESSION=1
to see the gate fail (it then declines to answer every fifth question with a number)."""

from __future__ import annotations

import os
from typing import Any


def answer(item: dict[str, Any]) -> str:
    text = str(item.get("response") or "")
    if os.environ.get("ASSAY_CI_DEMO_REGRESSION") and hash_of(item) % 5 == 0:
        return "I cannot look that up right now."
    return text


def hash_of(item: dict[str, Any]) -> int:
    return sum(map(ord, str(item.get("prompt_id", ""))))
