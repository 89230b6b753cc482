"""CLI help on a narrow terminal (issue 28): sentences wrap at the terminal's width, never at a
docstring's line break, for every command and subcommand."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from assay.cli.main import app


def _commands(group: typer.Typer, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = [(*prefix, str(i.name or i.callback.__name__)) for i in group.registered_commands
           if i.callback is not None]
    for sub in group.registered_groups:
        if sub.typer_instance is not None and sub.name:
            out += _commands(sub.typer_instance, (*prefix, sub.name))
    return out


def test_every_command_help_is_paragraphs_of_one_line() -> None:
    helps = []
    for group in [app, *(g.typer_instance for g in app.registered_groups if g.typer_instance)]:
        for info in group.registered_commands:
            helps.append((info.name or (info.callback.__name__ if info.callback else "?"),
                          info.help))
    assert len(helps) == len(_commands(app)) > 25
    for name, text in helps:
        assert text, name
        for paragraph in text.split("\n\n"):
            assert "\n" not in paragraph, (name, paragraph)


@pytest.mark.process  # COLUMNS is read by a fresh process's terminal set-up
def test_the_command_list_wraps_at_80_columns_without_broken_sentences() -> None:
    done = subprocess.run([str(Path(sys.executable).parent / "assay"), "--help"],
                          capture_output=True, text=True, timeout=60, check=False,
                          env={**os.environ, "COLUMNS": "80"})
    rows = [line.strip("│ ").rstrip() for line in done.stdout.splitlines() if "│" in line]
    joined = " ".join(rows)
    assert "the rules decide: accuracy, false-accept and false-reject rates" in joined
    # a wrapped line is full: no row ends after a word with room left for the next one
    calibrate = next(i for i, r in enumerate(rows) if r.startswith("calibrate"))
    assert rows[calibrate + 1].startswith("decide: accuracy, false-accept")
    assert _commands(app)[0][0] == "score"
