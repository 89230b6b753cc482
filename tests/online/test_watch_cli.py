"""`assay watch` through the real entry point: it says where it listens, a second watcher of
the same online run is refused, Ctrl-C stops it cleanly with the counts, and a restart resumes."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import wait_for_results
from tests.online.otlp_send import agent_trace, send

ASSAY = str(Path(sys.executable).parent / "assay")
pytestmark = [pytest.mark.process, pytest.mark.server]  # `assay watch` as a process


def start(tmp_path: Path) -> tuple[subprocess.Popen[str], str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ASSAY_DB", "ASSAY_MODELS")}
    p = subprocess.Popen([ASSAY, "watch", "watch.yaml"], cwd=tmp_path, env=env, text=True,
                         stderr=subprocess.PIPE, stdout=subprocess.PIPE)
    assert p.stderr is not None
    line = p.stderr.readline()
    return p, line


def test_watch_cli_listens_refuses_a_second_watcher_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    (tmp_path / "watch.yaml").write_text("""\
name: prod agent
source: {otlp: "127.0.0.1:0"}
quiet_s: 0.1
evaluators: [finance-rubric]
""", "utf-8")
    p, line = start(tmp_path)
    assert "online run o-prod-agent-" in line and "started: OTLP/HTTP on http://127.0.0.1:" in line
    endpoint = line.split(" on ")[1].split()[0]
    run_id = line.split()[2]
    send(endpoint, agent_trace("q1", "a1"))
    assert wait_for_results(tmp_path / ".assay" / "assay.db", 1) == 1
    second, out = start(tmp_path)
    rest = second.communicate(timeout=60)[1]
    assert second.returncode != 0
    assert f"run {run_id} is being worked on by another process" in out + rest
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert err.strip().splitlines()[-1].startswith("stopped: 1 evaluated, 0 unknown shape")
    assert "Traceback" not in err
    db = sqlite3.connect(tmp_path / ".assay" / "assay.db")
    assert db.execute("SELECT kind, status FROM runs WHERE id = ?", (run_id,)).fetchone() == \
        ("online", "interrupted")
    p, line = start(tmp_path)
    assert line.startswith(f"online run {run_id} resumed")
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=60)
    assert p.returncode == 0
    for args in (["retry", run_id], ["run", "--resume", run_id]):
        r = subprocess.run([ASSAY, *args], cwd=tmp_path, capture_output=True, text=True,
                           timeout=120, check=False)
        assert r.returncode != 0
        assert f"run '{run_id}' is an online run (assay watch): restart `assay watch SPEC`" \
            in r.stderr and "Traceback" not in r.stderr
    assert db.execute("SELECT count(*) FROM results").fetchone() == (1,)


def test_the_watch_token_is_masked_where_a_trace_echoes_it(tmp_path: Path) -> None:
    """L12 (review of issue 27): the ready line had a double space without a token, and the
    receiver's token, echoed in an agent's trace, was stored and shown as sent."""
    from tests.online.otlp_send import post, request

    token = "watch-canary-5f0c2e9a71"
    (tmp_path / "watch.yaml").write_text('name: tok\nsource: {otlp: "127.0.0.1:0"}\n'
                                         "quiet_s: 0.1\nevaluators: [finance-rubric]\n",
                                         "utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("ASSAY_DB", "ASSAY_MODELS")}
    p = subprocess.Popen([ASSAY, "watch", "watch.yaml"], cwd=tmp_path, text=True,
                         env={**env, "ASSAY_WATCH_TOKEN": token},
                         stderr=subprocess.PIPE, stdout=subprocess.PIPE)
    assert p.stderr is not None
    line = p.stderr.readline()
    assert line.rstrip().endswith("/v1/traces (token required) (Ctrl-C stops)"), line
    endpoint = line.split(" on ")[1].split()[0]
    body = request(agent_trace("q1", f"1455.00元 {token}")).SerializeToString()
    assert post(endpoint, body, Authorization=f"Bearer {token}")[0] == 200
    assert wait_for_results(tmp_path / ".assay" / "assay.db", 1) == 1
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=60)
    db = sqlite3.connect(tmp_path / ".assay" / "assay.db")
    (text,) = db.execute("SELECT text FROM answers").fetchone()
    assert token not in text and "[secret $ASSAY_WATCH_TOKEN]" in text, text
    p, line = start(tmp_path)  # without a token: one space before the parenthesis
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=60)
    assert line.rstrip().endswith("/v1/traces (Ctrl-C stops)"), line
