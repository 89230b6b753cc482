"""The receiver of `assay watch` under hostile bodies (issue 27): gzip bombs with and without
`Content-Encoding`, bodies past the cap, unknown encodings — each refused, counted as a bad
request, with the receiver still taking traces after it."""

from __future__ import annotations

import gzip
import json
import tracemalloc
import zlib
from pathlib import Path

import pytest

from assay.core.errors import ConfigError
from assay.online import watch as watch_module
from assay.online.inflate import NotGzip, TooLarge, inflate_capped
from assay.store import repo
from tests.online.otlp_send import agent_trace, post, request, send
from tests.online.watching import Watching

RUBRIC = "evaluators: [finance-rubric]\nrubric: {required: latest price, precision: rounding}\n"


def write_spec(tmp_path: Path, body: str = RUBRIC) -> Path:
    p = tmp_path / "watch.yaml"
    p.write_text('name: prod-agent\nsource: {otlp: "127.0.0.1:0"}\nquiet_s: 0.1\n' + body,
                 "utf-8")
    return p


def bomb(inflated: int) -> bytes:
    """`inflated` zero bytes as gzip: about a thousandth of that on the wire."""
    c = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1 << 20)
    parts = [c.compress(block) for _ in range(inflated >> 20)]
    return b"".join(parts) + c.flush()


def test_inflate_reads_gzip_and_its_members() -> None:
    assert inflate_capped(gzip.compress(b"abc"), 10) == b"abc"
    assert inflate_capped(gzip.compress(b"ab") + gzip.compress(b"cd"), 10) == b"abcd"
    assert inflate_capped(gzip.compress(b"") , 10) == b""


@pytest.mark.parametrize("body, message", [
    (gzip.compress(b"x" * 100)[:-6], "truncated"),
    (b"\x1f\x8b not gzip at all", "not valid gzip"),
    (gzip.compress(b"x") + b"junk", "bytes after its end"),
])
def test_inflate_refuses_what_is_not_gzip(body: bytes, message: str) -> None:
    with pytest.raises(NotGzip, match=message):
        inflate_capped(body, 1000)


def test_a_bomb_stops_at_the_cap_with_bounded_memory() -> None:
    body = bomb(256 << 20)  # 256 MiB inflated from ~250 KB
    assert len(body) < 1 << 20
    tracemalloc.start()
    try:
        with pytest.raises(TooLarge, match="inflates past 2,000,000 bytes"):
            inflate_capped(body, 2_000_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, peak  # the cap and a slice or two, not the 256 MiB
    # two members, each under the cap, together over it
    two = gzip.compress(bytes(1500)) + gzip.compress(bytes(1500))
    with pytest.raises(TooLarge):
        inflate_capped(two, 2000)


@pytest.mark.server  # the watch listens
def test_bombs_and_oversized_bodies_are_413_and_counted(tmp_path: Path, db_url: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watch_module, "MAX_BODY", 4 << 20)
    w = Watching(db_url, write_spec(tmp_path)).start()
    b = bomb(64 << 20)
    # the gzip magic without Content-Encoding (inflated by the receiver itself) …
    status, text = post(w.endpoint, b)
    assert (status, text) == (413, b"gzip body inflates past 4,194,304 bytes")
    # … and with it (aiohttp's own inflation is off: the same capped path)
    status, text = post(w.endpoint, b, **{"Content-Encoding": "gzip"})
    assert (status, text) == (413, b"gzip body inflates past 4,194,304 bytes")
    status, _ = post(w.endpoint, bytes(5 << 20))  # past the cap as sent
    assert status == 413
    status, text = post(w.endpoint, b"x", **{"Content-Encoding": "br"})
    assert (status, text[:38]) == (415, b"unsupported Content-Encoding 'br' (OTL")
    status, text = post(w.endpoint, b"\x1f\x8b\x08garbage")
    assert status == 400 and text.startswith(b"body is not valid gzip")
    # the receiver lives on: a trace sent after all that is evaluated
    trace = agent_trace("贵州茅台最新价?", "1455.00元")
    status, _ = post(w.endpoint, gzip.compress(request(trace).SerializeToString()))
    assert status == 200
    send(w.endpoint, agent_trace("腾讯控股最新价?", "600港元"))
    w.wait_evaluated(2)
    c = w.stop().counters
    assert (c.requests, c.bad_requests, c.evaluated) == (7, 5, 2)


@pytest.mark.server  # the watch listens
def test_a_token_guards_the_receiver(tmp_path: Path, db_url: str) -> None:
    w = Watching(db_url, write_spec(tmp_path), token="s3cret-token").start()
    body = request(agent_trace("贵州茅台最新价?", "1455.00元")).SerializeToString()
    status, text = post(w.endpoint, body)
    assert (status, text) == (401, b"a token is required (ASSAY_WATCH_TOKEN): send "
                                   b"Authorization: Bearer TOKEN (OTEL_EXPORTER_OTLP_HEADERS)")
    assert post(w.endpoint, body, Authorization="Bearer wrong")[0] == 401
    assert post(w.endpoint, body, Authorization="Bearer s3cret-token")[0] == 200
    w.wait_evaluated(1)
    c = w.stop().counters
    assert (c.requests, c.bad_requests, c.evaluated, c.spans) == (3, 2, 1, 2)
    manifest = repo.get_run(w.engine, w.run_id)["manifest"]  # type: ignore[index]
    assert "s3cret-token" not in json.dumps(manifest)


@pytest.mark.server  # the watch listens
def test_an_open_bind_needs_a_token(tmp_path: Path, db_url: str) -> None:
    spec = tmp_path / "open.yaml"
    spec.write_text('name: open\nsource: {otlp: "0.0.0.0:0"}\n' + RUBRIC, "utf-8")
    with pytest.raises(ConfigError) as err:
        Watching(db_url, spec).start()
    assert str(err.value) == (f"{spec}: source.otlp: listening on 0.0.0.0 makes the OTLP "
                              "receiver reachable from other machines: set ASSAY_WATCH_TOKEN "
                              "to a secret first")
    w = Watching(db_url, spec, token="s3cret-token").start()  # with one, it listens
    assert w.port > 0
    w.stop()


def test_a_body_of_many_empty_gzip_members_is_refused_at_once() -> None:
    """M11 (review of issue 27): each member re-copied the rest of the body, so 200,000 empty
    members (4 MB) took 10 s of CPU in a worker thread; the member count is now bounded."""
    import time

    from assay.online.inflate import MAX_MEMBERS

    one = gzip.compress(b"x")
    assert inflate_capped(one * MAX_MEMBERS, 10_000) == b"x" * MAX_MEMBERS
    started = time.process_time()
    with pytest.raises(NotGzip, match=f"more than {MAX_MEMBERS} gzip members"):
        inflate_capped(gzip.compress(b"") * 200_000, 32 * 1024 * 1024)
    assert time.process_time() - started < 0.5
