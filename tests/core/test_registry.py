"""The generic registry: strict names, aliases, close names for a mistake, lazy imports with
the extra to install, recorded arguments and rebuilding from them, listings."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from assay.core.errors import ConfigError
from assay.core.registry import Arg, Built, Registry, built_from
from tests.conftest import ROOT


class Quote:
    """A quote source for tests.

    The second line is not the summary."""

    def __init__(self, *, market: str, timeout_s: float = 30.0) -> None:
        self.market = market
        self.timeout_s = timeout_s


class Other:
    def __init__(self, **options: Any) -> None:
        self.options = options


def agent(ctx: dict[str, Any], *, name: str, folder: Path | None = None) -> SimpleNamespace:
    """An agent built with the run's context."""
    return SimpleNamespace(name=name, folder=folder, ctx=ctx)


def some_function(fields: dict[str, Any]) -> str:
    return "x"


def registry() -> Registry[Any]:
    r: Registry[Any] = Registry("things", noun="thing")
    r.register("quote", Quote, summary="quotes", args=("market", "timeout_s"),
               required=("market",), aliases=("q",))
    return r


def test_build_records_plain_arguments_and_rebuilds_from_them() -> None:
    r = registry()
    made = r.build("quote", market="cn_stock", timeout_s=5)
    assert isinstance(made, Quote) and (made.market, made.timeout_s) == ("cn_stock", 5)
    record = built_from(made)
    assert record == Built("things", "quote", {"market": "cn_stock", "timeout_s": 5})
    stored = json.loads(json.dumps(record.as_dict()))  # as a manifest keeps it
    assert stored == {"registry": "things", "name": "quote",
                      "args": {"market": "cn_stock", "timeout_s": 5}}
    again = r.rebuild(stored)
    assert again is not made and vars(again) == vars(made)
    assert built_from(again) == record
    assert built_from(Quote(market="x")) is None  # not built by a registry


def test_paths_and_functions_are_recorded_as_text_other_objects_refused() -> None:
    r: Registry[Any] = Registry("things", noun="thing")
    r.register("other", Other)
    made = r.build("other", folder=Path("/data/snaps"), fn=some_function,
                   nested={"k": (1, 2)})
    assert built_from(made) == Built("things", "other", {
        "folder": "/data/snaps", "fn": "tests.core.test_registry:some_function",
        "nested": {"k": [1, 2]}})
    with pytest.raises(ConfigError, match=r"thing 'other'\.lock: a lock is not plain data"):
        r.build("other", lock=__import__("threading").Lock())


def test_strict_no_silent_overwrite() -> None:
    r = registry()
    r.register("quote", Quote, summary="quotes", args=("market", "timeout_s"),
               required=("market",), aliases=("q",))  # the same registration again: fine
    with pytest.raises(ConfigError, match=r"thing 'quote' is already registered \(by "
                       r"tests\.core\.test_registry:Quote\); a second registration "
                       r"\(tests\.core\.test_registry:Other\) would replace it silently"):
        r.register("quote", Other)
    with pytest.raises(ConfigError, match="thing 'q' is already registered"):
        r.register("quick", Other, aliases=("q",))  # an alias is taken too
    with pytest.raises(ConfigError, match="thing 'quote' is already registered"):
        r.register("quote", Quote, summary="other words")  # same factory, other entry
    assert r.names() == ["quote"]
    r.remove("q")  # by alias: the entry and its aliases go
    assert r.names() == [] and "q" not in r
    r.register("quote", Other)
    assert isinstance(r.build("quote"), Other)


def test_aliases_build_the_entry_and_record_its_name() -> None:
    r = registry()
    made = r.build("q", market="hk_stock")
    assert built_from(made) == Built("things", "quote", {"market": "hk_stock"})
    assert "q" in r and "quote" in r and "quotes" not in r


def test_unknown_names_and_options_answer_with_close_ones() -> None:
    r = registry()
    r.register("quota", Other)
    with pytest.raises(ConfigError) as err:
        r.build("quot", market="x")
    assert str(err.value) == "unknown thing 'quot'; did you mean quote, quota?"
    with pytest.raises(ConfigError) as err:
        r.build("zebra")
    assert str(err.value) == "unknown thing 'zebra'; known: quote, quota"
    with pytest.raises(ConfigError) as err:
        r.build("quote", markt="x")
    assert str(err.value) == ("thing 'quote': unknown option 'markt'; did you mean market? "
                              "(known: market, timeout_s)")
    with pytest.raises(ConfigError) as err:
        r.build("quote", timeout_s=3)
    assert str(err.value) == "thing 'quote' needs 'market'"


def test_entries_are_imported_only_when_built(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "lazy_zz_provider.py").write_text(
        '"""Never imported by a listing."""\n'
        "class Lazy:\n    def __init__(self, *, n: int = 1) -> None:\n        self.n = n\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    r: Registry[Any] = Registry("things", noun="thing")
    r.register("lazy", "lazy_zz_provider:Lazy", summary="a lazy one", args=("n",))
    assert r.names() == ["lazy"]
    assert r.describe()[0]["summary"] == "a lazy one"
    assert "lazy_zz_provider" not in sys.modules
    assert r.build("lazy", n=3).n == 3
    assert "lazy_zz_provider" in sys.modules
    monkeypatch.delitem(sys.modules, "lazy_zz_provider")


def test_a_missing_optional_package_is_one_line_naming_the_extra() -> None:
    r: Registry[Any] = Registry("providers", noun="ground-truth provider")
    r.register("ghost", "ghost_sdk_zz.client:Ghost", extra="ghost", summary="not installed")
    with pytest.raises(ConfigError) as err:
        r.build("ghost")
    assert str(err.value) == ("ground-truth provider 'ghost' needs the 'ghost_sdk_zz' "
                              "package: pip install '.[ghost]' in Assay's checkout (the "
                              "assay-eval distribution)")
    # declared in `requires`: stopped before the entry's own module is imported
    r.register("ghost2", "tests.core.never_imported_zz:Ghost", requires=("ghost_sdk_zz",),
               hint="it comes with the Ghost terminal")
    with pytest.raises(ConfigError) as err:
        r.build("ghost2")
    assert str(err.value) == ("ground-truth provider 'ghost2' needs the 'ghost_sdk_zz' "
                              "package: it comes with the Ghost terminal")
    # a registration naming a module of Assay's own that is not there is a bug, said so
    r.register("typo", "assay.truth.no_such_module_zz:Thing", extra="ghost")
    with pytest.raises(ConfigError, match=re.escape("ground-truth provider 'typo': cannot "
                                                    "import 'assay.truth.no_such_module_zz'")):
        r.build("typo")
    r.register("noattr", "assay.core.errors:NoSuchFactory")
    with pytest.raises(ConfigError,
                       match=re.escape("'assay.core.errors' has no factory 'NoSuchFactory'")):
        r.build("noattr")


def test_context_goes_to_factories_that_take_it_and_is_not_recorded() -> None:
    r: Registry[Any] = Registry("targets", noun="target type", context=True)
    r.register("agent", agent)
    r.register("quote", Quote, context=False)
    ctx = {"client": object()}
    made = r.build("agent", ctx, name="a1", folder=Path("/tmp/x"))
    assert made.ctx is ctx and made.folder == Path("/tmp/x")
    assert built_from(made) == Built("targets", "agent", {"name": "a1", "folder": "/tmp/x"})
    r.register("plain-dict", dict, context=False)
    with pytest.raises(TypeError, match="dict can hold no build record"):
        r.build("plain-dict")  # a component must be able to say how it was built
    assert r.build("quote", ctx, market="m").market == "m"
    with pytest.raises(ConfigError, match="a record of the things registry cannot be rebuilt "
                       "as one of the targets"):
        r.rebuild({"registry": "things", "name": "quote", "args": {}})
    with pytest.raises(ConfigError, match="not a build record"):
        r.rebuild({"args": {}})


def test_describe_reads_docstrings_and_signatures_when_not_declared() -> None:
    r: Registry[Any] = Registry("targets", noun="target type", context=True)
    r.register("agent", agent, kind="agent", aliases=("a",))
    r.register("quote", Quote, context=False, extra="quotes",
               args=(Arg("market", True, "which market"),), meta={"score": "0 or 1"})
    assert r.describe() == [
        {"name": "agent", "kind": "agent", "summary": "An agent built with the run's context.",
         "args": [{"name": "name", "required": True, "help": ""},
                  {"name": "folder", "required": False, "help": ""}],
         "aliases": ["a"], "requires": [], "extra": None, "hint": None},
        {"name": "quote", "kind": "", "summary": "A quote source for tests.",
         "args": [{"name": "market", "required": True, "help": "which market"}],
         "aliases": [], "requires": [], "extra": "quotes", "hint": None, "score": "0 or 1"}]


def test_sources_add_entries_found_at_lookup_and_may_not_clash() -> None:
    r = registry()
    found: list[str] = ["extra-one"]
    r.add_source(lambda: [r.entry_for(n, Other, kind="found") for n in found])
    assert r.names() == ["quote", "extra-one"]
    assert isinstance(r.build("extra-one"), Other)
    assert r.build("quote", market="m").market == "m"
    found.append("quote")
    with pytest.raises(ConfigError, match=re.escape(
            "thing 'quote' is defined twice: tests.core.test_registry:Quote and "
            "tests.core.test_registry:Other")):
        r.names()


def test_bad_registrations() -> None:
    r: Registry[Any] = Registry("things", noun="thing")
    with pytest.raises(ConfigError, match="thing name 'a b' must be letters"):
        r.register("a b", Other)
    with pytest.raises(ConfigError, match="factory 'nocolon' is not 'module:attribute'"):
        r.register("x", "nocolon")
    with pytest.raises(ConfigError, match=r"required \['url'\] not in its args"):
        r.register("x", Other, args=("method",), required=("url",))


@pytest.mark.process  # python -c: a fresh interpreter
def test_core_imports_nothing_else_of_assay() -> None:
    code = ("import sys, assay.core.registry; "
            "print(sorted(m for m in sys.modules if m.startswith('assay')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    assert out.strip() == "['assay', 'assay.core', 'assay.core.errors', 'assay.core.registry']"
