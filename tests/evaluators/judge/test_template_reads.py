"""A judge template file is parsed again only when its text changed: registry lookups read the
template folders each time (a template added is known at once), `assay run` looks up four
times, and each parse is YAML's."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.core.errors import ConfigError
from assay.evaluators.judge import templates

TEMPLATE = """---
name: my-judge
score: {{min: 0, max: {top}}}
---
[user]
Is {{{{output}}}} right?
"""


def _parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = templates._parse

    def counting(p: Path, text: str) -> templates.Template:
        seen.append(p.name)
        return real(p, text)

    monkeypatch.setattr(templates, "_parse", counting)
    return seen


def test_an_unchanged_file_is_parsed_once(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _parses(monkeypatch)
    path = tmp_path / "my-judge.md"
    path.write_text(TEMPLATE.format(top=1), "utf-8")
    first = templates.load_template(path)
    again = templates.load_template(path)
    assert again == first and seen == ["my-judge.md"]
    assert first.schema.maximum == 1.0
    again.meta["note"] = "mine"  # a caller's change to its template's meta stays its own
    assert "note" not in templates.load_template(path).meta


def test_a_changed_file_is_read_anew_even_of_the_same_size(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _parses(monkeypatch)
    path = tmp_path / "my-judge.md"
    path.write_text(TEMPLATE.format(top=1), "utf-8")
    assert templates.load_template(path).schema.maximum == 1.0
    path.write_text(TEMPLATE.format(top=5), "utf-8")  # same length, at once
    changed = templates.load_template(path)
    assert changed.schema.maximum == 5.0 and len(seen) == 2
    assert changed.version != templates._parse(path, TEMPLATE.format(top=1)).version


def test_a_broken_file_keeps_failing_and_is_read_again_once_mended(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "my-judge.md"
    path.write_text("no front matter", "utf-8")
    for _ in range(2):
        with pytest.raises(ConfigError, match="starts with '---' front matter"):
            templates.load_template(path)
    path.write_text(TEMPLATE.format(top=1), "utf-8")
    assert templates.load_template(path).name == "my-judge"
