"""A key given twice in one JSON object is found wherever it is (the parsers keep the last one
silently); the quick count that clears almost every file must never clear one that has it."""

from __future__ import annotations

import orjson
import pytest

from assay.datasets.readers import duplicate_key


@pytest.mark.parametrize(("text", "twice"), [
    ('[{"a": 1, "b": 2}, {"a": 1, "a": 3}]', "a"),  # flat rows: one row's duplicate
    ('[{"a": 1, "n": {"x": 1, "x": 2}}]', "x"),  # nested: the inner object's
    ('{"a": [{"k": 1}, {"k": 1, "k": 2}]}', "k"),  # objects in a list in an object
    ('[{"q": "say \\"a\\": 1", "q": 2}]', "q"),  # an escaped quote-colon inside a string
    ('[{"a" : 1, "a" : 2}]', "a"),  # spaced colons: the count misses, the parse finds it
])
def test_a_duplicate_is_found(text: str, twice: str) -> None:
    assert duplicate_key(text.encode(), orjson.loads(text)) == twice


@pytest.mark.parametrize("text", [
    '[{"a": 1, "b": 2}, {"a": 1, "b": 3}]',
    '[{"a": 1, "n": {"x": 1, "y": [{"z": 1}]}}]',
    '[{"q": "say \\"a\\": 1"}]',
    '[{"a" : 1}]',
    '[]', '{}', '3',
])
def test_no_duplicate_no_finding(text: str) -> None:
    assert duplicate_key(text.encode(), orjson.loads(text)) is None
