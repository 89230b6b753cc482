"""An online run's counters equal its store (issue 27): after a `kill -9` the saved counters
claimed 3,000 evaluated where 2,501 were stored. The state such a kill leaves — counters ahead
of the rows, a trace's item written without its answer — is made here directly; the fault
suite (tests/test_faults.py) kills a real `assay watch` process."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select

from assay.store import online, repo
from assay.store.schema import answers, items
from tests.online.otlp_send import agent_trace, send
from tests.online.watching import Watching

pytestmark = pytest.mark.server  # the watch listens
SPEC = ('name: prod-agent\nsource: {otlp: "127.0.0.1:0"}\nquiet_s: 0.1\n'
        "evaluators: [finance-rubric]\nrubric: {required: latest price, precision: rounding}\n")


def test_counters_are_reconciled_with_the_store_on_restart(tmp_path: Path,
                                                           db_url: str) -> None:
    spec = tmp_path / "watch.yaml"
    spec.write_text(SPEC, "utf-8")
    w = Watching(db_url, spec).start()
    for n in range(5):
        send(w.endpoint, agent_trace(f"贵州茅台最新价{n}?", "1455.00元"))
    w.wait_evaluated(5)
    first = w.stop().counters
    assert (first.evaluated, first.traces, first.dropped_at_stop) == (5, 5, 0)
    engine = w.engine
    # what a kill -9 leaves: counters saved ahead of the rows (3 samples in memory, lost) …
    repo.merge_summary(engine, w.run_id, {"online": {**first.as_dict(), "evaluated": 8,
                                                     "traces": 8}})
    # … and a trace whose item was written without its answer
    did = online.dataset_id(w.run_id)
    online.write_items(engine, [{"dataset_id": did, "item_id": "partial", "line": 99,
                                 "fields": {"prompt": "q", "response": "a"}, "label": None}])
    again = Watching(db_url, spec).start()
    assert again.resumed
    # reconciled as it starts: the counters equal the store before any new trace
    started = online.online_counters(engine, w.run_id)
    assert (started["evaluated"], started["traces"], started["dropped_at_stop"]) == (5, 8, 3)
    assert "3 trace(s) counted as evaluated were not in the store at the restart (the watch " \
           "did not stop cleanly): counted as dropped at stop" in started["reasons"]
    assert "1 partly stored trace(s) removed at the restart (a resend is evaluated)" in \
        started["reasons"]
    assert online.stored_items(engine, w.run_id, ["partial"]) == set()
    send(again.endpoint, agent_trace("腾讯控股最新价?", "600港元"))
    again.wait_evaluated(6)
    c = again.stop().counters
    with engine.connect() as conn:
        stored_answers = conn.execute(select(func.count()).select_from(answers).where(
            answers.c.run_id == w.run_id)).scalar()
        stored_items = conn.execute(select(func.count()).select_from(items).where(
            items.c.dataset_id == did)).scalar()
    assert (c.evaluated, stored_answers, stored_items) == (6, 6, 6)
    assert c.traces == c.evaluated + c.unknown + c.dropped_at_stop + c.failed + c.dropped
    saved = online.online_counters(engine, w.run_id)
    assert (saved["evaluated"], saved["dropped_at_stop"]) == (6, 3)


def test_items_and_their_samples_are_written_in_one_transaction(tmp_path: Path,
                                                               db_url: str) -> None:
    spec = tmp_path / "watch.yaml"
    spec.write_text(SPEC, "utf-8")
    w = Watching(db_url, spec).start()
    send(w.endpoint, agent_trace("贵州茅台最新价?", "1455.00元"))
    w.wait_evaluated(1)
    w.stop()
    # no item stands without its answer after a clean stop, and the counts agree
    assert online.stored_counts(w.engine, w.run_id) == (1, 0, 0)
