"""Ground-truth providers come from one registry: `make_provider`, `assay truth providers` and
the build records read it; a missing data package stops with the extra to install."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from assay.core.errors import ConfigError
from assay.core.registry import built_from
from assay.truth.registry import PROVIDERS, make_provider
from assay.truth.tables import AkshareProvider, SnapshotProvider
from tests.cli.test_score_cli import assay
from tests.truth.conftest import SNAPSHOTS

BUILTIN = ["akshare", "yfinance", "tushare", "wind", "snapshot"]


def test_every_builtin_provider_is_registered() -> None:
    assert PROVIDERS.names() == BUILTIN
    listed = {e["name"]: e for e in PROVIDERS.describe()}
    assert listed["akshare"]["extra"] == "akshare"
    assert listed["akshare"]["requires"] == ["akshare"]
    assert [a["name"] for a in listed["snapshot"]["args"]] == ["snapshots", "date"]
    assert listed["snapshot"]["args"][0]["required"] is True


def test_make_provider_takes_the_options_a_provider_knows_and_records_them() -> None:
    # one set of truth options serves every provider: what a provider does not take is left
    p = make_provider("akshare", snapshots=None, date=None, cache_s=5.0, token_env="X")
    assert isinstance(p, AkshareProvider) and p.cache_s == 5.0
    assert built_from(p).as_dict() == {"registry": "providers",  # type: ignore[union-attr]
                                       "name": "akshare", "args": {"cache_s": 5.0}}
    s = make_provider("snapshot", snapshots=SNAPSHOTS, date="2025-10-17")
    assert isinstance(s, SnapshotProvider)
    record = json.loads(json.dumps(built_from(s).as_dict()))  # type: ignore[union-attr]
    assert record["args"] == {"snapshots": str(SNAPSHOTS), "date": "2025-10-17"}
    again = PROVIDERS.rebuild(record)
    assert isinstance(again, SnapshotProvider) and again.files == s.files
    snaps = [asyncio.run(x.fetch("00700", "hk_stock")) for x in (s, again)]
    assert snaps[0].fields == snaps[1].fields and snaps[0].fields["last"] == "608.0"


def test_unknown_provider_names_the_close_ones() -> None:
    with pytest.raises(ConfigError) as err:
        make_provider("akshar")
    assert str(err.value) == "unknown ground-truth provider 'akshar'; did you mean akshare?"
    with pytest.raises(ConfigError) as err:
        make_provider("bloomberg")
    assert str(err.value) == ("unknown ground-truth provider 'bloomberg'; known: akshare, "
                              "yfinance, tushare, wind, snapshot")
    with pytest.raises(ConfigError, match="the snapshot provider needs a folder"):
        make_provider("snapshot", snapshots=None)


@pytest.mark.parametrize(("name", "module", "how"), [
    ("akshare", "akshare", "pip install '.[akshare]' in Assay's checkout (the assay-eval distribution)"),
    ("yfinance", "yfinance", "pip install '.[yfinance]' in Assay's checkout (the assay-eval distribution)"),
    ("tushare", "tushare", "pip install '.[tushare]' in Assay's checkout (the assay-eval distribution)"),
    ("wind", "WindPy", "WindPy comes with a licensed Wind terminal (it is not on PyPI)"),
])
def test_a_missing_data_package_stops_at_build_naming_the_extra(
        monkeypatch: pytest.MonkeyPatch, name: str, module: str, how: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # as if not installed
    monkeypatch.setenv("TUSHARE_TOKEN", "t")
    with pytest.raises(ConfigError) as err:
        make_provider(name)
    assert str(err.value) == f"ground-truth provider '{name}' needs the '{module}' package: {how}"


def test_cli_lists_the_providers(tmp_path: Path) -> None:
    r = assay("truth", "providers", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for name in BUILTIN:
        assert name in r.stdout
    assert "pip install '.[yfinance]' in Assay's checkout" in r.stdout
    assert "snapshots*" in r.stdout
