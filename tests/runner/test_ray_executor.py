"""`executor: ray` on a real local Ray cluster (started once for the module, `ray.init` with
2 CPUs and a temporary folder): the same results as the local executor, a worker killed
mid-run with every item stored once, a run on the cluster writing to PostgreSQL seen through
the web app from another process while it runs, and Ray kept out of `import assay`."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.core.errors import ConfigError
from assay.runner.execute import run_experiment
from assay.runner.pipeline import Progress
from assay.runner.spec import load_spec
from assay.store.db import Engine, open_engine
from tests.cli.test_run_cli import run, run_id_of, run_process
from tests.conftest import ROOT, SAMPLE
from tests.marks import starts

EXPECTED = {x["prompt_id"]: x["expected_score"] for x in json.loads(SAMPLE.read_text("utf-8"))}
AGENT = """import os, time
from pathlib import Path

def answer(fields):
    Path(__file__).with_name("pids").mkdir(exist_ok=True)
    Path(__file__).with_name("pids").joinpath(str(os.getpid())).touch()
    time.sleep({delay})
    return fields.get("response") or ""
"""


@pytest.fixture(scope="module")
@starts("ray")
def ray_cluster() -> Iterator[str]:
    """One local cluster for the module: starting one takes seconds."""
    try:
        import ray
    except ImportError:
        pytest.skip("ray is not installed (pip install '.[ray]')")
    temp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")  # Ray's socket paths must be short
    ray.init(num_cpus=2, _temp_dir=temp, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    try:
        yield str(ray.get_runtime_context().gcs_address)
    finally:
        ray.shutdown()
        shutil.rmtree(temp, ignore_errors=True)


def project(tmp_path: Path, module: str, *, delay: float, limit: int, executor: str,
            concurrency: int = 8, more: str = "", place: str = "workers") -> Path:
    (tmp_path / f"{module}.py").write_text(AGENT.replace("{delay}", str(delay)), "utf-8")
    spec = tmp_path / f"{executor}.yaml"
    spec.write_text(f"dataset: {{path: {SAMPLE}, limit: {limit}}}\n"
                    f"targets: [{{name: agent, type: python, function: '{module}:answer'}}"
                    f"{more}]\n"
                    "evaluators: [finance-rubric]\n"
                    f"concurrency: {concurrency}\n"
                    f"executor: {{type: {executor}, workers: 2, "
                    f"code_evaluators: {place}}}\n", "utf-8")
    return spec


def rows(engine: Engine, sql: str, **params: Any) -> list[tuple[Any, ...]]:
    from sqlalchemy import text

    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(text(sql), params)]


def test_python_and_command_targets_and_rubric_through_ray_match_the_local_executor(
        ray_cluster: str, tmp_path: Path) -> None:
    engine = open_engine(f"sqlite:///{tmp_path / 'a.db'}")
    # a command target too: the item as JSON on stdin, its recorded answer on stdout
    (tmp_path / "echo_cmd.py").write_text(
        "import json, sys\nsys.stdout.write(json.load(sys.stdin).get('response') or '')\n",
        "utf-8")
    more = f", {{name: cmd, type: command, command: ['{sys.executable}', " \
           f"'{tmp_path / 'echo_cmd.py'}']}}"
    ids = {}
    for executor in ("local", "ray"):
        spec = project(tmp_path, "agent_same", delay=0.005, limit=30, executor=executor,
                       more=more)
        ids[executor] = asyncio.run(run_experiment(engine, load_spec(spec))).run_id
    results = {}
    for executor, run_id in ids.items():
        got = rows(engine, "SELECT target, item_id, evaluator, status, score, reason FROM "
                   "results WHERE run_id = :r ORDER BY target, item_id", r=run_id)
        assert len(got) == 60
        results[executor] = got
    assert results["ray"] == results["local"]
    assert {(r[0], r[1]): r[4] for r in results["ray"]} == {
        (t, k): EXPECTED[k] for t, k, *_ in results["ray"]}
    # the targets and the rubric ran in the workers: their spans name a worker process
    target_spans = rows(engine, "SELECT name, attributes FROM spans WHERE run_id = :r AND "
                        "kind = 'target'", r=ids["ray"])
    pids = {json.loads(a)["worker.pid"] for _, a in target_spans}
    assert len(target_spans) == 60 and os.getpid() not in pids and None not in pids
    assert {name for name, _ in target_spans} == {"agent", "cmd"}
    worker_steps = rows(engine, "SELECT s.attributes FROM spans s JOIN spans e ON "
                        "s.parent_id = e.span_id WHERE s.run_id = :r AND s.kind = 'worker' "
                        "AND e.kind = 'evaluator'", r=ids["ray"])
    assert len(worker_steps) == 60
    assert {json.loads(a)["worker.pid"] for a, in worker_steps} <= pids
    local_spans = rows(engine, "SELECT attributes FROM spans WHERE run_id = :r AND "
                       "kind = 'target'", r=ids["local"])
    assert len(local_spans) == 60
    assert all("worker.pid" not in json.loads(a) for a, in local_spans)
    manifest, summary = rows(engine, "SELECT manifest, summary FROM runs WHERE id = :r",
                             r=ids["ray"])[0]
    assert json.loads(manifest)["executor"] == {
        "type": "ray", "address": None, "workers": 2, "code_evaluators": "workers",
        "targets": ["agent", "cmd"], "evaluators": ["finance-rubric"]}
    assert json.loads(summary)["samples_retried"] == 0


def test_by_default_a_light_code_evaluator_stays_beside_a_moved_target(
        ray_cluster: str, tmp_path: Path) -> None:
    # code_evaluators: auto — the rubric takes microseconds, its trip to a worker more: with
    # the target on the workers it runs in the coordinator, with the same scores
    engine = open_engine(f"sqlite:///{tmp_path / 'a.db'}")
    spec = project(tmp_path, "agent_auto", delay=0.005, limit=20, executor="ray",
                   place="auto")
    run_id = asyncio.run(run_experiment(engine, load_spec(spec))).run_id
    got = rows(engine, "SELECT item_id, score FROM results WHERE run_id = :r", r=run_id)
    assert dict(got) == {k: EXPECTED[k] for k, _ in got} and len(got) == 20
    manifest, = rows(engine, "SELECT manifest FROM runs WHERE id = :r", r=run_id)[0]
    assert json.loads(manifest)["executor"]["targets"] == ["agent"]
    assert json.loads(manifest)["executor"]["evaluators"] == []
    assert rows(engine, "SELECT count(*) FROM spans WHERE run_id = :r AND kind = 'worker'",
                r=run_id) == [(0,)]  # no evaluation went to a worker
    target_pids = {json.loads(a)["worker.pid"] for a, in rows(
        engine, "SELECT attributes FROM spans WHERE run_id = :r AND kind = 'target'",
        r=run_id)}
    assert os.getpid() not in target_pids and len(target_pids) >= 1


def test_a_killed_worker_s_samples_are_retried_and_stored_once(
        ray_cluster: str, tmp_path: Path) -> None:
    engine = open_engine(f"sqlite:///{tmp_path / 'a.db'}")
    spec = project(tmp_path, "agent_kill", delay=0.1, limit=60, executor="ray")
    progress = Progress()
    killed: list[int] = []

    def kill_one_worker() -> None:  # from outside the run, as an OOM killer or a node loss
        deadline = time.monotonic() + 120
        while progress.done < 10 and time.monotonic() < deadline:
            time.sleep(0.02)
        pid = int(sorted((tmp_path / "pids").iterdir())[0].name)
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    killer = threading.Thread(target=kill_one_worker, daemon=True)
    killer.start()
    result = asyncio.run(run_experiment(engine, load_spec(spec), progress=progress))
    killer.join(5)
    assert killed and result.status == "finished" and result.done == 60
    per_item = rows(engine, "SELECT item_id, count(*) FROM answers WHERE run_id = :r "
                    "GROUP BY item_id", r=result.run_id)
    assert len(per_item) == 60 and {n for _, n in per_item} == {1}
    per_result = rows(engine, "SELECT item_id, count(*) FROM results WHERE run_id = :r "
                      "GROUP BY item_id", r=result.run_id)
    assert len(per_result) == 60 and {n for _, n in per_result} == {1}
    errors = rows(engine, "SELECT count(*) FROM answers WHERE run_id = :r AND error IS NOT "
                  "NULL", r=result.run_id)
    assert errors == [(0,)]
    scores = dict(rows(engine, "SELECT item_id, score FROM results WHERE run_id = :r",
                       r=result.run_id))
    assert scores == {k: EXPECTED[k] for k in scores}
    summary = json.loads(rows(engine, "SELECT summary FROM runs WHERE id = :r",
                              r=result.run_id)[0][0])
    # the calls the killed worker held were sent again: 8 samples in flight at most, each
    # with a target call or a rubric call
    assert 1 <= summary["samples_retried"] <= 8
    shown = run("show", result.run_id, "--db", f"sqlite:///{tmp_path / 'a.db'}", cwd=tmp_path)
    assert (f"executor ray: 2 worker(s) ran agent, finance-rubric; "
            f"{summary['samples_retried']} call(s) sent again after a worker was lost"
            in shown.stdout), shown.stdout + shown.stderr
    # a worker process other than the killed one (the other actor or the restarted one)
    # answered every sample after the kill
    pids = {json.loads(e)["ray_worker"]["pid"] for e, in rows(
        engine, "SELECT extras FROM answers WHERE run_id = :r", r=result.run_id)}
    assert pids - set(killed)


@pytest.mark.process  # PostgreSQL, and the run as another process
def test_a_ray_run_writing_to_postgresql_is_visible_in_the_web_app_while_it_runs(
        ray_cluster: str, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from assay.web.app import create_app
    from tests.postgres import postgres_server

    with postgres_server() as pg:
        spec = project(tmp_path, "agent_pg", delay=0.3, limit=40, executor="ray",
                       concurrency=2)
        env = {k: v for k, v in os.environ.items() if k not in ("ASSAY_DB", "ASSAY_MODELS")}
        # the run is another process, on the cluster by address, as from another machine
        proc = subprocess.Popen([str(Path(sys.executable).with_name("assay")), "run",
                                 str(spec), "--db", pg, "-q"], cwd=tmp_path,
                                env={**env, "RAY_ADDRESS": ray_cluster},
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        seen: list[tuple[str, int]] = []
        try:
            client = TestClient(create_app(open_engine(pg)), base_url="http://127.0.0.1:8600")
            deadline = time.monotonic() + 180
            while proc.poll() is None and time.monotonic() < deadline:
                listed = client.get("/api/runs")
                assert listed.status_code == 200, listed.text
                if listed.json():
                    run_id = listed.json()[0]["id"]
                    summary = client.get(f"/api/runs/{run_id}").json()
                    total = client.get(f"/api/runs/{run_id}/results").json()["total"]
                    seen.append((summary["run"]["status"], total))
                time.sleep(0.3)
            out, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 0, err
        run_id = run_id_of(out)
        # results appeared, a few at a time, while the run was still marked running
        partial = {n for status, n in seen if status == "running" and 0 < n < 40}
        assert len(partial) >= 2, seen
        final = client.get(f"/api/runs/{run_id}").json()
        assert final["run"]["status"] == "finished"
        assert final["evaluators"]["finance-rubric"]["items"] == 40
        assert client.get(f"/api/runs/{run_id}/results").json()["total"] == 40


@pytest.mark.process  # the CLI joins the cluster by address
def test_score_on_a_running_cluster_from_the_cli(ray_cluster: str, tmp_path: Path) -> None:
    r = run_process("score", str(SAMPLE), "--executor", "ray", "--out", "o.jsonl", "-q",
                    "--db", f"sqlite:///{tmp_path / 'a.db'}", cwd=tmp_path,
                    RAY_ADDRESS=ray_cluster)
    assert r.returncode == 0, r.stderr
    got = {x["item_id"]: x["score"] for x in map(json.loads, (tmp_path / "o.jsonl")
                                                 .read_text("utf-8").splitlines())}
    assert got == EXPECTED
    engine = open_engine(f"sqlite:///{tmp_path / 'a.db'}")
    manifest, = rows(engine, "SELECT manifest FROM runs WHERE id = :r", r=run_id_of(r.stdout))[0]
    assert json.loads(manifest)["executor"]["evaluators"] == ["finance-rubric"]


def test_without_ray_the_run_stops_in_one_line_before_anything_is_stored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed
    engine = open_engine(f"sqlite:///{tmp_path / 'a.db'}")
    spec = project(tmp_path, "agent_none", delay=0, limit=3, executor="ray")
    with pytest.raises(ConfigError, match=r"^the ray executor needs the 'ray' package: "
                       r"pip install '\.\[ray\]' in Assay's checkout \(the assay-eval "
                       r"distribution\)$"):
        asyncio.run(run_experiment(engine, load_spec(spec)))
    assert rows(engine, "SELECT count(*) FROM runs") == [(0,)]


@pytest.mark.parametrize(("executor", "message"), [
    ("{type: dask}", r"s.yaml:4: executor.type: unknown executor 'dask' \(known: local, ray\)"),
    ("{type: ray, workers: 0}", r"s.yaml:4: executor.workers: must be a whole number ≥ 1"),
    ("{type: ray, nodes: 3}", r"s.yaml:4: executor.nodes: unknown key \(known: address, "
                              r"code_evaluators, cpus_per_worker, type, workers\)"),
    ("{type: ray, code_evaluators: gpu}", r"s.yaml:4: executor.code_evaluators: must be one "
                                          r"of auto, workers, coordinator"),
    ("[ray]", r"s.yaml:4: executor: must be local, ray or a mapping with 'type'"),
])
def test_executor_mistakes_name_file_line_and_field(tmp_path: Path, executor: str,
                                                    message: str) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text(f"dataset: {SAMPLE}\ntargets: [{{type: recorded}}]\n"
                    f"evaluators: [finance-rubric]\nexecutor: {executor}\n", "utf-8")
    with pytest.raises(ConfigError, match=message):
        load_spec(spec)


@pytest.mark.process  # python -c: a fresh interpreter
def test_import_assay_and_help_do_not_import_ray() -> None:
    code = ("import sys, assay\n"
            "from assay.cli.main import app\n"
            "for args in (['--help'], ['run', '--help'], ['score', '--help']):\n"
            "    try:\n"
            "        app(args, prog_name='assay')\n"
            "    except SystemExit:\n"
            "        pass\n"
            "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')"
            " or m.startswith('assay.runner.ray')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    assert "--executor" in out
    assert out.strip().splitlines()[-1] == "[]"


def test_executor_flag_overrides_the_spec_and_is_checked(tmp_path: Path) -> None:
    from assay.runner.overrides import Overrides, apply_overrides

    spec = project(tmp_path, "agent_flag", delay=0, limit=3, executor="local")
    text = spec.read_text("utf-8").replace("workers: 2", "workers: 3, cpus_per_worker: 2")
    spec.write_text(text, "utf-8")
    assert load_spec(spec).executor.type == "local"
    loaded = apply_overrides(load_spec(spec), Overrides(executor="ray"))
    assert (loaded.executor.type, loaded.executor.workers,
            loaded.executor.cpus_per_worker) == ("ray", 3, 2.0)  # the spec's settings stay
    with pytest.raises(ConfigError, match=r"^--executor dask: use local or ray$"):
        apply_overrides(load_spec(spec), Overrides(executor="dask"))


def _ray_run(tmp_path: Path, spec_text: str, within_s: float) -> tuple[Engine, Any]:
    """The spec run to its end on the module's cluster, within `within_s` seconds."""
    spec = tmp_path / "ray.yaml"
    spec.write_text(spec_text, "utf-8")
    engine = open_engine(f"sqlite:///{tmp_path / 'a.db'}")
    started = time.monotonic()
    result = asyncio.run(run_experiment(engine, load_spec(spec)))
    assert time.monotonic() - started < within_s
    assert result.status == "finished"
    return engine, result


def test_sys_exit_in_a_target_or_check_on_a_worker_is_that_items_error(
        ray_cluster: str, tmp_path: Path) -> None:
    """Issue 27 (low): Ray reported a target's sys.exit() as a timeout. On a worker as in the
    coordinator, sys.exit() in a Python target (sync or async) or a check of one's own is that
    item's error, the worker lives on and the run finishes."""
    (tmp_path / "exiting.py").write_text(
        "import sys\n\n"
        "def answer(fields):\n"
        "    if fields['prompt_id'] == IDS[0]:\n"
        "        sys.exit(0)\n"
        "    return fields.get('response') or ''\n\n"
        "async def answer_async(fields):\n"
        "    if fields['prompt_id'] == IDS[1]:\n"
        "        sys.exit(3)\n"
        "    return fields.get('response') or ''\n\n"
        "def check(item, answer):\n"
        "    if item['prompt_id'] == IDS[2]:\n"
        "        raise SystemExit('from a check')\n"
        "    return True\n"
        f"IDS = {list(EXPECTED)[:3]!r}\n", "utf-8")
    engine, result = _ray_run(tmp_path, (
        f"dataset: {{path: {SAMPLE}, limit: 6}}\n"
        "targets: [{name: sync, type: python, function: 'exiting:answer'}, "
        "{name: async, type: python, function: 'exiting:answer_async'}]\n"
        "evaluators: [{python: exiting.py:check}]\n"
        "executor: {type: ray, workers: 2, code_evaluators: workers}\n"), 120)
    first, second, third = list(EXPECTED)[:3]
    errors = dict(((t, i), e) for t, i, e in rows(
        engine, "SELECT target, item_id, error FROM answers WHERE run_id = :r AND error IS NOT "
        "NULL", r=result.run_id))
    assert errors == {("sync", first): "called sys.exit(0)",
                      ("async", second): "called sys.exit(3)"}
    reasons = {(t, i): r for t, i, r in rows(
        engine, "SELECT target, item_id, reason FROM results WHERE run_id = :r",
        r=result.run_id)}
    assert len(reasons) == 12
    assert reasons[("sync", third)] == reasons[("async", third)] == \
        "check raised SystemExit: from a check (line 15)"
    worker_steps = rows(engine, "SELECT count(*) FROM spans WHERE run_id = :r AND "
                        "kind = 'worker'", r=result.run_id)
    assert worker_steps[0][0] > 0  # the check ran on the workers


def test_a_worker_returns_a_sys_exit_as_that_calls_failure() -> None:
    """What no wrapper caught (a built-in's sys.exit) comes back as an ordinary failure, the
    item's error in the coordinator, not a SystemExit raised in its await."""
    from assay.core.calls import UserExit
    from assay.runner.ray.worker import _outcome

    async def exits() -> None:
        sys.exit(2)

    ok, failure = asyncio.run(_outcome(exits()))
    assert ok is False and isinstance(failure, UserExit)
    assert str(failure) == "called sys.exit(2)"


def test_on_the_workers_a_hung_call_ends_alone_within_the_runs_timeout(
        ray_cluster: str, tmp_path: Path) -> None:
    """Each call is bounded on its worker: a target or a check that hangs on one item is that
    item's timeout, and the items batched with it are answered and scored (the coordinator's
    timer used to end the whole batch: 499 of 500 never hung)."""
    ids = list(EXPECTED)[:8]  # the first 8 of the file: limit 8
    (tmp_path / "hanging.py").write_text(
        "import time\n\n"
        f"IDS = {ids[:2]!r}\n\n"
        "def answer(fields):\n"
        "    if fields['prompt_id'] == IDS[0]:\n"
        "        time.sleep(3600)\n"
        "    return fields.get('response') or ''\n\n"
        "def check(item, answer):\n"
        "    if item['prompt_id'] == IDS[1]:\n"
        "        time.sleep(3600)\n"
        "    return True\n", "utf-8")
    engine, result = _ray_run(tmp_path, (
        f"dataset: {{path: {SAMPLE}, limit: 8}}\n"
        "targets: [{name: agent, type: python, function: 'hanging:answer'}]\n"
        "evaluators: [{python: hanging.py:check}]\n"
        "timeout_s: 2\nconcurrency: 8\n"
        "executor: {type: ray, workers: 1, code_evaluators: workers}\n"), 60)
    answers = dict(rows(engine, "SELECT item_id, error FROM answers WHERE run_id = :r",
                        r=result.run_id))
    assert answers == {i: ("item timeout after 2 s" if i == ids[0] else None) for i in ids}
    reasons = dict(rows(engine, "SELECT item_id, reason FROM results WHERE run_id = :r",
                        r=result.run_id))
    assert reasons == {
        ids[0]: "no answer: item timeout after 2 s", ids[1]: "evaluator timeout after 2 s",
        **{i: "check returned True" for i in ids[2:]}}
