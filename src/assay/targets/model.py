"""`model`: a registered model and a prompt template (system prompt, user template).

The template uses `{field}` (or `{{field}}`) placeholders filled from the item, like a judge
template; a field the item lacks stops the run before any call, naming the item."""

from __future__ import annotations

from typing import Any

from assay.core.conversation import history_of
from assay.core.errors import ConfigError
from assay.core.render import DOUBLE, SINGLE, placeholders, render
from assay.core.types import Answer, Item
from assay.models.client import ModelClient

from .base import TargetContext, mapping_option
from .boundary import settled


class ModelTarget:
    kind = "model"

    def __init__(self, name: str, client: ModelClient, *, prompt: str = "{prompt}",
                 system: str | None = None, params: dict[str, Any] | None = None,
                 placeholders_syntax: str | None = None) -> None:
        self.name = name
        self.client = client
        self.prompt = prompt
        self.system = system
        self.params = dict(params or {})
        both = (system or "") + "\n" + prompt
        self.syntax = placeholders_syntax or (DOUBLE if "{{" in both else SINGLE)
        if self.syntax not in (SINGLE, DOUBLE):
            raise ConfigError(f"target '{name}': placeholders must be single or double")
        self.variables = tuple(placeholders(both, self.syntax))

    def public(self) -> dict[str, Any]:
        return {"type": self.kind, "model": self.client.public, "prompt": self.prompt,
                "system": self.system, "params": self.params, "placeholders": self.syntax}

    def messages(self, item: Item) -> list[dict[str, str]]:
        where = f"target {self.name}, item {item.id} (line {item.line})"
        out = []
        history = history_of(item)
        if history is not None:  # a conversation's turn: the history as messages
            if self.system:
                out.append({"role": "system", "content": render(
                    self.system, item.fields, self.syntax, where=where)})
            return out + history
        if self.system:
            out.append({"role": "system",
                        "content": render(self.system, item.fields, self.syntax, where=where)})
        out.append({"role": "user",
                    "content": render(self.prompt, item.fields, self.syntax, where=where)})
        return out

    async def answer(self, item: Item) -> Answer:
        messages = self.messages(item)
        c = await self.client.chat(messages, self.params)
        call = self.client.call_of(messages, c)
        extras: dict[str, Any] = {}
        if c.empty:  # the model answered nothing, every retry: scored as such, and flagged
            extras["empty_reply"] = True
        return settled(Answer(c.text, extras, c.latency_s, None, c.error, call),
                       sanitized=c.sanitized)

    async def close(self) -> None:
        pass  # the client is shared and closed by its owner


def build(ctx: TargetContext, *, name: str, model: str, prompt: str = "{prompt}",
          system: str | None = None, params: dict[str, Any] | None = None,
          placeholders: str | None = None) -> ModelTarget:
    checked = mapping_option(params, "params", name)  # before a client is made for it
    return ModelTarget(name, ctx.client(str(model)), prompt=str(prompt), system=system,
                       params=checked, placeholders_syntax=placeholders)
