"""`lazy`: a pattern compiled on first use behaves as the compiled one, and is compiled once."""

from __future__ import annotations

import re

import pytest

from assay.core import lazy_pattern
from assay.core.lazy_pattern import lazy


def test_it_reads_as_the_compiled_pattern() -> None:
    text = "AMD $233.40 ▲2.3%, PFE 24.10 (0.7%)"
    source, flags = r"([A-Z]{2,4})\s+\$?(\d+\.\d+)", re.IGNORECASE
    compiled, late = re.compile(source, flags), lazy(source, flags)
    assert late.pattern == source
    assert [m.groups() for m in late.finditer(text)] == [("AMD", "233.40"), ("PFE", "24.10")]
    assert late.findall(text) == compiled.findall(text)
    assert late.sub(r"<\2>", text) == compiled.sub(r"<\2>", text) == "<233.40> ▲2.3%, <24.10> (0.7%)"
    assert late.subn("", text) == compiled.subn("", text)
    assert late.search(text).span() == (0, 11)  # type: ignore[union-attr]
    assert late.match("x") is None and late.fullmatch("PFE 24.10") is not None
    assert late.split("a AMD 1.5 b") == ["a ", "AMD", "1.5", " b"]
    assert late.groups == 2


def test_it_compiles_once_and_only_when_used(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = re.compile

    def counting(pattern: str, flags: int = 0) -> re.Pattern[str]:
        calls.append(pattern)
        return real(pattern, flags)

    monkeypatch.setattr(lazy_pattern.re, "compile", counting)
    late = lazy(r"\d+")
    built_on = lazy(late.pattern + "%")  # reading .pattern compiles nothing
    assert calls == []
    assert late.search("a 12 b") is not None and late.sub("#", "1 and 22") == "# and #"
    assert calls == [r"\d+"]
    assert built_on.findall("5% 6") == ["5%"]
    assert calls == [r"\d+", r"\d+%"]


def test_a_bad_pattern_fails_on_first_use_with_re_s_error() -> None:
    late = lazy("(unclosed")
    with pytest.raises(re.error, match="missing \\)"):
        late.search("x")


def test_every_lazy_pattern_of_the_canonical_form_compiles() -> None:
    """A mistake in a lazy pattern would surface only on the first answer that needs it: every
    one is compiled here."""
    import importlib
    import pkgutil

    import assay.evaluators.canonical as package
    from assay.evaluators.canonical.steps import LineStarts

    found = 0
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, LineStarts):  # a lazy pattern tried at line starts only
                value = value._pattern
            if isinstance(value, lazy_pattern._Lazy):
                assert value.groups >= 0  # compiles it
                found += 1
    assert found == 80
