"""An item and an answer → the chat messages a judge receives."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay.core.render import render

from .templates import Template

ANSWER_NAMES = ("output", "response")  # the answer fills either name, as the specs use them


def variables_for(template: Template, fields: Mapping[str, Any], answer: str | None,
                  mapping: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Template variable → value. By default a variable takes the item field of the same name,
    and `output`/`response` take the answer; `mapping` (variable → item field) overrides."""
    mapping = mapping or {}
    values: dict[str, Any] = {}
    for name in template.variables:
        if name in mapping:
            values[name] = fields.get(mapping[name])
        elif name in ANSWER_NAMES:
            values[name] = answer if answer is not None else fields.get(name)
        else:
            values[name] = fields.get(name)
    return values


def build_messages(template: Template, fields: Mapping[str, Any], answer: str | None,
                   mapping: Mapping[str, str] | None = None,
                   where: str = "") -> list[dict[str, str]]:
    """Raises ConfigError naming every variable the item cannot fill, before any model call."""
    values = variables_for(template, fields, answer, mapping)
    label = where or f"template {template.name}"
    out = []
    if template.system.strip():
        out.append({"role": "system",
                    "content": render(template.system, values, template.syntax, where=label)})
    out.append({"role": "user",
                "content": render(template.user, values, template.syntax, where=label)})
    return out
