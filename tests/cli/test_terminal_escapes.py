"""Stored text printed to a terminal (issue 27): an answer's escape sequences — clear screen,
window title, clipboard (OSC 52), a one-character CSI, a bidi override — are shown as escapes
by `assay show --item`, not run; the store keeps the text exactly as it came."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from assay.core.text import printable
from tests.cli.test_score_cli import assay
from tests.conftest import SAMPLE

HOSTILE = ("1455.00元\x1b[2J\x1b]0;pwned\x07\x1b]52;c;ZWNobyBoaQ==\x07\x9b31m\u202eevil"
           "\r\x08\x7f")


def test_printable_shows_controls_and_keeps_text_readable() -> None:
    assert printable(HOSTILE) == ("1455.00元\\x1b[2J\\x1b]0;pwned\\x07\\x1b]52;c;ZWNobyBoaQ=="
                                  "\\x07\\x9b31m\\u202eevil\\x0d\\x08\\x7f")
    assert printable("贵州茅台\n\t1,455.00 元 — ok") == "贵州茅台\n\t1,455.00 元 — ok"
    assert printable("plain ascii") == "plain ascii"


def test_show_item_escapes_an_answer_and_the_store_keeps_it(tmp_path: Path) -> None:
    items = json.loads(SAMPLE.read_text("utf-8"))[:1]
    items[0]["response"] = HOSTILE
    items[0]["prompt"] = "茅台\x1b]0;title\x07最新价?"
    data = tmp_path / "d.json"
    data.write_text(json.dumps(items, ensure_ascii=False), "utf-8")
    r = assay("score", str(data), "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    db = sqlite3.connect(tmp_path / ".assay" / "assay.db")
    run_id, = db.execute("SELECT id FROM runs").fetchone()
    item_id = items[0]["prompt_id"]
    r = assay("show", run_id, "--item", item_id, "--full", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for raw in ("\x1b", "\x07", "\x9b", "\u202e", "\x7f", "\x08"):
        assert raw not in out, repr(raw)
    assert "茅台\\x1b]0;title\\x07最新价?" in out
    assert "\\x1b]52;c;ZWNobyBoaQ==\\x07" in out and "\\u202eevil" in out
    # the store holds the answer exactly as it came
    assert db.execute("SELECT text FROM answers").fetchone()[0] == HOSTILE
