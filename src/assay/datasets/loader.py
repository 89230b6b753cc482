"""Dataset loading: any supported file → items with stable ids and a content version."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.core.errors import DataError
from assay.core.types import Item

from .ids import content_id, normalise_prompt_id
from .readers import READERS


@dataclass(frozen=True)
class Dataset:
    path: str
    name: str
    format: str
    version: str  # content hash of the file and the field mapping
    items: list[Item]


def parse_field_map(specs: Iterable[str]) -> dict[str, str]:
    """`--field response=answer` → {"response": "answer"}."""
    out: dict[str, str] = {}
    for spec in specs:
        name, sep, column = spec.partition("=")
        if not sep or not name.strip() or not column.strip():
            raise DataError(f"--field takes NAME=COLUMN, got '{spec}'")
        out[name.strip()] = column.strip()
    return out


def load_dataset(path: str | Path, *, field_map: Mapping[str, str] | None = None,
                 id_field: str | None = None, required: Iterable[str] = ()) -> Dataset:
    p = Path(path)
    if not p.exists():
        raise DataError("no such file", path=str(p))
    if p.is_dir():
        raise DataError("is a directory, expected a dataset file", path=str(p))
    reader = READERS.get(p.suffix.lower())
    if reader is None:
        raise DataError(f"unsupported format '{p.suffix}' (use one of "
                        f"{', '.join(sorted(READERS))})", path=str(p))
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror}", path=str(p)) from None
    mapping = dict(field_map or {})
    required = tuple(required)

    items: list[Item] = []
    seen: dict[str, int] = {}
    try:
        rows = list(reader(p))
    except UnicodeDecodeError as exc:
        raise DataError(f"not UTF-8 text ({exc.reason})", path=str(p)) from None
    if not rows:  # whatever the format: a run of no items is a mistake, not a result
        raise DataError("no items in the file", path=str(p))
    # Ids come from the first of ID_FIELDS the items have (as answer files' ids do), content
    # hashes only when they have none: a hash id beside real ids would silently change
    # whenever that item's text changed, and an `id` column ignored would match no answer.
    column, first_pid = (None, None) if id_field else _id_column(rows, mapping, p)
    digest = hashlib.sha256(raw)
    digest.update(repr(sorted(mapping.items())).encode())
    digest.update(repr(id_field).encode())
    if column not in (None, "prompt_id"):  # ids read from a column that earlier were hashes
        digest.update(f"ids from {column}".encode())
    version = digest.hexdigest()[:16]
    for row, line in rows:
        fields = _apply_map(row, mapping, p, line)
        for name in required:
            if name not in fields:
                raise DataError("missing required field", path=str(p), line=line, field=name)
        pid = _id_in(fields, column) if column else None  # read once: ids are per item
        if first_pid is not None and not pid:
            raise DataError(f"missing or empty, while other items have one (line {first_pid}):"
                            f" give every item a {column}, or choose the id field "
                            "(--id-field, or id_field in a spec)", path=str(p), line=line,
                            field=column)
        item_id = pid or _item_id(fields, id_field, p, line)
        if len(item_id) > MAX_ID:  # the store's limit (PostgreSQL refused it mid-run)
            raise DataError(f"item id {item_id[:60]!r}… is over {MAX_ID} characters: give the "
                            "items shorter ids (or choose another id field)",
                            path=str(p), line=line)
        if "\0" in item_id:
            raise DataError(f"item id {item_id[:60]!r} holds a NUL character (\\0)",
                            path=str(p), line=line)
        if item_id in seen:
            raise DataError(f"duplicate id '{item_id}' (first at {seen[item_id]})",
                            path=str(p), line=line)
        seen[item_id] = line
        items.append(Item(item_id, fields, version, line))
    return Dataset(str(p), p.stem, p.suffix.lower().lstrip("."), version, items)


MAX_ID = 255  # results.item_id, answers.item_id: varchar(255)


def _apply_map(row: dict[str, Any], mapping: Mapping[str, str], path: Path,
               line: int) -> dict[str, Any]:
    if not mapping:
        return row
    fields = dict(row)
    for name, column in mapping.items():
        if column not in row:
            raise DataError(f"no column '{column}' (mapped by --field {name}={column})",
                            path=str(path), line=line)
        fields[name] = row[column]
    return fields


# The columns an item's id is read from when no id field is chosen, the first the items have.
ID_FIELDS = ("prompt_id", "id", "item_id")


def _id_column(rows: list[tuple[dict[str, Any], int]], mapping: Mapping[str, str],
               path: Path) -> tuple[str | None, int | None]:
    """The id column of ID_FIELDS the items have, and the line of the first item with one."""
    for column in ID_FIELDS:
        first = next((line for row, line in rows
                      if _id_in(_apply_map(row, mapping, path, line), column)), None)
        if first is not None:
            return column, first
    return None, None


def _id_in(fields: dict[str, Any], column: str) -> str | None:
    return normalise_prompt_id(fields[column]) if column in fields else None


def _item_id(fields: dict[str, Any], id_field: str | None, path: Path, line: int) -> str:
    if id_field:
        value = fields.get(id_field)
        if value is None or str(value).strip() == "":
            raise DataError("empty id", path=str(path), line=line, field=id_field)
        return normalise_prompt_id(value) or str(value)
    return content_id(fields)
