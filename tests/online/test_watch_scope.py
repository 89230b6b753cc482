"""Issue 28 in `assay watch`: an evaluator's `when:` decides per trace, as in `assay run` and
`assay score` (they share the session and the pipeline), and a resumed watch keeps it."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.core.errors import ConfigError
from assay.online.watch import _check_same
from assay.store import repo
from tests.online.otlp_send import agent_trace, send
from tests.online.test_watch import write_spec
from tests.online.watching import Watching

WHEN = ("evaluators:\n"
        "  - {name: length, args: {max: 50}, label: short,\n"
        "     when: {field: service, equals: quote-agent}}\n"
        "  - {name: contains, args: {expected: 元}, when: {not: {field: service, "
        "equals: quote-agent}}}\n")


@pytest.mark.server  # the watch listens
def test_when_decides_per_trace(tmp_path: Path, db_url: str) -> None:
    w = Watching(db_url, write_spec(tmp_path, WHEN)).start()
    quote = agent_trace("贵州茅台最新价?", "1455.00元", service="quote-agent")
    other = agent_trace("腾讯控股最新价?", "600港元", service="news-agent")
    send(w.endpoint, quote)
    send(w.endpoint, other, service="news-agent")
    w.wait_evaluated(2)
    w.stop()
    got = {(r["item_id"], r["evaluator"]): (r["status"], r["score"])
           for r in repo.list_results(w.engine, w.run_id)}
    assert got == {
        (quote[0].trace_id, "short"): ("scored", 1.0),
        (quote[0].trace_id, "contains"): ("skipped", None),
        (other[0].trace_id, "short"): ("skipped", None),
        (other[0].trace_id, "contains"): ("scored", 1.0)}  # 港元 holds 元
    run = repo.get_run(w.engine, w.run_id)
    assert run is not None
    assert [e.get("when") for e in run["manifest"]["evaluators"]] == [
        {"field": "service", "equals": "quote-agent"},
        {"not": {"field": "service", "equals": "quote-agent"}}]


def test_a_resumed_watch_refuses_a_changed_when() -> None:
    before = {"evaluators": [{"name": "numeric", "when": {"reference": "number"}}]}
    now = {"evaluators": [{"name": "numeric"}]}
    with pytest.raises(ConfigError) as err:
        _check_same("online-x", before, now)
    assert str(err.value) == ("online run online-x: the 'when' of evaluator numeric changed "
                              "since it started; give the spec a new name to start another "
                              "online run")
