"""docs/extending.md lists what the registries hold: every target type, provider and evaluator,
with the options each target type and provider takes."""

from __future__ import annotations

import re
from typing import Any

from assay.core.registry import Registry
from assay.evaluators.judge.templates import template_paths
from assay.evaluators.registry import EVALUATORS
from assay.targets.registry import TARGETS
from assay.truth.registry import PROVIDERS
from tests.conftest import ROOT

DOC = (ROOT / "docs" / "extending.md").read_text("utf-8")


def section(title: str) -> str:
    start = DOC.index(f"## {title}")
    end = DOC.find("\n## ", start + 1)
    return DOC[start:end if end > 0 else None]


def rows(text: str) -> dict[str, list[str]]:
    """Table rows: first cell's `name` → the cells."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^\| `([^`]+)` \|(.*)\|$", line)
        if m:
            out[m.group(1)] = [c.strip() for c in m.group(2).split("|")]
    return out


def options(registry: Registry[Any], name: str, skip: str = "name") -> str:
    args = registry.arguments(registry.entry(name)) or ()
    return ", ".join(f"`{a.name}`" + ("*" if a.required else "") for a in args
                     if a.name != skip) or "—"


def test_every_target_type_and_its_options() -> None:
    table = rows(section("Target types"))
    assert list(table) == TARGETS.names()
    for name, cells in table.items():
        assert cells[1] == options(TARGETS, name), name


def test_every_provider_and_its_options() -> None:
    table = rows(section("Ground-truth providers"))
    assert list(table) == PROVIDERS.names()
    for name, cells in table.items():
        assert cells[1] == options(PROVIDERS, name), name


def test_every_evaluator() -> None:
    text = section("Evaluators")
    listed = set(re.findall(r"`([a-z0-9.-]+)`", text))
    assert set(EVALUATORS.names()) <= listed
    assert set(template_paths()) <= listed
