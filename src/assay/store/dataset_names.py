"""Named dataset versions: NAME → numbered versions, each pointing at a content-hashed dataset
whose items are in `items` (saved by repo.save_dataset). Adding the content the name's latest
version already has makes no new version."""

from __future__ import annotations

import difflib
import random
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, func, insert, select
from sqlalchemy.exc import IntegrityError

from assay.core.errors import ConfigError, StoreError
from assay.core.types import Item

from .repo import now
from .schema import dataset_versions, datasets, items, runs

ALLOCATE_TRIES = 50  # each try loses only to a writer that did get a version


@dataclass(frozen=True)
class NamedVersion:
    name: str
    version: int
    dataset_id: str  # the content hash
    source: str
    created_at: datetime
    n_items: int
    format: str

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"


_COLS = (dataset_versions.c.name, dataset_versions.c.version, dataset_versions.c.dataset_id,
         dataset_versions.c.source, dataset_versions.c.created_at, datasets.c.n_items,
         datasets.c.format)


def _select() -> Any:
    return select(*_COLS).join(datasets, datasets.c.id == dataset_versions.c.dataset_id)


def add_version(engine: Engine, name: str, dataset_id: str, source: str
                ) -> tuple[NamedVersion, bool]:
    """The name's next version for this content, or its latest when that has the same content
    (False: nothing new). The dataset itself must be saved first.

    The next number is read, then inserted: two writers adding under one name at once can read
    the same latest and collide on (name, version). The loser's transaction is rolled back and
    it reads again — so each content gets its own version, or finds it is already the latest —
    instead of dying with an IntegrityError while its content got no version."""
    for attempt in range(ALLOCATE_TRIES):
        try:
            return _add_version(engine, name, dataset_id, source)
        except IntegrityError:
            if attempt == ALLOCATE_TRIES - 1:
                break
            time.sleep(random.uniform(0, 0.01 * (attempt + 1)))  # apart, not in step again
    raise StoreError(f"dataset '{name}': no version could be allocated after "
                     f"{ALLOCATE_TRIES} tries (other writers kept adding under this name); "
                     "run the command again")


def _add_version(engine: Engine, name: str, dataset_id: str, source: str
                 ) -> tuple[NamedVersion, bool]:
    with engine.begin() as conn:
        latest = conn.execute(_select().where(dataset_versions.c.name == name)
                              .order_by(dataset_versions.c.version.desc()).limit(1)).first()
        if latest is not None and latest.dataset_id == dataset_id:
            return NamedVersion(*latest), False
        version = (latest.version if latest is not None else 0) + 1
        conn.execute(insert(dataset_versions), [{
            "name": name, "version": version, "dataset_id": dataset_id, "source": source,
            "created_at": now()}])
        row = conn.execute(_select().where(dataset_versions.c.name == name,
                                           dataset_versions.c.version == version)).one()
    return NamedVersion(*row), True


def resolve(engine: Engine, name: str, version: int | None = None) -> NamedVersion:
    """NAME@VERSION, or NAME's latest version; an unknown one is one line naming what exists."""
    with engine.connect() as conn:
        q = _select().where(dataset_versions.c.name == name)
        q = (q.where(dataset_versions.c.version == version) if version is not None
             else q.order_by(dataset_versions.c.version.desc()).limit(1))
        row = conn.execute(q).first()
        if row is not None:
            return NamedVersion(*row)
        known = conn.execute(select(dataset_versions.c.version).where(
            dataset_versions.c.name == name).order_by(dataset_versions.c.version)).scalars().all()
        if known:
            raise ConfigError(f"dataset '{name}' has no version {version} (versions: "
                              f"{', '.join(str(v) for v in known)}; see assay datasets show "
                              f"{name})")
        names = conn.execute(select(dataset_versions.c.name).distinct()).scalars().all()
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
    hint = (f"; did you mean {', '.join(close)}?" if close else
            f"; named datasets: {', '.join(sorted(names)) or 'none'} (add one with assay "
            "datasets add NAME FILE)")
    raise ConfigError(f"no named dataset '{name}'{hint}")


def versions(engine: Engine, name: str | None = None) -> list[NamedVersion]:
    """A name's versions (every name's, without one), by name and number."""
    q = _select() if name is None else _select().where(dataset_versions.c.name == name)
    with engine.connect() as conn:
        return [NamedVersion(*r) for r in conn.execute(
            q.order_by(dataset_versions.c.name, dataset_versions.c.version))]


def latest_versions(engine: Engine) -> list[tuple[NamedVersion, int]]:
    """Each name's latest version and how many versions it has, by name."""
    counts = (select(dataset_versions.c.name, func.max(dataset_versions.c.version).label("v"),
                     func.count().label("n")).group_by(dataset_versions.c.name).subquery())
    with engine.connect() as conn:
        rows = conn.execute(select(*_COLS, counts.c.n)
                            .join(datasets, datasets.c.id == dataset_versions.c.dataset_id)
                            .join(counts, (counts.c.name == dataset_versions.c.name)
                                  & (counts.c.v == dataset_versions.c.version))
                            .order_by(dataset_versions.c.name)).all()
    return [(NamedVersion(*r[:-1]), int(r[-1])) for r in rows]


def stored_items(engine: Engine, dataset_id: str) -> list[Item]:
    """A stored dataset's items in their file's order."""
    with engine.connect() as conn:
        return [Item(r.item_id, r.fields, dataset_id, r.line) for r in conn.execute(
            select(items.c.item_id, items.c.fields, items.c.line)
            .where(items.c.dataset_id == dataset_id).order_by(items.c.line, items.c.item_id))]


def runs_using(engine: Engine, ref: str) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        return [dict(r) for r in conn.execute(
            select(runs.c.id, runs.c.kind, runs.c.status, runs.c.created_at)
            .where(runs.c.dataset_ref == ref).order_by(runs.c.created_at)).mappings()]


def run_datasets(engine: Engine, run_ids: list[str]) -> dict[str, tuple[str | None, str | None]]:
    """run → (dataset content hash, NAME@VERSION or None)."""
    with engine.connect() as conn:
        return {r.id: (r.dataset_id, r.dataset_ref) for r in conn.execute(
            select(runs.c.id, runs.c.dataset_id, runs.c.dataset_ref)
            .where(runs.c.id.in_(run_ids)))}


def run_item_ids(engine: Engine, run_id: str) -> set[str]:
    """The items a run has results for."""
    from .schema import results

    with engine.connect() as conn:
        return set(conn.execute(select(results.c.item_id).where(results.c.run_id == run_id)
                                .distinct()).scalars())
