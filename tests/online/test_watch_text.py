"""Text of an agent's traces (issue 27): NULs and unpaired surrogates are replaced where a trace
enters (the boundary `assay run` applies to targets), so a NUL no longer stops a watch on
PostgreSQL nor is stored raw on SQLite; other control characters are kept as sent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.core.text import REPLACEMENT as R
from assay.store import online, repo
from assay.store.db import open_engine
from assay.traces.otlp_in import SANITIZED, decode
from tests.marks import starts
from tests.online.otlp_send import agent_trace, as_json, request, send
from tests.online.watching import Watching
from tests.postgres import postgres_server

RUBRIC = "evaluators: [finance-rubric]\nrubric: {required: latest price, precision: rounding}\n"


def write_spec(tmp_path: Path, name: str = "prod-agent") -> Path:
    p = tmp_path / "watch.yaml"
    p.write_text(f'name: {name}\nsource: {{otlp: "127.0.0.1:0"}}\nquiet_s: 0.1\n' + RUBRIC,
                 "utf-8")
    return p


def dirty_trace() -> list:  # type: ignore[type-arg]
    spans = agent_trace("贵州茅台\x00最新价?", "1455.00元\x00 \x1b[2J", **{"k\x00ey": "v\x00"})
    spans[0].name = "Chat\x00Completion"
    return spans


def test_decode_replaces_nuls_everywhere_and_marks_the_span() -> None:
    spans = decode(request(dirty_trace(), service="svc\x00").SerializeToString(),
                   "application/x-protobuf")
    child, root = spans
    assert child.name == f"Chat{R}Completion" and child.attributes[SANITIZED] is True
    assert root.attributes["input.value"] == f"贵州茅台{R}最新价?"
    assert root.attributes["output.value"] == f"1455.00元{R} \x1b[2J"  # ESC kept as sent
    assert root.attributes[f"k{R}ey"] == f"v{R}" and root.resource["service.name"] == f"svc{R}"
    clean = decode(request(agent_trace("q", "a")).SerializeToString(), "application/x-protobuf")
    assert all(SANITIZED not in s.attributes for s in clean)


def test_only_the_spans_with_something_replaced_are_marked() -> None:
    """The request's text is checked at once; a dirty request is then gone through span by
    span, so a clean span beside a dirty one in the same request is kept as sent, unmarked."""
    clean = agent_trace("贵州茅台最新价?", "1455.00元")
    spans = decode(request([*clean, *dirty_trace()]).SerializeToString(),
                   "application/x-protobuf")
    assert [SANITIZED in s.attributes for s in spans] == [False, False, True, True]
    assert spans[1].attributes["output.value"] == "1455.00元" and spans[2].name == f"Chat{R}Completion"
    assert [s.attributes for s in spans[:2]] == [
        s.attributes for s in decode(request(clean).SerializeToString(), "application/x-protobuf")]


def test_decode_json_with_an_escaped_nul() -> None:
    body = json.loads(as_json(agent_trace("q", "a")))
    body["resourceSpans"][0]["scopeSpans"][0]["spans"][1]["attributes"].append(
        {"key": "output.value", "value": {"stringValue": "x\u0000y"}})
    spans = decode(json.dumps(body).encode(), "application/json")
    assert spans[1].attributes["output.value"] == f"x{R}y"


def _watch_one_dirty(db: str, tmp_path: Path, name: str) -> tuple[Watching, list]:  # type: ignore[type-arg]
    w = Watching(db, write_spec(tmp_path, name)).start()
    trace = dirty_trace()
    send(w.endpoint, trace)
    w.wait_evaluated(1)
    return w, trace


@pytest.mark.server  # the watch listens
def test_a_nul_trace_is_stored_replaced_on_sqlite(tmp_path: Path, db_url: str) -> None:
    w, trace = _watch_one_dirty(db_url, tmp_path, "prod-agent")
    result = w.stop()
    assert (result.counters.evaluated, result.counters.failed, result.status) == (
        1, 0, "interrupted")
    item = repo.get_items(w.engine, f"online:{w.run_id}")[trace[0].trace_id]
    assert item.fields["prompt"] == f"贵州茅台{R}最新价?"
    assert item.fields["response"] == f"1455.00元{R} \x1b[2J"
    assert item.fields["sanitized"] is True
    names = {s["name"] for s in repo.list_spans(w.engine, w.run_id, trace[0].trace_id)}
    assert f"Chat{R}Completion" in names


@pytest.fixture(scope="module")
@starts("server", "process")
def pg() -> Iterator[str]:
    with postgres_server() as url:
        yield url


def test_a_nul_trace_does_not_stop_a_watch_on_postgresql(tmp_path: Path, pg: str) -> None:
    w, trace = _watch_one_dirty(pg, tmp_path, "pg-agent")
    send(w.endpoint, agent_trace("腾讯控股最新价?", "600港元"))  # and the watch goes on
    w.wait_evaluated(2)
    result = w.stop()
    assert (result.counters.evaluated, result.counters.failed, result.status) == (
        2, 0, "interrupted")
    item = repo.get_items(w.engine, f"online:{w.run_id}")[trace[0].trace_id]
    assert item.fields["response"] == f"1455.00元{R} \x1b[2J"


def test_the_stores_last_guard_replaces_a_nul_on_postgresql(pg: str) -> None:
    """Text no boundary replaced (a NUL in text, or JSONB's \\u0000) is written replaced."""
    from assay.store.rows import json_text

    engine = open_engine(pg)
    did = online.create_dataset(engine, "o-guard", "guard", "/g")
    online.write_items(engine, [{"dataset_id": did, "item_id": "t1", "line": 1,
                                 "fields": {"a\x00": "b\x00"}, "label": "l\x00"}])
    item = repo.get_items(engine, did)["t1"]
    assert item.fields == {f"a{R}": f"b{R}"}
    repo.create_run(engine, run_id="r-guard", kind="run", dataset_id=did, manifest={})
    repo.write_rows(engine, {"answers": [{
        "run_id": "r-guard", "item_id": "t1", "target": "t", "epoch": 0, "text": "x\x00",
        "error": None, "latency_s": None, "usage": json_text({}),
        "extras": json_text({"raw": "y\x00"}), "started_at": None, "finished_at": None}]})
    (answer,) = repo.list_answers(engine, "r-guard")
    assert (answer["text"], answer["extras"]) == (f"x{R}", {"raw": f"y{R}"})
