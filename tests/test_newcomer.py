"""Issue 28's newcomer path: the README's "Your own evaluation, step by step" block, run line by
line as a newcomer would in a fresh folder — a 20-item general evaluation with an `id` column,
exact / numeric / a Python check / a model judge (the local OpenAI-compatible server standing in
for the endpoint), compare with --max-drop, and the UI serving the runs."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.openai_server import OpenAIServer

BIN = Path(sys.executable).parent


def readme_block() -> list[str]:
    text = (ROOT / "README.md").read_text("utf-8")
    m = re.search(r"<!-- newcomer: [^>]*-->\n```bash\n(.*?)```", text, re.DOTALL)
    assert m is not None, "the README lost its newcomer block"
    return [line for line in m.group(1).splitlines() if line.strip()]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.process  # bash runs the README's lines; assay view listens
@pytest.mark.server
def test_the_readme_newcomer_path_has_no_trap(tmp_path: Path,
                                               openai_server: OpenAIServer) -> None:
    lines = readme_block()
    assert lines[-1] == "assay view"
    # a judge that accepts answers stating the reference's number, as a careful one would
    def judge(messages: list[dict[str, str]]) -> str:
        user = messages[-1]["content"]
        ref = re.search(r"^reference_output: (.*)$", user, re.MULTILINE)
        out = re.search(r"^output: (.*)$", user, re.MULTILINE)
        ok = bool(ref and out and ref.group(1).strip().replace(",", "") in
                  out.group(1).replace(",", ""))
        return f'{{"score": {1 if ok else 0}, "reason": "checked against the reference"}}'

    openai_server.default = judge
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
           "JUDGE_API_KEY": "sk-newcomer-test"}
    env.pop("ASSAY_DB", None)
    env.pop("ASSAY_MODELS", None)
    typed = [line.replace("http://127.0.0.1:8000/v1", openai_server.base_url)
             for line in lines[:-1]]
    # one shell, as a newcomer types them (the `cd` carries over), each line's exit code kept
    done = subprocess.run(["bash", "-c", "\n".join(f"{line}\necho \"rc=$?\""
                                                  for line in typed)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
                          check=False)
    rcs = [int(x) for x in re.findall(r"^rc=(\d+)$", done.stdout, re.MULTILINE)]
    assert rcs == [0, 0, 0, 0, 1], done.stdout[-3000:] + done.stderr[-3000:]
    assert "warning" not in done.stderr and "error" not in done.stderr, done.stderr
    out = done.stdout
    assert "run model-a stored in" in out and "run model-b stored in" in out
    fail = [x for x in out.splitlines() if x.startswith("FAIL numeric")]
    assert fail == [
        "FAIL numeric (model-b vs baseline model-a): the mean fell 0.350 (mean 0.700 → 0.350), "
        "more than --max-drop 0.1; not significant (n = 20; a drop of less than ≈ 0.300 could "
        "not show at this n): McNemar exact p=0.0654 ≥ α=0.05 (9 went 1→0, 2 went 0→1), n=20"]
    assert "sk-newcomer-test" not in (tmp_path / "my-evals" / "general" /
                                      "assay-models.yaml").read_text("utf-8")
    # the judge was asked once per distinct answer: the 9 answers model-b shares with model-a
    # came from the response cache (the same request, the same reply)
    assert len(openai_server.requests) == 40 - 9
    assert all(r["model"] == "qwen2.5-7b-instruct" for r in openai_server.requests)
    # and `assay view` serves the runs from the same store
    port = _free_port()
    view = subprocess.Popen([str(BIN / "assay"), "view", "--port", str(port)],
                            cwd=tmp_path / "my-evals" / "general", env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        page = ""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
                    page = r.read().decode("utf-8")
                break
            except OSError:
                time.sleep(0.3)
        assert "model-a" in page and "model-b" in page
    finally:
        view.terminate()
        view.wait(30)
