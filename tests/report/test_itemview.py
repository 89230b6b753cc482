"""Marks, truth gaps in words and the span waterfall (report/itemview.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from assay.report.itemview import humane_gap, is_stale, marked, waterfall


def test_marked_cuts_the_text_without_changing_it() -> None:
    text = "贵州茅台(600519)最新股价为1455.00元，下跌2.01%。"
    values = [{"field": "last", "span": [17, 24], "pass": True},
              {"field": "x", "span": [18, 20], "pass": False},  # overlaps: left unmarked
              {"field": "y", "span": [40, 90], "pass": False}]  # outside the text
    ignored = [{"field": "change_pct", "span": [28, 33], "why": "not a required point"}]
    segs = marked(text, values, ignored)
    assert "".join(s["text"] for s in segs) == text
    marks = [(s["text"], s["kind"], s.get("mark")) for s in segs if s["kind"]]
    assert marks == [("1455.00", "pass", 0), ("2.01%", "ignored", None)]
    assert marked("abc", []) == [{"text": "abc", "kind": None}]


def test_humane_gap_and_stale() -> None:
    assert humane_gap(-35451634.742) == "410 days before the answer"
    assert humane_gap(-410 * 86400.0) == "410 days before the answer"
    assert humane_gap(180) == "3 minutes after the answer"
    assert humane_gap(-1.5 * 3600) == "1.5 hours before the answer"
    assert humane_gap(0.25) == "at the answer's time (250 ms apart)"
    assert humane_gap(-86400 * 800) == "2.2 years before the answer"
    assert humane_gap(None) is None
    assert is_stale(-35451634.742) and not is_stale(-60) and not is_stale(7200)
    assert not is_stale(None)


def test_waterfall_offsets() -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    spans = [{"start_at": t0, "end_at": t0 + timedelta(seconds=2), "depth": 0},
             {"start_at": (t0 + timedelta(seconds=1)).replace(tzinfo=None),
              "end_at": (t0 + timedelta(seconds=1.5)).replace(tzinfo=None), "depth": 1}]
    root, child = waterfall(spans)
    assert (root["left"], root["width"], root["start_ms"]) == (0.0, 100.0, 0.0)
    assert (child["left"], child["width"], child["start_ms"]) == (50.0, 25.0, 1000.0)


def test_line_chart() -> None:
    from assay.report.charts import line

    svg = line({"rubric": [("10:00", 0.5), ("10:01", None), ("10:02", 1.0), ("10:03", 0.75)],
                "judge<x>": [("10:00", 1.0)]})
    assert svg.startswith("<svg") and svg.count("<circle") == 4
    assert svg.count("<polyline") == 1  # the gap at 10:01 splits the rubric's line; one point
    assert "judge&lt;x&gt;" in svg and "<x>" not in svg
    assert "10:00" in svg and "10:03" in svg
    assert line({}) == ""
