"""An example Python target. Replace the body with a call to your own agent; Assay passes the
item's fields and records what you return (text, or text plus metadata) in the trace."""

from __future__ import annotations

from typing import Any


def answer(item: dict[str, Any]) -> dict[str, Any]:
    # Stand-in for a real agent: the answer recorded in the sample dataset.
    return {"text": str(item.get("response") or ""),
            "metadata": {"agent": "python-example", "ticker": item.get("akshare_ticker")}}
