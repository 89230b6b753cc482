"""Values as a person reads them (core/humane.py)."""

from __future__ import annotations

from assay.core.humane import gap, interval, plain, span, stale


def test_plain_has_no_python_syntax() -> None:
    assert plain(None) == "–"
    assert plain(True) == "yes"
    assert plain(3.0) == "3" and plain(3.5) == "3.5"
    assert plain({"代码": "600519", "最新价": "1455.0"}) == "代码 600519, 最新价 1455.0"
    assert plain(["a", None, 2]) == "a · – · 2"
    assert plain({}) == "–" and plain([]) == "–"
    assert plain({"kind": "rounding", "bounds": [1, 2]}) == "kind rounding, bounds 1 · 2"


def test_interval_reads_as_written() -> None:
    assert interval(["1454.95", "1455.05"]) == "1454.95 to 1455.05"
    assert interval([5, 5]) == "5"
    assert interval("n/a") == "n/a"


def test_gaps_in_the_unit_that_fits() -> None:
    assert gap(-35451634.742) == "410 days before the answer"
    assert gap(-0.25) == "at the answer's time (250 ms apart)"
    assert gap(12.4) == "12.4 s after the answer"
    assert gap(-180) == "3 minutes before the answer"
    assert gap(-5.2 * 3600) == "5.2 hours before the answer"
    assert gap(-3 * 365 * 86400) == "3 years before the answer"
    assert gap(None) == "–"
    assert span(86400) == "1 day" and span(60) == "1 minute"
    # stale: taken over an hour before the answer; after it is never stale (a live fetch)
    assert stale(-35451634.742) and stale(-3601) and not stale(-3599)
    assert not stale(8 * 86400) and not stale(None)
