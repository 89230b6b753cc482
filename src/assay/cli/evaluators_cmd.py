"""`assay evaluators list|show`, `assay targets list`, `assay truth providers`: listings read
from the registries, so a registered component is listed without touching this file."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from assay.core.errors import ConfigError
from assay.core.registry import Registry, install_hint

from .terminal import escape


def _console() -> Console:
    console = Console()
    return console if console.is_terminal else Console(width=160)


def list_evaluators() -> None:
    from assay.evaluators.registry import EVALUATORS

    table = Table(title="evaluators (* required option)")
    for col in ("name", "kind", "score", "reads", "options", "description"):
        table.add_column(col, no_wrap=col == "name")
    for e in EVALUATORS.describe():
        options = ", ".join(a["name"] + ("*" if a["required"] else "") for a in e["args"])
        table.add_row(e["name"], e["kind"], escape(str(e.get("score", ""))),
                      escape(", ".join(e.get("reads") or ())), escape(options),
                      escape(e["summary"]))
    _console().print(table)


def show_evaluator(name: str) -> None:
    from assay.evaluators.judge.templates import get_template
    from assay.evaluators.registry import EVALUATORS

    console = _console()
    if name not in EVALUATORS and name.lower().endswith((".md", ".yaml", ".yml")):
        _show_template(console, get_template(name))
        return
    entry = EVALUATORS.entry(name)  # unknown: "did you mean …"
    if entry.kind == "judge template":
        _show_template(console, get_template(entry.name))
        return
    info = next(e for e in EVALUATORS.describe() if e["name"] == entry.name)
    version = ""
    if entry.kind == "code":  # builds without a model: its version is worth showing
        try:
            version = f", version {EVALUATORS.build(entry.name).version}"
        except ConfigError:  # a check that needs its arguments (regex: a pattern)
            version = ""
    console.print(f"[bold]{entry.name}[/] ({entry.kind} evaluator{version}): "
                  f"{escape(info['summary'])}")
    if info.get("reads"):
        console.print(f"reads item fields: {', '.join(info['reads'])}")
    if info.get("score"):
        console.print(f"score: {escape(str(info['score']))}")
    _print_args(console, info["args"])


def _show_template(console: Console, t: Any) -> None:
    console.print(f"[bold]{t.name}[/] (judge template, version {t.version}, {t.source})")
    if t.description:
        console.print(escape(t.description))
    console.print(f"placeholders: {t.syntax}  variables: {', '.join(t.variables)}  "
                  f"score: {escape(t.schema.describe())}")
    for role, text in (("system", t.system), ("user", t.user)):
        if text.strip():
            console.rule(role)
            console.print(escape(text), highlight=False)


def _print_args(console: Console, args: list[dict[str, Any]]) -> None:
    for a in args:
        need = " (required)" if a["required"] else ""
        console.print(f"  {a['name']}{need}: {escape(a['help'])}", highlight=False)


def list_entries(registry: Registry[Any], title: str, skip: tuple[str, ...] = ()) -> None:
    """A registry's entries with their options; `*` marks a required one."""
    table = Table(title=title)
    for col in ("name", "kind", "description", "options", "needs"):
        table.add_column(col, no_wrap=col == "name")
    for e in registry.describe():
        options = ", ".join(a["name"] + ("*" if a["required"] else "") for a in e["args"]
                            if a["name"] not in skip)
        install = (install_hint(e["extra"]) if e.get("extra")
                   else e.get("hint") or "")
        table.add_row(e["name"], e["kind"], escape(e["summary"]), options, escape(install))
    _console().print(table)


def list_targets() -> None:
    from assay.targets.registry import TARGETS

    list_entries(TARGETS, "target types (* required)", skip=("name",))


def list_providers() -> None:
    from assay.truth.registry import PROVIDERS

    list_entries(PROVIDERS, "ground-truth providers (* required)")
