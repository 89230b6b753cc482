"""An agent's reported tool calls, read into one shape: times in ISO 8601, Unix seconds or
milliseconds; the OpenAI shape; what cannot be read is named, never dropped silently."""

from __future__ import annotations

from datetime import UTC, datetime

from assay.targets.trajectory import read


def test_the_documented_shape_and_the_openai_one() -> None:
    calls, problems = read([
        {"id": "c1", "name": "quote", "arguments": {"symbol": "600519"},
         "result": {"last": 1455.0}, "start": "2026-11-30T09:30:00.5+08:00",
         "end": "2026-11-30T01:30:01"},
        {"name": "calc", "arguments": "1+1", "result": "2", "start": 1796002200,
         "end": 1796002200250, "error": "overflow"},
        {"id": "c3", "type": "function", "function": {"name": "fmt", "arguments": "{}"}},
    ])
    assert problems == []
    assert calls[0] == {"name": "quote", "arguments": {"symbol": "600519"},
                        "result": {"last": 1455.0}, "id": "c1",
                        "start": datetime(2026, 11, 30, 1, 30, 0, 500000, UTC).timestamp(),
                        "end": datetime(2026, 11, 30, 1, 30, 1, tzinfo=UTC).timestamp()}
    assert calls[1] == {"name": "calc", "arguments": "1+1", "result": "2",
                        "error": "overflow", "start": 1796002200.0, "end": 1796002200.25}
    assert calls[2] == {"name": "fmt", "arguments": "{}", "id": "c3"}


def test_what_cannot_be_read_is_named() -> None:
    assert read(None) == ([], [])
    assert read({"name": "quote"}) == ([], ["tool calls: expected a list, got dict"])
    calls, problems = read(["quote", {"arguments": {}}, {"name": "q", "start": "noon",
                                                          "end": True}])
    assert calls == [{"name": "?", "error": "no name", "arguments": {}}, {"name": "q"}]
    assert problems == [
        "tool call 1: expected an object, got str",
        "tool call 2: no 'name'",
        "tool call 3 (q): bad 'start' 'noon': Invalid isoformat string: 'noon'",
        "tool call 3 (q): bad 'end' True: a boolean is not a time",
    ]
