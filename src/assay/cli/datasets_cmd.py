"""`assay datasets add / list / show`: named dataset versions."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from assay.datasets.loader import parse_field_map
from assay.datasets.named import add_named, parse_ref
from assay.store import dataset_names as names
from assay.store.db import open_engine

from .terminal import escape


def _console() -> Console:
    c = Console()
    return c if c.is_terminal else Console(width=1000)


def _when(v: names.NamedVersion) -> str:
    return v.created_at.strftime("%Y-%m-%d %H:%M:%S")


def add(name: str, file: Path, fields: list[str], id_field: str | None, db: str | None) -> int:
    engine = open_engine(db)
    v, new = add_named(engine, name, file, field_map=parse_field_map(fields), id_field=id_field)
    c = _console()
    if new:
        c.print(f"{escape(v.ref)}: {v.n_items} item(s) from {escape(str(file))} (content "
                f"{v.dataset_id[:12]}); use it in a spec as dataset: {escape(v.ref)}")
    else:
        c.print(f"{escape(v.ref)} unchanged: {escape(str(file))} has the content of the latest "
                f"version ({v.dataset_id[:12]}), so no new version was made")
    return 0


def add_run(name: str, run_id: str, target: str | None, reference: bool,
            db: str | None) -> int:
    from assay.datasets.from_run import add_from_run

    done = add_from_run(open_engine(db), name, run_id, target=target, reference=reference)
    v = done.version
    c = _console()
    failed = f"; {done.skipped} sample(s) whose target failed left out" if done.skipped else ""
    if done.new:
        c.print(f"{escape(v.ref)}: {done.items} item(s) from run {escape(run_id)} (content "
                f"{v.dataset_id[:12]}){failed}; use it in a spec as dataset: {escape(v.ref)}")
    else:
        c.print(f"{escape(v.ref)} unchanged: run {escape(run_id)} gives the content of the "
                f"latest version ({v.dataset_id[:12]}), so no new version was made{failed}")
    return 0


def list_all(db: str | None) -> int:
    rows = names.latest_versions(open_engine(db))
    t = Table(title="named datasets (latest version of each)")
    for col in ("name", "latest", "versions", "items", "content", "added (UTC)", "from"):
        t.add_column(col, justify="right" if col in ("latest", "versions", "items") else "left")
    for v, n in rows:
        t.add_row(escape(v.name), str(v.version), str(n), str(v.n_items), v.dataset_id[:12],
                  _when(v), escape(v.source))
    _console().print(t)
    if not rows:
        _console().print("no named datasets yet: assay datasets add NAME FILE")
    return 0


def show(ref: str, db: str | None, items: int) -> int:
    engine = open_engine(db)
    name, version = parse_ref(ref)
    c = _console()
    if version is None and "@" not in ref:  # NAME: its versions
        all_versions = names.versions(engine, name)
        if not all_versions:
            names.resolve(engine, name)  # the one-line error, with close names
        t = Table(title=f"dataset {name}: versions")
        for col in ("version", "items", "content", "added (UTC)", "from", "runs"):
            t.add_column(col, justify="right" if col in ("version", "items", "runs")
                         else "left")
        for v in all_versions:
            t.add_row(str(v.version), str(v.n_items), v.dataset_id[:12], _when(v),
                      escape(v.source), str(len(names.runs_using(engine, v.ref))))
        c.print(t)
        return 0
    v = names.resolve(engine, name, version)
    c.print(f"[bold]{escape(v.ref)}[/]: {v.n_items} item(s), {v.format}, content "
            f"{v.dataset_id}, added {_when(v)} UTC from {escape(v.source)}")
    rows = names.stored_items(engine, v.dataset_id)
    for it in rows[:items]:
        text = str(it.get("prompt", it.get("question", it.get("input", ""))))
        c.print(f"  {escape(it.id)}: {escape(text[:100])}")
    if len(rows) > items:
        c.print(f"  … and {len(rows) - items} more")
    used = names.runs_using(engine, v.ref)
    if used:
        c.print("runs: " + ", ".join(f"{r['id']} ({r['status']})" for r in used))
    return 0


