"""Low findings of issue 27 at the store's edge: a huge dataset version is one line, not an
overflow traceback; a busy run's refusal names the command that resumes its kind."""

from __future__ import annotations

import os

import pytest
from sqlalchemy import update

from assay.core.errors import ConfigError, RunBusyError
from assay.datasets.named import parse_ref
from assay.store import lease, repo
from assay.store.db import open_engine
from assay.store.schema import runs


@pytest.mark.parametrize("ref", ["prices@99999999999999999999999", "prices@2147483648"])
def test_a_huge_version_is_one_line(ref: str) -> None:
    with pytest.raises(ConfigError) as exc:
        parse_ref(ref)
    assert str(exc.value) == f"'{ref}': a dataset version is a number from 1 to 2,147,483,647"
    assert parse_ref("prices@2147483647") == ("prices", 2147483647)


@pytest.mark.parametrize(("kind", "hint"), [
    ("run", "assay run --resume r1"), ("score", "assay score --resume r1"),
    ("online", "assay watch SPEC (the spec named as this online run)")])
def test_a_busy_run_names_the_command_of_its_kind(db_url: str, kind: str, hint: str) -> None:
    engine = open_engine(db_url)
    from assay.store import dataset_names  # noqa: F401  (the tables exist)

    repo.save_dataset(engine, version="v1", name="d", path="d.json", fmt="json", rows=[])
    repo.create_run(engine, run_id="r1", kind=kind, dataset_id="v1", manifest={})
    holder = f"{lease.HOST}:{os.getppid()}:other"  # a live process of this host
    with engine.begin() as conn:
        conn.execute(update(runs).where(runs.c.id == "r1").values(lease_owner=holder))
    with pytest.raises(RunBusyError) as exc:
        lease.acquire(engine, "r1")
    assert str(exc.value).endswith(f"nothing was done — wait for it to finish, or stop it and "
                                   f"resume with: {hint}")
