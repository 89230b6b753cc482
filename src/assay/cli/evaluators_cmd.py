"""`assay evaluators list|show`."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from assay.core.errors import ConfigError
from assay.evaluators import registry
from assay.evaluators.judge.templates import get_template, load_template, template_paths


def _console() -> Console:
    console = Console()
    return console if console.is_terminal else Console(width=160)


def list_evaluators() -> None:
    console = _console()
    table = Table(title="evaluators")
    for col in ("name", "kind", "score", "reads"):
        table.add_column(col, no_wrap=col == "name")
    for name in registry.names():
        ev = registry.get(name)
        table.add_row(name, "code", "0, 1 or null", ", ".join(ev.requires))
    for name, path in template_paths().items():
        t = load_template(path)
        table.add_row(name, "judge", escape(t.schema.describe()), ", ".join(t.variables))
    table.add_row("item-judge", "judge", 'integer in [0, 1] or "null"',
                  "the item's judge_system_prompt, judge_prompt_template")
    console.print(table)


def show_evaluator(name: str) -> None:
    console = _console()
    if name in registry.names():
        ev = registry.get(name)
        console.print(f"[bold]{name}[/] (code evaluator, version {ev.version})")
        console.print(f"reads item fields: {', '.join(ev.requires)}")
        return
    if name == "item-judge":
        console.print("[bold]item-judge[/]: uses the item's own judge_system_prompt and "
                      "judge_prompt_template ({var} placeholders); score 0, 1 or \"null\".")
        return
    try:
        t = get_template(name)
    except ConfigError as exc:
        known = ", ".join([*registry.names(), *template_paths(), "item-judge"])
        raise ConfigError(f"{exc}; known: {known}") from None
    console.print(f"[bold]{t.name}[/] (judge template, version {t.version}, {t.source})")
    if t.description:
        console.print(escape(t.description))
    console.print(f"placeholders: {t.syntax}  variables: {', '.join(t.variables)}  "
                  f"score: {escape(t.schema.describe())}")
    for role, text in (("system", t.system), ("user", t.user)):
        if text.strip():
            console.rule(role)
            console.print(escape(text), highlight=False)
