"""docs/evaluators.md: every built-in check has its section, and the custom-check example
works as the page says it does."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from assay.core.types import Answer, Item
from assay.evaluators.registry import EVALUATORS
from tests.conftest import ROOT

DOC = (ROOT / "docs" / "evaluators.md").read_text("utf-8")


def test_every_check_is_documented() -> None:
    builtin = [e["name"] for e in EVALUATORS.describe() if e.get("family") == "builtin"]
    headings = " ".join(re.findall(r"^### (.*)$", DOC, re.MULTILINE))
    for name in builtin:
        if name != "python":
            assert f"`{name}`" in headings, name
        for arg in EVALUATORS.arguments(EVALUATORS.entry(name)) or ():
            assert f"`{arg.name}`" in DOC, (name, arg.name)


def test_the_custom_check_example(tmp_path: Path) -> None:
    code = re.search(r"```python\n(# checks.py.*?)```", DOC, re.DOTALL)
    assert code is not None
    path = tmp_path / "checks.py"
    path.write_text(code.group(1), "utf-8")
    ev = EVALUATORS.build("python", path=str(path), function="price_ok",
                          args={"tolerance": 0.5})
    item = Item("q", {"reference_output": "1455"})
    assert asyncio.run(ev.evaluate(item, Answer("1455.4元"))).value == 1.0
    failed = asyncio.run(ev.evaluate(item, Answer("约1455元")))
    assert f"(`{failed.reason}`)" in DOC  # the message the page quotes
    graded = EVALUATORS.build("python", path=str(path), function="graded", label="t")
    s = asyncio.run(graded.evaluate(Item("q", {"ticker": "600519"}), Answer("600519 收盘")))
    assert (s.evaluator, s.value, s.reason) == ("t", 1.0, "names the ticker")
