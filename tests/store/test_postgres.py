"""The same code on a real PostgreSQL server: migrations (JSONB, the portable table rebuilds,
the label backfill), scoring, an experiment with captured ground truth, reviews, comparison,
export and the UI's queries."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_run_cli import run, run_id_of
from tests.conftest import SAMPLE
from tests.marks import starts
from tests.postgres import postgres_server
from tests.truth.conftest import SNAPSHOTS

EXPECTED = {x["prompt_id"]: x["expected_score"] for x in json.loads(SAMPLE.read_text("utf-8"))}


@pytest.fixture(scope="module")
@starts("server", "process")
def pg() -> Iterator[str]:
    with postgres_server() as url:
        yield url


def test_everything_on_postgresql(pg: str, tmp_path: Path) -> None:
    from sqlalchemy import inspect, text

    from assay.store.db import HEAD, current_revision, open_engine

    engine = open_engine(pg)
    assert current_revision(engine) == HEAD
    with engine.connect() as conn:
        cols = {c["name"]: c["type"] for c in inspect(conn).get_columns("results")}
        assert type(cols["evidence"]).__name__ == "JSONB"
    r = run("score", str(SAMPLE), "--db", pg, "--out", "o.jsonl", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    score_run = r.stdout.split("run ")[-1].split()[0]
    got = {x["item_id"]: x["score"] for x in map(json.loads, (tmp_path / "o.jsonl")
                                                 .read_text("utf-8").splitlines())}
    assert got == EXPECTED
    (tmp_path / "spec.yaml").write_text(
        f"dataset: {SAMPLE}\ntargets: [{{type: recorded}}]\nevaluators: [finance-rubric]\n"
        f"ground_truth: snapshot:{SNAPSHOTS}\n", "utf-8")
    r = run("run", "spec.yaml", "--db", pg, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    exp_run = run_id_of(r.stdout)
    with engine.connect() as conn:
        n, = conn.execute(text("SELECT count(*) FROM truth_snapshots WHERE run_id = :r"),
                          {"r": exp_run}).one()
        assert n == len(EXPECTED)
        labels = conn.execute(text("SELECT DISTINCT label FROM items")).scalars().all()
        assert "Time-Sensitive_Data_Fetching(Global)" in labels
    r = run("review", exp_run, "(T1)Assay_Sample_S01_stale", "-e", "finance-rubric",
            "--score", "1", "--reason", "ok", "--reviewer", "pg", "--db", pg, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    data = json.loads(run("compare", score_run, exp_run, "--db", pg, "--json",
                          cwd=tmp_path).stdout)
    assert data[0]["paired"] == 97 and data[0]["to_better"] == ["(T1)Assay_Sample_S01_stale"]
    r = run("export", exp_run, "-f", "parquet", "-o", "x.parquet", "--db", pg, cwd=tmp_path)
    assert r.returncode == 0 and "99 row(s)" in r.stderr
    r = run("replay", exp_run, "--db", pg, cwd=tmp_path)
    assert r.returncode == 0 and "100.0%" in r.stdout
    from assay.web import queries

    page = queries.results_page(engine, exp_run, label="Time-Sensitive_Data_Fetching(Global)",
                                score="1", size=10)
    assert page["total"] > 10 and len(page["rows"]) == 10
    summary = queries.run_summary(engine, exp_run)["evaluators"]["finance-rubric"]
    assert summary["reviewed"] == 1 and summary["corrected_mean"] > summary["mean"]


def test_migration_0010_backfills_costs_and_tokens_on_postgresql(pg: str) -> None:
    """An old store (0009) on PostgreSQL: cost and tokens filled from the JSONB they were kept
    in, the cost sheet unchanged, old rows read as typed calls (test_model_call_columns.py)."""
    from sqlalchemy import create_engine, text

    from tests.store.test_model_call_columns import check_upgrade

    with create_engine(pg, isolation_level="AUTOCOMMIT").connect() as conn:
        conn.execute(text("CREATE DATABASE assay_0009"))
    check_upgrade(pg.rsplit("/", 1)[0] + "/assay_0009")
