"""What `assay score` loads before its first item: no pydantic (the spec models are read only
where a spec needs them: runner/spec.py), not the rubric's reader of numbers (a `when:
{reference: number}` condition needs it, a json-valid score does not) and not the conversation
modules (a dataset with conversations needs them). Each a tenth of a second or so of every
score's start-up. Checked in a fresh interpreter: this process has loaded every module
already."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.process

EXAMPLES = Path(__file__).parents[2] / "examples"
HEAVY = ("pydantic", "pydantic_core", "assay.runner.spec_models", "assay.core.specmodel",
         "assay.evaluators.rubric.numbers", "assay.core.conversation",
         "assay.runner.conversation", "assay.runner.simulator", "assay.store.conversations")
PROBE = """
import asyncio, json, sys
from pathlib import Path
heavy = json.loads(sys.argv[1])
loaded = lambda: sorted(m for m in heavy if m in sys.modules)
from assay.runner.score import score, score_spec
out = {"imported": loaded()}
if len(sys.argv) > 2:
    from assay.store.db import open_engine
    folder = Path(sys.argv[3])
    engine = open_engine(f"sqlite:///{folder / 'db.sqlite'}")
    spec = score_spec(Path(sys.argv[2]), ["json-valid"])
    out["spec"] = loaded()
    asyncio.run(score(engine, spec, out=folder / "out.jsonl"))
    out["scored"] = loaded()
print(json.dumps(out))
"""


def _probe(*args: str) -> dict[str, list[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(HEAVY), *args],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def test_importing_the_score_command_loads_no_spec_model() -> None:
    assert _probe() == {"imported": []}


def test_a_json_valid_score_in_code_loads_none(tmp_path: Path) -> None:
    rows = json.loads((EXAMPLES / "finsearch_t1_sample.json").read_text("utf-8"))[:2]
    data = tmp_path / "items.json"
    data.write_text(json.dumps(rows, ensure_ascii=False), "utf-8")
    assert _probe(str(data), str(tmp_path)) == {"imported": [], "spec": [], "scored": []}
    assert len((tmp_path / "out.jsonl").read_text("utf-8").splitlines()) == 2
