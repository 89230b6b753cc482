"""File formats → rows (dict, 1-based line or row number). One reader per format.

Readers raise DataError naming the file and line; heavy libraries (pyarrow, openpyxl) are
imported only when their format is read. Every row passes one check on its way out (`READERS`
holds the checked readers): text no store can hold — an unpaired surrogate from a JSON escape
like "\ud800", a NUL — is a DataError naming file, line and field, not a crash at the first
write, nor a silent change to the question a target is asked.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from assay.core.errors import DataError
from assay.core.text import safe_text, safe_value

Row = tuple[dict[str, Any], int]

# A key's closing quote and its colon (a quote inside a string is always escaped, `\"`).
# Counting them is cheap; only when the count differs from the keys parsed (`"a" : 1`, a key
# ending in a backslash, or a duplicate) is the text parsed again to name a duplicate, which
# the JSON parsers otherwise drop silently (the last one wins).


def _keys(value: Any) -> int:
    """The keys of every object in parsed JSON (exact dicts and lists, as the parsers give):
    one pass with a worklist, no call per value — this runs for every line of a dataset."""
    n = 0
    todo = [value]
    for v in todo:  # grows as it goes: the nested containers
        if type(v) is dict:
            n += len(v)
            todo.extend([x for x in v.values() if type(x) is dict or type(x) is list])
        elif type(v) is list:
            todo.extend([x for x in v if type(x) is dict or type(x) is list])
    return n


def _top_keys(value: Any) -> int:
    """The keys of the outer objects only: all of them when the rows are flat (the common
    case), counted without looking at any value."""
    if type(value) is dict:
        return len(value)
    if type(value) is list:
        return sum(map(len, [v for v in value if type(v) is dict]))
    return 0


def duplicate_key(raw: bytes, data: Any) -> str | None:
    """A key given twice in one object of the JSON text `raw` (parsed as `data`), or None.
    The keys written can equal the outer objects' alone only when no object is nested and
    none lost a duplicate (each adds to the text's count, not the parsed one)."""
    written, top = raw.count(b'":'), _top_keys(data)
    if written != top:  # a quote-colon escaped in a string is no key: one more pass for them
        written -= raw.count(b'\\":')
    if written == top or written == _keys(data):
        return None
    found: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        for key, _ in items:
            if key in seen and not found:
                found.append(key)
            seen.add(key)
        return dict(items)
    json.loads(raw, object_pairs_hook=pairs)
    return found[0] if found else None


def _json_error(path: Path, text: str, exc: json.JSONDecodeError, base_line: int = 0) -> DataError:
    return DataError(f"invalid JSON: {exc.msg} (column {exc.colno})", path=str(path),
                     line=base_line + exc.lineno)


def read_json(path: Path) -> Iterator[Row]:
    raw = path.read_bytes()
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        data = orjson.loads(raw)  # several times faster than json on large files
        # orjson refuses unpaired surrogates, and a NUL in JSON text is always the escape
        # \u0000: without that escape no row needs checking (~10 µs a row saved)
        clean = b"\\u0000" not in raw
    except orjson.JSONDecodeError:
        # json words the error as users expect ("Expecting ',' delimiter", line and column)
        text = raw.decode("utf-8")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise _json_error(path, text, exc) from None
        clean = False
    duplicate = duplicate_key(raw, data)
    if duplicate is not None:
        raise DataError(f"key '{duplicate[:80]}' given twice in one object (JSON keeps only "
                        "the last): remove one", path=str(path))
    if isinstance(data, dict):
        # {"data": [...]} / {"items": [...]} wrappers, or one item on its own.
        for key in ("data", "items", "examples", "rows"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
        else:
            data = [data]
    if not isinstance(data, list):
        raise DataError("expected a list of items", path=str(path), line=1)
    for index, row in enumerate(data, start=1):
        if not isinstance(row, dict):
            raise DataError(f"item {index} is a {type(row).__name__}, not an object",
                            path=str(path), line=index)
        if not clean:
            check_row(row, path, index)
        yield row, index


def read_jsonl(path: Path) -> Iterator[Row]:
    with path.open(encoding="utf-8-sig") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = orjson.loads(line)
            except orjson.JSONDecodeError:
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DataError(f"invalid JSON: {exc.msg} (column {exc.colno})",
                                    path=str(path), line=lineno) from None
            if not isinstance(row, dict):
                raise DataError(f"line is a {type(row).__name__}, not an object",
                                path=str(path), line=lineno)
            duplicate = duplicate_key(line.encode("utf-8"), row)
            if duplicate is not None:
                raise DataError(f"key '{duplicate[:80]}' given twice (JSON keeps only the "
                                "last): remove one", path=str(path), line=lineno)
            yield row, lineno


# The csv module refuses a field over 128 KiB by default: a long agent answer is more. Raised
# (process-wide: the module has one setting) to a bound that still stops a runaway field.
CSV_FIELD_LIMIT = 64 * 1024 * 1024


def read_csv(path: Path) -> Iterator[Row]:
    if csv.field_size_limit() < CSV_FIELD_LIMIT:
        csv.field_size_limit(CSV_FIELD_LIMIT)
    with path.open(encoding="utf-8-sig", newline="") as fh:
        # strict: a quote never closed is "unexpected end of data", not the rest of the file
        # swallowed into one field (its items silently lost)
        reader = csv.DictReader(fh, strict=True)
        try:
            if reader.fieldnames is None:
                return
            for row in reader:
                if None in row:
                    raise DataError("more values than header columns", path=str(path),
                                    line=reader.line_num)
                yield dict(row), reader.line_num
        except csv.Error as exc:  # a field past the limit, a NUL in the file …: one line
            raise DataError(f"not readable as CSV: {exc}", path=str(path),
                            line=reader.line_num + 1) from None  # the row being read


def read_xlsx(path: Path) -> Iterator[Row]:
    from openpyxl import load_workbook

    try:
        wb = load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises several unrelated types for a bad file
        raise DataError(f"cannot read workbook: {exc}", path=str(path)) from None
    sheet = wb.worksheets[0]
    rows = sheet.iter_rows(values_only=True)
    header = next(rows, None)
    if header is None:
        return
    names = [str(h) if h is not None else f"column_{i + 1}" for i, h in enumerate(header)]
    for rownum, values in enumerate(rows, start=2):
        if all(v is None for v in values):
            continue
        yield {n: v for n, v in zip(names, values, strict=False)}, rownum
    wb.close()


def read_parquet(path: Path) -> Iterator[Row]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow's errors are not one hierarchy
        raise DataError(f"cannot read parquet: {exc}", path=str(path)) from None
    for index, row in enumerate(table.to_pylist(), start=1):
        yield row, index


def check_row(row: dict[str, Any], path: Path, line: int) -> None:
    """DataError at the first field holding an unpaired surrogate or a NUL."""
    try:  # the common case in C: orjson refuses surrogates and escapes NUL as \u0000
        if b"\\u0000" not in orjson.dumps(row):
            return
    except (TypeError, orjson.JSONEncodeError):
        pass  # a surrogate, or a value JSON cannot hold (parquet dates …): look field by field
    for name, value in row.items():
        if safe_value(name)[1] or safe_value(value)[1]:
            raise DataError("holds an unpaired surrogate or a NUL character (a broken "
                            "\\uXXXX escape or binary data); fix the file",
                            path=str(path), line=line, field=safe_text(str(name))[0])


def checked(read: Callable[[Path], Iterator[Row]]) -> Callable[[Path], Iterator[Row]]:
    def reader(path: Path) -> Iterator[Row]:
        for row, line in read(path):
            check_row(row, path, line)
            yield row, line
    reader.__name__ = reader.__qualname__ = read.__name__
    return reader


READERS = {
    ".json": read_json, ".jsonl": checked(read_jsonl),  # read_json checks what needs it
    ".ndjson": checked(read_jsonl), ".csv": checked(read_csv),
    ".xlsx": checked(read_xlsx), ".parquet": checked(read_parquet),
    ".pq": checked(read_parquet),
}
