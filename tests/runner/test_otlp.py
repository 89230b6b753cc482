"""OTLP export to a real OTLP/HTTP receiver on 127.0.0.1 that decodes the protobuf body."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from tests.cli.test_run_cli import SAMPLE, run, run_id_of
from tests.local_server import LocalServer
from tests.marks import starts


class Collector(LocalServer):
    def __init__(self, status: int = 200) -> None:
        super().__init__()
        self.status = status
        self.spans: list[Any] = []
        self.resources: list[dict[str, str]] = []

    async def handle(self, request: web.Request) -> web.Response:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )

        req = ExportTraceServiceRequest()
        req.ParseFromString(await request.read())
        for rs in req.resource_spans:
            self.resources.append({a.key: a.value.string_value for a in rs.resource.attributes})
            for ss in rs.scope_spans:
                self.spans.extend(ss.spans)
        return web.Response(status=self.status, body=b"",
                            content_type="application/x-protobuf")

    def start(self) -> Collector:
        super().start()
        return self

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v1/traces", self.handle)
        return app


@pytest.fixture()
@starts("server")
def collector() -> Iterator[Collector]:
    c = Collector().start()
    yield c
    c.stop()


def spec(tmp_path: Path, extra: str = "") -> None:
    (tmp_path / "spec.yaml").write_text(
        f"dataset: {{path: {SAMPLE}, limit: 5}}\ntargets: [{{type: recorded}}]\n"
        f"evaluators: [finance-rubric]\n{extra}", "utf-8")


def test_spans_go_to_the_configured_endpoint(tmp_path: Path, collector: Collector) -> None:
    spec(tmp_path, f"otlp: http://127.0.0.1:{collector.port}/v1/traces\n")
    r = run("run", "spec.yaml", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    run_id = run_id_of(r.stdout)
    # recorded answers judged in code against the items' own truth: nothing was called or
    # fetched, so each trace is its root span, which says where answer and truth came from
    # (the result rows hold each evaluator's status, score and evidence)
    assert f"5 spans sent to http://127.0.0.1:{collector.port}/v1/traces" in r.stderr
    names = sorted(s.name.split()[0] for s in collector.spans)
    assert names == ["sample"] * 5
    by_id = {s.span_id: s for s in collector.spans}
    roots = [s for s in collector.spans if not s.parent_span_id]
    assert len(roots) == 5
    for s in collector.spans:
        if s.parent_span_id:  # every child points at its sample, in the same trace
            parent = by_id[s.parent_span_id]
            assert parent.name.startswith("sample") and parent.trace_id == s.trace_id
    attrs = {a.key: a.value for a in roots[0].attributes}
    assert attrs["assay.run_id"].string_value == run_id
    assert attrs["assay.answer"].string_value == "recorded (recorded)"
    assert attrs["assay.truth"].string_value == "item field 'ground_truth'"
    assert collector.resources[0]["service.name"] == "assay"
    assert all(s.end_time_unix_nano >= s.start_time_unix_nano > 1.7e18
               for s in collector.spans)
    # those root spans are made from the rows when read (none is stored), and leave with the
    # root's conventions: the question in, the answer out, the verdict
    with sqlite3.connect(tmp_path / ".assay" / "assay.db") as db:
        assert db.execute("SELECT count(*) FROM spans").fetchone()[0] == 0
    first = next(s for s in roots if "S01_right" in s.name)
    attrs = {a.key: a.value for a in first.attributes}
    assert attrs["openinference.span.kind"].string_value == "CHAIN"
    assert attrs["input.value"].string_value == "贵州茅台最新股价"
    assert attrs["output.value"].string_value.startswith("贵州茅台（600519）最新股价为1455.00元")
    assert attrs["assay.score.finance-rubric"].double_value == 1.0
    assert attrs["evaluations.0.evaluation.name"].string_value == "finance-rubric"


@pytest.mark.server  # collectors
def test_endpoint_from_the_environment_and_a_refusal(tmp_path: Path) -> None:
    refusing = Collector(status=400).start()
    try:
        spec(tmp_path)
        r = run("run", "spec.yaml", cwd=tmp_path,
                OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{refusing.port}")
        assert r.returncode == 0, r.stderr  # the run is stored all the same
        assert "OTLP export failed: OTLP endpoint " in r.stderr
        assert "did not accept the spans" in r.stderr
    finally:
        refusing.stop()


@pytest.mark.server  # collectors
def test_spans_a_collector_refused_are_sent_on_resume_once(tmp_path: Path) -> None:
    refusing = Collector(status=400).start()
    accepting = Collector().start()
    try:
        spec(tmp_path, f"otlp: http://127.0.0.1:{refusing.port}/v1/traces\n")
        r = run("run", "spec.yaml", cwd=tmp_path)
        assert r.returncode == 0 and "OTLP export failed" in r.stderr
        run_id = run_id_of(r.stdout)
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{accepting.port}"}
        # the run's spec names the refusing collector; point the resume at the working one
        db = sqlite3.connect(tmp_path / ".assay" / "assay.db")
        db.execute("UPDATE runs SET manifest = json_set(manifest, '$.spec.otlp', ?)",
                   (f"http://127.0.0.1:{accepting.port}/v1/traces",))
        db.commit()
        r = run("run", "--resume", run_id, cwd=tmp_path, **env)
        assert r.returncode == 0, r.stderr
        assert "5 spans sent" in r.stderr and len(accepting.spans) == 5
        r = run("run", "--resume", run_id, cwd=tmp_path, **env)
        assert "0 spans sent" in r.stderr and len(accepting.spans) == 5  # none twice
    finally:
        refusing.stop()
        accepting.stop()
