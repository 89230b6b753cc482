"""A CSV field over the csv module's 128 KiB default (a long agent answer) is read whole
(issue 27); a field past Assay's own limit is one line naming the file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.core.errors import DataError
from assay.datasets import readers
from assay.datasets.loader import load_dataset


def test_a_field_over_128_kib_is_read_whole(tmp_path: Path) -> None:
    answer = "最新价1455.00元。" * 20_000  # ~260 KB in UTF-8, 240,000 characters
    p = tmp_path / "d.csv"
    p.write_text(f'id,prompt,response\na1,q,"{answer}"\n', "utf-8")
    ds = load_dataset(p, id_field="id")
    assert [it.fields["response"] for it in ds.items] == [answer]


def test_a_field_past_the_limit_is_one_line(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import csv

    monkeypatch.setattr(readers, "CSV_FIELD_LIMIT", 1000)
    previous = csv.field_size_limit(1000)
    try:
        p = tmp_path / "d.csv"
        p.write_text('id,prompt\na1,q\na2,"' + "x" * 2000 + '"\n', "utf-8")
        with pytest.raises(DataError) as err:
            load_dataset(p, id_field="id")
        assert str(err.value).startswith(f"{p}:3: not readable as CSV: field larger than "
                                         "field limit (1000)")
    finally:
        csv.field_size_limit(previous)


def test_a_quote_never_closed_is_one_line_not_the_rest_of_the_file_swallowed(
        tmp_path: Path) -> None:
    """L10 (review of issue 27): item 2 vanished into item 1's field, 1 item scored, exit 0."""
    p = tmp_path / "d.csv"
    p.write_text('id,prompt,response\n1,q,"never closed\n2,q,x\n', "utf-8")
    with pytest.raises(DataError) as err:
        load_dataset(p, id_field="id")
    assert str(err.value) == f"{p}:2: not readable as CSV: unexpected end of data"  # its row


def test_a_key_given_twice_in_json_lines_or_json_is_one_line(tmp_path: Path) -> None:
    """L11 (review of issue 27): the last of two `ground_truth` keys silently won."""
    p = tmp_path / "d.jsonl"
    p.write_text('{"id": "a", "prompt": "q"}\n'
                 '{"id": "b", "prompt": "q", "x": {"k": 1, "k": 2}}\n', "utf-8")
    with pytest.raises(DataError) as err:
        load_dataset(p, id_field="id")
    assert str(err.value) == f"{p}:2: key 'k' given twice (JSON keeps only the last): remove one"
    j = tmp_path / "d.json"
    j.write_text('[{"id": "a", "prompt": "q", "prompt": "r"}]', "utf-8")
    with pytest.raises(DataError) as err:
        load_dataset(j, id_field="id")
    assert str(err.value).startswith(f"{j}: key 'prompt' given twice in one object")
    ok = tmp_path / "ok.jsonl"  # a quote and a colon inside a value are no key
    ok.write_text('{"id": "a", "prompt" : "q", "gt": "{\\"x\\": 1}", "n": [{"id": 1}]}\n',
                  "utf-8")
    assert [it.fields["gt"] for it in load_dataset(ok, id_field="id").items] == ['{"x": 1}']
