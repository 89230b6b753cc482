"""A store error on one trace never ends the watch nor costs the traces written with it
(issue 27, H4's rest). Rows are written in batches of many traces; a batch the store refuses
for what one trace's rows hold is written again a trace at a time. The refusal made here is a
real one, on SQLite and on a real PostgreSQL: a trace that reuses another trace's span id (a
tool re-exporting spans under new trace ids). And the same trace sent to two online runs is
stored by both (spans are keyed per run, migration 0009): that used to stop the second watch."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from assay.store import online, repo
from tests.marks import starts
from tests.online.otlp_send import agent_trace, send
from tests.online.watching import Watching
from tests.postgres import postgres_server

pytestmark = pytest.mark.server  # the watch listens
SPEC = ('name: {name}\nsource: {{otlp: "127.0.0.1:0"}}\nquiet_s: 0.1\n'
        "evaluators: [finance-rubric]\nrubric: {{required: latest price, precision: rounding}}\n")


def _watching(url: str, tmp_path: Path, name: str) -> Watching:
    spec = tmp_path / f"{name}.yaml"
    spec.write_text(SPEC.format(name=name), "utf-8")
    return Watching(url, spec).start()


def _refused_trace_costs_only_itself(url: str, tmp_path: Path, name: str) -> None:
    w = _watching(url, tmp_path, name)
    first = agent_trace("贵州茅台最新价?", "1455.00元")
    fresh = agent_trace("贵州茅台最新价?", "1455.00元")
    # the same LLM span under a new trace id: its key is taken in this run
    reused = [replace(fresh[0], span_id=first[0].span_id), fresh[1]]
    others = [agent_trace(f"腾讯控股最新价{n}?", "600港元") for n in range(3)]
    for trace in (first, others[0], reused, others[1], others[2]):
        send(w.endpoint, trace)
    w.wait_evaluated(5)
    after = agent_trace("上证指数?", "3900点")  # and the watch goes on
    send(w.endpoint, after)
    w.wait_evaluated(6)
    result = w.stop()
    c = result.counters
    assert (c.evaluated, c.failed, result.status) == (5, 1, "interrupted")
    assert len(c.reasons) == 1 and c.reasons[0].startswith(
        f"trace {reused[0].trace_id}: the store refused it: ")
    kept = {t[0].trace_id for t in (first, *others, after)}
    assert {r["item_id"] for r in repo.list_answers(w.engine, w.run_id)} == kept
    assert {r["item_id"] for r in repo.list_results(w.engine, w.run_id)} == kept
    assert set(repo.get_items(w.engine, online.dataset_id(w.run_id))) == kept  # whole or not
    assert repo.list_spans(w.engine, w.run_id, reused[0].trace_id) == []
    assert online.stored_counts(w.engine, w.run_id)[:2] == (5, 0)  # counters = the store


def _one_trace_two_runs(url: str, tmp_path: Path) -> None:
    staging, prod = _watching(url, tmp_path, "staging"), _watching(url, tmp_path, "prod")
    trace = agent_trace("贵州茅台最新价?", "1455.00元")
    for w in (staging, prod):  # a collector fanning out to both
        send(w.endpoint, trace)
        w.wait_evaluated(1)
    for w in (staging, prod):
        result = w.stop()
        assert (result.counters.evaluated, result.counters.failed) == (1, 0)
        spans = repo.list_spans(w.engine, w.run_id, trace[0].trace_id)
        assert {s["span_id"] for s in spans if s["kind"].startswith("agent.")} == {
            s.span_id for s in trace}


def test_a_refused_trace_costs_only_itself_on_sqlite(tmp_path: Path, db_url: str) -> None:
    _refused_trace_costs_only_itself(db_url, tmp_path, "sqlite-agent")


def test_one_trace_sent_to_two_runs_is_stored_by_both_on_sqlite(tmp_path: Path,
                                                                db_url: str) -> None:
    _one_trace_two_runs(db_url, tmp_path)


@pytest.fixture(scope="module")
@starts("server", "process")
def pg() -> Iterator[str]:
    with postgres_server() as url:
        yield url


def test_a_refused_trace_costs_only_itself_on_postgresql(tmp_path: Path, pg: str) -> None:
    _refused_trace_costs_only_itself(pg, tmp_path, "pg-agent")


def test_one_trace_sent_to_two_runs_is_stored_by_both_on_postgresql(tmp_path: Path,
                                                                    pg: str) -> None:
    _one_trace_two_runs(pg, tmp_path)
