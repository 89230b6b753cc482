"""The run session that `run`, `score`, `watch` and `replay` share (runner/session.py)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from assay.core.errors import RunBusyError
from assay.core.types import Item
from assay.evaluators.build import EvaluatorFactory
from assay.runner.session import RunSession, ground_truth_record, run_timeout
from assay.store import lease, repo
from assay.store.db import open_engine
from assay.truth.capture import Capture, TruthConfig


def _store(tmp_path: Path):  # type: ignore[no-untyped-def]
    engine = open_engine(f"sqlite:///{tmp_path / 's.db'}")
    repo.save_dataset(engine, version="v1", name="d", path="d.json", fmt="json",
                      rows=[Item("a", {"prompt": "q"}, "v1", 1)])
    return engine


def test_a_session_creates_its_run_finishes_it_and_gives_the_lease_back(tmp_path: Path) -> None:
    engine = _store(tmp_path)

    async def go() -> None:
        async with RunSession.open(engine, "r1", new=True) as session:
            session.start(kind="run", dataset_id="v1", manifest={"name": "x"}, resumed=False)
            row = repo.get_run(engine, "r1")
            assert (row["status"], row["lease_owner"]) == ("running", lease.owner())
            session.finish("finished", {"samples": 1})
        row = repo.get_run(engine, "r1")
        assert (row["status"], row["manifest"]["name"]) == ("finished", "x")
        assert row["lease_owner"] is None

        async with RunSession.open(engine, "r1", new=False) as session:  # a resume
            session.start(kind="run", dataset_id="v1", manifest={}, resumed=True)
            assert repo.get_run(engine, "r1")["status"] == "running"
            assert repo.get_run(engine, "r1")["manifest"]["name"] == "x"  # kept
            session.finish("interrupted", {})
        assert repo.get_run(engine, "r1")["status"] == "interrupted"

    asyncio.run(go())


def test_a_run_another_process_holds_is_refused_before_anything_is_built(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = _store(tmp_path)
    repo.create_run(engine, run_id="r1", kind="run", dataset_id="v1", manifest={})
    repo.finish_run(engine, "r1", "interrupted", {})
    with engine.begin() as conn:  # a live lease of another host's process
        conn.execute(text("UPDATE runs SET lease_owner = 'elsewhere:77:abcd', "
                          "lease_until = :u WHERE id = 'r1'"),
                     {"u": (datetime.now(UTC) + timedelta(seconds=30)).isoformat(sep=" ")})
    built: list[str] = []
    monkeypatch.setattr(EvaluatorFactory, "__init__",
                        lambda self, *a, **k: built.append("factory"))

    async def go() -> None:
        async with RunSession.open(engine, "r1", new=False):
            pass

    with pytest.raises(RunBusyError, match="process 77 on elsewhere"):
        asyncio.run(go())
    assert built == []

    async def read_only() -> None:  # replay reads a run without taking it
        async with RunSession.open(engine, "r1", new=None) as session:
            assert session.run_id == "r1"

    monkeypatch.undo()
    asyncio.run(read_only())


def test_the_factory_is_closed_when_the_session_fails(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    engine = _store(tmp_path)
    closed: list[int] = []

    async def close(self: EvaluatorFactory) -> None:
        closed.append(1)

    monkeypatch.setattr(EvaluatorFactory, "close", close)

    async def go() -> None:
        async with RunSession.open(engine, "r2", new=True):
            raise RuntimeError("the body failed")

    with pytest.raises(RuntimeError, match="the body failed"):
        asyncio.run(go())
    assert closed == [1]
    assert repo.get_run(engine, "r2") is None  # never started: nothing recorded


def test_run_timeout_is_the_latest_override_else_the_spec() -> None:
    assert run_timeout({"spec": {"timeout_s": 30}}) == 30.0
    assert run_timeout({"spec": {"timeout_s": 30}, "overrides": {"timeout_s": 5}}) == 5.0
    assert run_timeout({"spec": {"timeout_s": 0}}) is None  # not a bound
    assert run_timeout({"spec": {"timeout_s": "soon"}}) is None
    assert run_timeout({"spec": "not a mapping"}) is None
    assert run_timeout({}) is None


def test_the_ground_truth_record_names_a_provider_only_when_truth_is_captured() -> None:
    stored = TruthConfig.parse("stored", None, Path.cwd())
    assert ground_truth_record(stored, None) == {
        "mode": "stored", "provider": None, "field": stored.code_field, "market": stored.market,
        "window_s": stored.window_s, "snapshots": None, "date": stored.date}
    live = TruthConfig.parse("live", None, Path.cwd())
    record = ground_truth_record(live, Capture(live))
    assert record["mode"] == "live"
    assert record["provider"] == live.provider and record["provider"]
