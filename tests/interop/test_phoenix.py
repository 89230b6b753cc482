"""A real trace viewer reads Assay's spans: `phoenix serve` (Arize Phoenix, installed in a venv
of its own by `make test-interop`) receives an `assay run`'s OTLP export — a model target and a
judge against the local OpenAI-compatible server — and its REST API shows the model requests
as LLM spans with input, output and model name, the evaluators as EVALUATOR spans with their
scores, and the scores on each sample's root. Not part of `make test` (Phoenix is large)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_run_cli import model_reply, run_id_of
from tests.cli.test_run_cli import run_process as run  # as the entry point's process
from tests.conftest import ROOT, SAMPLE
from tests.openai_server import OpenAIServer

pytestmark = [pytest.mark.interop, pytest.mark.process, pytest.mark.server]
PHOENIX = Path(os.environ.get("ASSAY_PHOENIX", ROOT / ".venv-interop" / "bin" / "phoenix"))
ITEMS = 3


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return json.loads(resp.read())


def flat(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Phoenix may nest attributes by their dots; the conventions' names are the flat ones."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


@pytest.fixture()
def phoenix(tmp_path: Path) -> Iterator[str]:
    if not PHOENIX.exists():
        pytest.skip(f"{PHOENIX} not found: make test-interop installs arize-phoenix")
    port = free_port()
    env = {**os.environ, "PHOENIX_PORT": str(port), "PHOENIX_HOST": "127.0.0.1",
           "PHOENIX_GRPC_PORT": str(free_port()), "PHOENIX_WORKING_DIR": str(tmp_path / "px"),
           "PHOENIX_TELEMETRY_ENABLED": "false"}
    log = (tmp_path / "phoenix.log").open("w")
    proc = subprocess.Popen([str(PHOENIX), "serve"], env=env, stdout=log,
                            stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                urllib.request.urlopen(base + "/healthz", timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("phoenix serve did not start: "
                                + (tmp_path / "phoenix.log").read_text()[-2000:])
                time.sleep(0.5)
        yield base
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()


def test_phoenix_reads_llm_and_evaluator_spans(tmp_path: Path, openai_server: OpenAIServer,
                                               phoenix: str) -> None:
    openai_server.default = model_reply
    r = run("models", "add", "m", "--base-url", openai_server.base_url, "--model", "fake-1",
            "--max-retries", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (tmp_path / "spec.yaml").write_text(f"""\
dataset: {{path: {SAMPLE}, limit: {ITEMS}}}
targets: [{{name: fake, type: model, model: m, prompt: "ITEM {{prompt_id}}|{{prompt}}"}}]
evaluators: [finance-rubric, finsearch-t1-judge@m]
otlp: {phoenix}/v1/traces
""", "utf-8")
    r = run("run", "spec.yaml", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    sent = int(r.stderr.split(" spans sent to ")[0].split()[-1])
    run_id = run_id_of(r.stdout)
    spans: list[dict[str, Any]] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # Phoenix inserts what it received in the background
        try:
            spans = get(f"{phoenix}/v1/projects/assay/spans?limit=1000")["data"]
        except OSError:
            spans = []
        if len(spans) >= sent:
            break
        time.sleep(0.5)
    assert len(spans) == sent, (len(spans), sent)
    for s in spans:
        s["attributes"] = flat(s.get("attributes") or {})
    assert {s["attributes"]["assay.run_id"] for s in spans} == {run_id}
    assert "UNKNOWN" not in {s["span_kind"] for s in spans}

    requests = [s for s in spans if s["name"].startswith("model.request")]
    assert len(requests) == 2 * ITEMS  # one per target answer and per judgment
    for s in requests:
        a = s["attributes"]
        assert s["span_kind"] == "LLM"
        assert a["llm.model_name"] == "fake-1"
        assert a["input.value"] and a["output.value"]
        assert a["llm.token_count.total"] > 0

    evaluators = [s for s in spans if s["span_kind"] == "EVALUATOR"]
    assert len(evaluators) == 2 * ITEMS
    scored = [s["attributes"]["evaluation.score"] for s in evaluators
              if "evaluation.score" in s["attributes"]]
    assert scored and all(v in (0, 1) for v in scored)

    roots = [s for s in spans if not s.get("parent_id")]
    assert len(roots) == ITEMS
    for s in roots:
        a = s["attributes"]
        assert s["span_kind"] == "CHAIN" and a["input.value"] and a["output.value"]
        assert a["assay.status.finance-rubric"] in ("scored", "null", "abstained", "error")
