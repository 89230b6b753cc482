from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "finsearch_t1_sample.json"
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture()
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'assay.db'}"


@pytest.fixture()
def openai_server():  # type: ignore[no-untyped-def]
    from tests.openai_server import OpenAIServer

    server = OpenAIServer().start()
    yield server
    server.stop()
