"""A lost node on a real multi-node Ray cluster (`ray.cluster_utils.Cluster`: a GCS and a raylet
per node, as Ray's own tests use): the samples the lost node held are sent again to the other
workers, every item is stored once, and the lost worker gets no batches until Ray has
restarted it on a node that joins later.

The cluster is started once for the module and removed at its end; test_ray_executor.py's
cluster is shut down at the end of that module, so the two never run at once in one process.
Ray's address file goes into the module's own folder (`RAY_TMPDIR`), so a `ray.init()`
elsewhere on the machine never joins this cluster."""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from assay.runner.execute import run_experiment
from assay.runner.pipeline import Progress
from assay.runner.spec import load_spec
from assay.store.db import open_engine
from tests.conftest import SAMPLE
from tests.marks import starts
from tests.runner.test_ray_executor import EXPECTED, rows

# Each call leaves a file named by the answering process's pid holding its parent's pid: a Ray
# worker process is a child of its node's raylet, so the file says which node answered.
AGENT = """import os, threading, time
from pathlib import Path

def answer(fields):
    seen = Path(__file__).with_name("pids")
    seen.mkdir(exist_ok=True)
    # renamed once written, so never read half-written; one name per thread (calls overlap)
    part = seen.joinpath(f".{os.getpid()}.{threading.get_ident()}")
    part.write_text(str(os.getppid()))
    part.replace(seen.joinpath(str(os.getpid())))
    time.sleep(0.2)
    return fields.get("response") or ""
"""


@pytest.fixture(scope="module")
@starts("ray")
def cluster() -> Iterator[Any]:
    """A head with no CPUs (no actor lands on it; the coordinator joins through it); each test
    adds the worker nodes of 1 CPU it needs (one actor per node). Started once: a node takes
    seconds."""
    try:
        import ray
        from ray.cluster_utils import Cluster
    except ImportError:
        pytest.skip("ray is not installed (pip install '.[ray]')")
    assert not ray.is_initialized(), "another test left this process joined to a Ray cluster"
    temp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")  # Ray's socket paths must be short
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RAY_TMPDIR", temp)
        env.delenv("RAY_ADDRESS", raising=False)
        made = Cluster(initialize_head=True, head_node_args={"num_cpus": 0,
                                                             "include_dashboard": False})
        try:
            yield made
        finally:
            if ray.is_initialized():
                ray.shutdown()
            made.shutdown()
            shutil.rmtree(temp, ignore_errors=True)


def raylet_pid(node: Any) -> int:
    return int(node.all_processes["raylet"][0].process.pid)


def answered_by(folder: Path) -> dict[int, int]:
    """The agent's processes so far, each with its raylet's pid."""
    return {int(f.name): int(f.read_text()) for f in (folder / "pids").glob("[0-9]*")}


@pytest.mark.parametrize("replaced", [True, False], ids=["node-replaced", "no-new-node"])
def test_a_lost_node_s_samples_are_retried_elsewhere_and_stored_once(
        cluster: Any, tmp_path: Path, replaced: bool) -> None:
    """`replaced`: a node joins after the loss, as an autoscaler would add one, and Ray
    restarts the lost actor there (it needs a free CPU). Without: the run goes on with the
    surviving worker alone, and the lost one (waiting for a CPU) is sent nothing."""
    import ray

    while len(cluster.worker_nodes) < 2:
        cluster.add_node(num_cpus=1)
    (tmp_path / "agent_node.py").write_text(AGENT, "utf-8")
    spec = tmp_path / "ray.yaml"
    spec.write_text(f"dataset: {{path: {SAMPLE}, limit: 60}}\n"
                    "targets: [{name: agent, type: python, function: 'agent_node:answer'}]\n"
                    "evaluators: [finance-rubric]\n"
                    "concurrency: 2\n"
                    f"executor: {{type: ray, address: '{cluster.address}', workers: 2, "
                    f"code_evaluators: workers}}\n",
                    "utf-8")
    engine = open_engine(f"sqlite:///{tmp_path / 'a.db'}")
    progress = Progress()
    outcome: list[Any] = []

    def run() -> None:  # in a thread: Ray starts a node only from the main thread
        try:
            outcome.append(asyncio.run(run_experiment(engine, load_spec(spec),
                                                      progress=progress)))
        except BaseException as exc:
            outcome.append(exc)

    t0 = time.monotonic()
    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    # then, from outside the run, as a machine that goes away
    deadline = time.monotonic() + 120
    while progress.done < 10 and runner.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert progress.done >= 10, outcome  # the run got going (or says why not)
    parents = set(answered_by(tmp_path).values())
    nodes = {raylet_pid(n): n for n in cluster.worker_nodes}
    lost = min(parents & nodes.keys())  # a node that holds an actor
    survivors = set(nodes) - {lost}
    cluster.remove_node(nodes[lost])  # its raylet and every worker process on it, killed
    lost_at = time.time()  # nothing on the lost node can answer after this
    new = raylet_pid(cluster.add_node(num_cpus=1)) if replaced else None
    runner.join(120)
    wall = time.monotonic() - t0
    assert not runner.is_alive() and outcome, "the run did not end"
    result = outcome[0]
    assert not isinstance(result, BaseException), result
    assert result.status == "finished" and result.done == 60
    assert not ray.is_initialized()  # the run joined the cluster by its address and left it
    for table in ("answers", "results"):
        per_item = rows(engine, f"SELECT item_id, count(*) FROM {table} WHERE run_id = :r "
                        "GROUP BY item_id", r=result.run_id)
        assert len(per_item) == 60 and {n for _, n in per_item} == {1}, (table, per_item)
    assert rows(engine, "SELECT item_id, error FROM answers WHERE run_id = :r AND error IS NOT "
                "NULL", r=result.run_id) == []
    scores = dict(rows(engine, "SELECT item_id, score FROM results WHERE run_id = :r",
                       r=result.run_id))
    assert scores == {k: EXPECTED[k] for k in scores}
    summary = json.loads(rows(engine, "SELECT summary FROM runs WHERE id = :r",
                              r=result.run_id)[0][0])
    # the calls the lost node's actor held were sent again, and only those: 2 samples in
    # flight at most, each with one call (a target or a rubric call)
    assert 1 <= summary["samples_retried"] <= 2, summary
    # which node answered each sample: the answering process's parent is its node's raylet
    node_of = answered_by(tmp_path)
    answered = [(datetime.fromisoformat(str(at)).timestamp(),
                 node_of[json.loads(extras)["ray_worker"]["pid"]])
                for extras, at in rows(engine, "SELECT extras, finished_at FROM answers "
                                       "WHERE run_id = :r", r=result.run_id)]
    after = [node for at, node in answered if at > lost_at]
    assert after, (answered, lost, lost_at)  # the run went on after the loss
    assert set(after) <= survivors | {new}, (after, lost, survivors, new)
    assert lost in {node for at, node in answered if at <= lost_at}
    assert wall < 60, wall


def parent_of(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text("utf-8")
    return int(next(ln for ln in status.splitlines() if ln.startswith("PPid:")).split()[1])


def test_a_lost_worker_is_sent_nothing_until_ray_has_restarted_it(cluster: Any) -> None:
    """Until a node with a free CPU joins, Ray cannot restart the lost actor, and a call sent
    to it waits ~2 s and fails: the coordinator keeps its batches for the surviving worker (the
    rubric's calls here) and sends it work again once it answers, on the node that joined."""
    from assay.core.types import Answer
    from assay.datasets.loader import load_dataset
    from assay.evaluators.registry import EVALUATORS
    from assay.runner.executor_spec import ExecutorSpec
    from assay.runner.ray.executor import RayExecutor

    while len(cluster.worker_nodes) < 2:
        cluster.add_node(num_cpus=1)
    items = load_dataset(SAMPLE).items[:20]
    executor = RayExecutor(ExecutorSpec("ray", cluster.address, 2))

    async def rubric_round(remote: Any) -> set[int]:
        """20 rubric calls at once (two batches of 10): the pids that answered them."""
        scores = await asyncio.gather(*(remote.evaluate(it, Answer(
            str(it.fields.get("response") or ""))) for it in items))
        assert {it.id: s.value for it, s in zip(items, scores, strict=True)} == {
            it.id: EXPECTED[it.id] for it in items}
        await asyncio.sleep(0.05)  # a round takes milliseconds: leave the CPUs to the others
        return {int(s.steps[-1].attributes["worker.pid"]) for s in scores}

    async def scenario() -> tuple[int, set[int], int, set[int]]:
        _, (remote,) = await executor.start([], [EVALUATORS.build("finance-rubric")],
                                            SAMPLE.parent)
        try:
            return await lose_and_replace(remote)
        finally:
            await executor.close()

    async def lose_and_replace(remote: Any) -> tuple[int, set[int], int, set[int]]:
        assert executor.pool is not None
        pids = [p["pid"] for p in await asyncio.gather(
            *(a.placement.remote() for a in executor.pool.actors))]
        nodes = {raylet_pid(n): n for n in cluster.worker_nodes}
        lost_pid = pids[0]  # the worker a batch goes to first (both idle: the first)
        cluster.remove_node(nodes[parent_of(lost_pid)])
        # for ~7 s, Ray cannot restart it: a batch sent to it would wait ~2 s, fail and count
        # as retried again (before the coordinator kept a lost worker out: 20 here, not 10)
        during: set[int] = set()
        t0 = time.monotonic()
        while time.monotonic() - t0 < 7:
            during |= await rubric_round(remote)
        retried = executor.retried
        cluster.add_node(num_cpus=1)  # blocks this loop ~3 s; the probe goes on after
        after: set[int] = set()
        deadline = time.monotonic() + 30
        while not after - {pids[1]} and time.monotonic() < deadline:
            after |= await rubric_round(remote)
        return lost_pid, during, retried, after - {pids[1]}

    lost_pid, during, retried, restarted = asyncio.run(scenario())
    assert lost_pid not in during and len(during) == 1
    assert retried == 10  # the one batch that found the worker gone, and no other
    assert len(restarted) == 1 and lost_pid not in restarted  # Ray's restart on the new node
    assert executor.retried == 10
