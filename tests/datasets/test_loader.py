from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.core.errors import DataError
from assay.datasets.ids import normalise_prompt_id
from assay.datasets.loader import load_dataset, parse_field_map

ROWS = [
    {"prompt_id": "['(T1)Time_Sensitive_Data_Fetching_165']", "prompt": "PM close",
     "answer": "$165.88", "n": 1},
    {"prompt_id": "(T1)Time_Sensitive_Data_Fetching_090", "prompt": "DIS open",
     "answer": "$114.23", "n": 2},
]


def write(tmp: Path, fmt: str, rows: list[dict]) -> Path:
    path = tmp / f"d.{fmt}"
    if fmt == "json":
        path.write_text(json.dumps(rows), encoding="utf-8")
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif fmt == "csv":
        import csv

        with path.open("w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    elif fmt == "xlsx":
        from openpyxl import Workbook

        wb = Workbook()
        ws = wb.active
        ws.append(list(rows[0]))
        for r in rows:
            ws.append(list(r.values()))
        wb.save(path)
    elif fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), path)
    return path


@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv", "xlsx", "parquet"])
def test_formats_keep_every_field_and_normalise_ids(tmp_path: Path, fmt: str) -> None:
    ds = load_dataset(write(tmp_path, fmt, ROWS))
    assert [it.id for it in ds.items] == ["(T1)Time_Sensitive_Data_Fetching_165",
                                          "(T1)Time_Sensitive_Data_Fetching_090"]
    assert ds.items[0].fields["answer"] == "$165.88"
    assert str(ds.items[1].fields["n"]) == "2"
    assert set(ds.items[0].fields) == {"prompt_id", "prompt", "answer", "n"}
    assert ds.format == fmt


def test_release_shapes_of_prompt_id() -> None:
    assert normalise_prompt_id(["(T1)X_165"]) == "(T1)X_165"
    assert normalise_prompt_id("['(T1)X_165']") == "(T1)X_165"
    assert normalise_prompt_id("(T1)X_165") == "(T1)X_165"


def test_field_map_and_id_field(tmp_path: Path) -> None:
    rows = [{"key": "a", "answer": "1"}, {"key": "b", "answer": "2"}]
    ds = load_dataset(write(tmp_path, "jsonl", rows), field_map=parse_field_map(
        ["response=answer"]), id_field="key")
    assert [(it.id, it.fields["response"]) for it in ds.items] == [("a", "1"), ("b", "2")]


def test_content_hash_ids_and_version(tmp_path: Path) -> None:
    rows = [{"q": "x"}, {"q": "y"}]
    p = write(tmp_path, "jsonl", rows)
    a, b = load_dataset(p), load_dataset(p)
    assert a.items[0].id == b.items[0].id and a.items[0].id.startswith("h")
    assert a.items[0].id != a.items[1].id
    assert a.version == b.version
    p.write_text(json.dumps({"q": "z"}) + "\n", encoding="utf-8")
    assert load_dataset(p).version != a.version


def test_finsearchcomp_release_file_loads() -> None:
    release = Path(__file__).resolve().parents[3] / "shared/data/finsearchcomp/chat-test.json"
    if not release.exists():
        pytest.skip("shared/ not beside the project")
    ds = load_dataset(release)
    assert [it.id for it in ds.items] == ["(T2)Simple_Historical_Lookup_537",
                                          "(T1)Time_Sensitive_Data_Fetching_165",
                                          "(T1)Time_Sensitive_Data_Fetching_090"]


@pytest.mark.parametrize(("content", "suffix", "message"), [
    ('[{"a": 1},\n {"a": 2,}]', "json", r"d\.json:2: invalid JSON"),
    ('{"a": 1}\n{"a": \n', "jsonl", r"d\.jsonl:2: invalid JSON"),
    ('{"a": 1}\n[1, 2]\n', "jsonl", r"d\.jsonl:2: line is a list"),
    ("a,b\n1,2\n3,4,5\n", "csv", r"d\.csv:3: more values than header"),
    ('"just a string"', "json", r"d\.json:1: expected a list"),
])
def test_bad_input_names_file_and_line(tmp_path: Path, content: str, suffix: str,
                                       message: str) -> None:
    p = tmp_path / f"d.{suffix}"
    p.write_text(content, encoding="utf-8")
    with pytest.raises(DataError, match=message):
        load_dataset(p)


def test_duplicate_ids(tmp_path: Path) -> None:
    p = write(tmp_path, "jsonl", [{"prompt_id": "a"}, {"prompt_id": "b"}, {"prompt_id": "a"}])
    with pytest.raises(DataError, match=r"d\.jsonl:3: duplicate id 'a' \(first at 1\)"):
        load_dataset(p)


def test_missing_required_field(tmp_path: Path) -> None:
    p = write(tmp_path, "jsonl", [{"prompt": "x", "response_reference": "y"}, {"prompt": "z"}])
    with pytest.raises(DataError, match=r"d\.jsonl:2: field 'response_reference': missing"):
        load_dataset(p, required=["prompt", "response_reference"])


def test_missing_mapped_column(tmp_path: Path) -> None:
    p = write(tmp_path, "jsonl", [{"answer": "x"}])
    with pytest.raises(DataError, match=r"no column 'reply' \(mapped by --field response=reply\)"):
        load_dataset(p, field_map={"response": "reply"})


def test_unreadable_and_unsupported(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such file"):
        load_dataset(tmp_path / "nope.json")
    (tmp_path / "d.txt").write_text("x")
    with pytest.raises(DataError, match=r"unsupported format '\.txt'"):
        load_dataset(tmp_path / "d.txt")
    (tmp_path / "bad.xlsx").write_bytes(b"not a zip")
    with pytest.raises(DataError, match=r"bad\.xlsx: cannot read workbook"):
        load_dataset(tmp_path / "bad.xlsx")
    (tmp_path / "latin.jsonl").write_bytes(b'{"a": "\xe9"}\n')
    with pytest.raises(DataError, match=r"latin\.jsonl: not UTF-8"):
        load_dataset(tmp_path / "latin.jsonl")


def test_bad_field_spec() -> None:
    with pytest.raises(DataError, match="NAME=COLUMN"):
        parse_field_map(["response"])
