"""`assay watch` bounded by bytes, not only by trace counts (issue 27): one trace passing
`max_trace_mb` is given up, counted, its reason kept; traces waiting to complete and to be
evaluated together hold at most `max_pending_mb`."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.core.errors import ConfigError
from assay.online.assemble import Assembler
from assay.online.spec import load_watch_spec
from assay.store import online, repo
from assay.traces.otlp_in import SpanIn
from tests.online.otlp_send import S, agent_trace, new_id, send
from tests.online.watching import Watching

RUBRIC = "evaluators: [finance-rubric]\nrubric: {required: latest price, precision: rounding}\n"


def write_spec(tmp_path: Path, extra: str = "") -> Path:
    p = tmp_path / "watch.yaml"
    p.write_text('name: prod-agent\nsource: {otlp: "127.0.0.1:0"}\nquiet_s: 0.1\n' + extra
                 + RUBRIC, "utf-8")
    return p


def span(tid: str, size: int, parent: str | None = "p") -> SpanIn:
    return SpanIn(tid, new_id(8), parent, "s", 0, 0, {}, {}, size=size)


def test_one_trace_past_its_byte_cap_is_given_up_and_counted() -> None:
    cut: list[tuple[str, int]] = []
    a = Assembler(quiet_s=0, orphan_s=60, max_traces=10, max_trace_bytes=1000,
                  on_oversized=lambda tid, size: cut.append((tid, size)))
    a.add([span("big", 400), span("big", 400), span("small", 100)], 0.0)
    assert (a.bytes, a.oversized) == (900, 0)
    a.add([span("big", 400)], 0.0)  # 1,200 bytes: the whole trace goes
    assert (a.bytes, a.oversized, a.oversized_spans, cut) == (100, 1, 3, [("big", 1200)])
    a.add([span("big", 10, parent=None)], 0.0)  # its later spans (the root too): not kept
    assert (a.oversized_spans, a.late_spans, list(a.pending)) == (4, 0, ["small"])


def test_bytes_waiting_and_queued_share_one_cap() -> None:
    queued = [0]
    a = Assembler(quiet_s=0, orphan_s=60, max_traces=100, max_trace_bytes=500,
                  max_pending_bytes=1000, held_elsewhere=lambda: queued[0])
    a.add([span("t1", 400), span("t2", 400)], 0.0)
    assert (list(a.pending), a.evicted) == (["t1", "t2"], 0)
    a.add([span("t3", 400)], 0.0)  # 1,200 waiting: the oldest given up
    assert (list(a.pending), a.evicted, a.bytes) == (["t2", "t3"], 1, 800)
    queued[0] = 500  # the evaluation queue holds bytes too
    a.add([span("t4", 100)], 0.0)
    assert (list(a.pending), a.evicted, a.bytes) == (["t3", "t4"], 2, 500)


@pytest.mark.server  # the watch listens
def test_watch_gives_up_an_oversized_trace_and_keeps_serving(tmp_path: Path,
                                                            db_url: str) -> None:
    w = Watching(db_url, write_spec(tmp_path, "max_trace_mb: 0.05\n")).start()  # 52,428 bytes
    tid, root = new_id(16), new_id(8)
    chunk = [S(tid, new_id(8), "tool", root, attributes={"blob": "x" * 1000})
             for _ in range(20)]
    for _ in range(5):  # 100 spans of ~1 KB: the cap passes in the third request
        send(w.endpoint, chunk)
        chunk = [S(tid, new_id(8), "tool", root, attributes={"blob": "x" * 1000})
                 for _ in range(20)]
    send(w.endpoint, [S(tid, root, "agent", attributes={"openinference.span.kind": "AGENT",
                                                         "input.value": "q",
                                                         "output.value": "a"})])
    ok = agent_trace("贵州茅台最新价?", "1455.00元")
    send(w.endpoint, ok)
    w.wait_evaluated(1)
    c = w.stop().counters
    assert (c.evaluated, c.oversized, c.oversized_spans, c.spans) == (1, 1, 101, 103)
    assert any(r.startswith(f"trace {tid}: its spans pass 52,428 bytes (") and
               r.endswith("max_trace_mb: 0.05): given up, not stored") for r in c.reasons)
    assert online.stored_items(w.engine, w.run_id, [tid, ok[0].trace_id]) == {ok[0].trace_id}
    summary = repo.get_run(w.engine, w.run_id)["summary"]  # type: ignore[index]
    assert summary["online"]["oversized"] == 1


@pytest.mark.parametrize(("extra", "message"), [
    ("max_trace_mb: 0\n", "watch.yaml:4: max_trace_mb: must be a finite number > 0 and "
                          "≤ 65536, not 0"),
    ("max_pending_mb: .nan\n", "watch.yaml:4: max_pending_mb: must be a finite number > 0 and "
                               "≤ 65536, not nan"),
    ("max_trace_mb: 64\nmax_pending_mb: 32\n", "watch.yaml:5: max_pending_mb: must be at least "
                                               "max_trace_mb (64): one trace of that size "
                                               "must fit"),
])
def test_byte_caps_are_checked_settings(tmp_path: Path, extra: str, message: str) -> None:
    with pytest.raises(ConfigError) as exc:
        load_watch_spec(write_spec(tmp_path, extra))
    assert str(exc.value) == f"{tmp_path}/{message}"


def test_byte_cap_defaults(tmp_path: Path) -> None:
    spec = load_watch_spec(write_spec(tmp_path))
    assert (spec.max_trace_mb, spec.max_pending_mb) == (8.0, 128.0)


@pytest.mark.server  # the watch listens
def test_an_empty_or_zero_trace_id_is_refused(tmp_path: Path, db_url: str) -> None:
    from tests.online.otlp_send import post, request

    w = Watching(db_url, write_spec(tmp_path)).start()
    # and ids longer than OTLP's (review of issue 27, H4): a 40-byte trace, span or parent
    # id overflowed the store's varchar(32) on PostgreSQL and ended the watch
    for tid, sid, parent in (("", new_id(8), ""), ("00" * 16, new_id(8), ""),
                             (new_id(16), "", ""), (new_id(40), new_id(8), ""),
                             (new_id(16), new_id(40), ""), (new_id(16), new_id(8), new_id(40))):
        body = request([S(tid, sid, "agent", parent)]).SerializeToString()
        status, text = post(w.endpoint, body)
        assert (status, text) == (400, b"span 'agent': trace_id must be 16 bytes and span_id "
                                       b"8 (parent_span_id 8 or none), not empty or all zero "
                                       b"(OTLP)")
    send(w.endpoint, agent_trace("q?", "a"))  # the watch is alive
    c = w.stop().counters
    assert (c.bad_requests, c.spans) == (6, 2)
    assert online.stored_items(w.engine, w.run_id, [""]) == set()
