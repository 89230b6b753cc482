"""`assay watch` through the real entry point: it says where it listens, a second watcher of
the same online run is refused, Ctrl-C stops it cleanly with the counts, and a restart resumes."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.conftest import wait_for_results
from tests.online.otlp_send import agent_trace, send

ASSAY = str(Path(sys.executable).parent / "assay")


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
