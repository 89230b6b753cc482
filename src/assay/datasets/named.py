"""Named dataset versions (`assay datasets add NAME FILE`, `dataset: NAME@VERSION` in a spec).

The items themselves are kept in the store, under the file's content hash, so a named version
runs later exactly as it was added even when its file has changed or is gone."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from assay.core.errors import ConfigError
from assay.store import dataset_names as names
from assay.store import repo
from assay.store.dataset_names import NamedVersion
from assay.store.db import Engine

from .loader import Dataset, load_dataset

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
# NAME@VERSION (a number) or NAME@latest, as a spec or `datasets show` writes it
MAX_VERSION = 2**31 - 1  # the store's integer column; a larger number overflowed with a traceback
REF = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)@(?P<version>[0-9]+|latest)$")


def parse_ref(text: str) -> tuple[str, int | None]:
    """`prices@3` → ("prices", 3); `prices` or `prices@latest` → ("prices", None)."""
    m = REF.match(text)
    if m is not None:
        v = m.group("version")
        if v != "latest" and (len(v) > 10 or int(v) > MAX_VERSION):  # a store integer's range
            raise ConfigError(f"'{text[:80]}': a dataset version is a number from 1 to "
                              f"{MAX_VERSION:,}")
        return m.group("name"), None if v == "latest" else int(v)
    if not NAME.match(text):
        raise ConfigError(f"'{text}' is not a dataset name (letters, digits, '.', '_', '-'; "
                          "NAME@VERSION for a version)")
    return text, None


def add_named(engine: Engine, name: str, path: str | Path, *,
              field_map: Mapping[str, str] | None = None,
              id_field: str | None = None) -> tuple[NamedVersion, bool]:
    """The file's items stored under NAME's next version; (latest, False) when its content is
    the latest version's."""
    if not NAME.match(name):
        raise ConfigError(f"dataset name '{name}' must be letters, digits, '.', '_' or '-'")
    dataset = load_dataset(path, field_map=field_map, id_field=id_field)
    repo.save_dataset(engine, version=dataset.version, name=dataset.name, path=dataset.path,
                      fmt=dataset.format, rows=dataset.items)
    return names.add_version(engine, name, dataset.version, str(Path(path)))


def load_named(engine: Engine, name: str, version: int | None = None
               ) -> tuple[Dataset, NamedVersion]:
    """A named version's items, read from the store (not from its file)."""
    named = names.resolve(engine, name, version)
    rows = names.stored_items(engine, named.dataset_id)
    return Dataset(named.ref, name, named.format, named.dataset_id, rows), named
