"""compare's data warning and its table say the same thing when runs have repeats (issue 28)."""

from __future__ import annotations

from assay.report.compare import compare_runs
from assay.report.provenance import dataset_warnings
from assay.store.db import open_engine
from tests.report.synthetic import make_run


def test_repeats_are_named_and_the_table_counts_samples(db_url: str) -> None:
    engine = open_engine(db_url)
    make_run(engine, "a", {"q1": 1.0, "q2": 1.0})
    make_run(engine, "b", {"q1": 1.0, "q2": 1.0, "q3": 0.0}, epochs=3)
    (warning,) = dataset_warnings(engine, ["a", "b"])
    assert warning == (
        "warning: different data: a used dataset content ds-a, b used dataset content ds-b; "
        "item sets differ (0 item(s) only in a, 1 only in b, 2 in both); a has 1 repeat(s) "
        "per item, b 3; the table's 'only' columns count samples (item × repeat) — paired "
        "figures use only the items both runs have")
    (pair,) = compare_runs(engine, ["a", "b"])
    # the one item only in b, three times, and the two later repeats of q1 and q2
    assert pair.only_other == ["q1#1", "q1#2", "q2#1", "q2#2", "q3", "q3#1", "q3#2"]
    assert pair.paired == 2


def test_same_data_and_repeats_say_nothing(db_url: str) -> None:
    engine = open_engine(db_url)
    make_run(engine, "a", {"q1": 1.0}, epochs=2)
    make_run(engine, "b", {"q1": 0.0}, epochs=2)
    from assay.store import repo

    with engine.begin() as conn:  # the same dataset for both
        from sqlalchemy import text

        conn.execute(text("UPDATE runs SET dataset_id = 'ds-a'"))
    assert repo.get_run(engine, "b")["dataset_id"] == "ds-a"
    assert dataset_warnings(engine, ["a", "b"]) == []
