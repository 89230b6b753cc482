"""Issue 28: one store for the quickstart, and "no run X" says which store it looked in."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assay.core.errors import ConfigError
from assay.store import repo
from assay.store.db import DEFAULT_URL, open_engine
from tests.conftest import ROOT


def test_a_missing_run_names_the_store_looked_in(tmp_path: Path) -> None:
    engine = open_engine(f"sqlite:///{tmp_path / 'mine.db'}")
    with pytest.raises(ConfigError) as exc:
        repo.require_run(engine, "r-nothere")
    assert str(exc.value) == (
        f"no run 'r-nothere' in the store {tmp_path / 'mine.db'} (see assay runs; another "
        "store is chosen with --db or ASSAY_DB)")


def test_a_server_store_is_named_without_its_password() -> None:
    from sqlalchemy import create_engine

    engine = create_engine("postgresql+psycopg://eve:s3cret@db.example:5432/assay")
    assert repo.store_name(engine) == "postgresql+psycopg://eve:***@db.example:5432/assay"


def test_make_demo_writes_the_store_every_later_command_reads() -> None:
    demo = re.search(r"^demo:.*?\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text("utf-8"),
                     re.MULTILINE)
    assert demo is not None
    commands = demo.group(1)
    assert "assay run examples/specs/demo.yaml" in commands
    assert "--db" not in commands  # so `assay view`, `assay show`, … find its runs
    assert DEFAULT_URL == "sqlite:///.assay/assay.db"
