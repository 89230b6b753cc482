"""`assay show` and `assay runs`: a run's summary, and one item's chain from question to score
(question → answer → ground truth → each evaluator's prompt, raw reply and parse → score), with
the spans and their timings."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.tree import Tree

from assay.core.errors import ConfigError
from assay.core.humane import gap as humane_gap
from assay.core.humane import interval, plain, stale
from assay.core.trajectory import ITEM, trajectory_of
from assay.core.types import Answer, Item, is_conversation
from assay.store import repo
from assay.store.db import open_engine
from assay.store.rows import answer_call, result_call

from .terminal import escape

SHORT = 600  # characters of a long prompt shown without --full


def _console() -> Console:
    c = Console()
    return c if c.is_terminal else Console(width=160)


def _clip(text: Any, full: bool, limit: int = SHORT) -> str:
    s = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
    if full or len(s) <= limit:
        return escape(s)
    return escape(s[:limit]) + f"[dim] … ({len(s) - limit:,} more characters; --full)[/]"


def _run_or_fail(engine: Any, run_id: str) -> dict[str, Any]:
    row = repo.require_run(engine, run_id)
    return row


def list_runs(db: str | None, limit: int) -> None:
    engine = open_engine(db)
    table = Table(title="runs, newest first")
    for col in ("run", "kind", "status", "created (UTC)", "dataset"):
        table.add_column(col)
    for r in repo.list_runs(engine, limit):
        table.add_row(r["id"], r["kind"], r["status"], _when(r["created_at"]),
                      escape(r["dataset_ref"] or "") or (r["dataset_id"] or "")[:12])
    _console().print(table)


def _when(t: datetime | None) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S") if t else "–"


def _pct(values: list[float], q: float) -> str:
    if not values:
        return "–"
    values = sorted(values)
    return f"{values[min(len(values) - 1, int(q * len(values)))]:.3f}"


def _when_text(recorded: Any) -> str:
    """An evaluator's `when:` as the manifest keeps it, in one line (`{reference: number}`)."""
    from assay.runner.spec import parse_when

    try:
        return parse_when(recorded).text()
    except ConfigError:
        return str(recorded)


def show_run(run_id: str, db: str | None, by: str | None = None) -> None:
    engine = open_engine(db)
    row = _run_or_fail(engine, run_id)
    m = row["manifest"] or {}
    c = _console()
    c.print(f"[bold]run {run_id}[/] ({row['kind']}) — {row['status']}; created "
            f"{_when(row['created_at'])}, finished {_when(row['finished_at'])}")
    ds = m.get("dataset") or {}
    c.print(f"dataset {escape(str(ds.get('path')))} version {str(ds.get('version'))[:12]}, "
            f"{ds.get('selected', ds.get('items'))} item(s)"
            + (f" (named version {escape(ds['ref'])}, added from {escape(ds['source'])})"
               if ds.get("ref") else ""))
    stop = (row["summary"] or {}).get("stop_reason")
    if row["status"] == "interrupted" and stop:
        c.print(f"interrupted by: {stop}" + (
            f"; continue with: assay {row['kind']} --resume {run_id} --max-cost LARGER"
            if stop == "budget" else f"; continue with: assay {row['kind']} --resume {run_id}"))
    for name, t in (m.get("targets") or {}).items():
        model = t.get("model")
        what = model.get("model") if isinstance(model, dict) else t.get(
            "url") or t.get("function") or t.get("command") or t.get("field")
        c.print(f"target {escape(name)}: {t.get('type')} {escape(str(what))}")
    for ev in m.get("evaluators") or []:
        when = f", when: {_when_text(ev['when'])}" if ev.get("when") else ""
        c.print(f"evaluator {escape(ev['name'])} version {ev['version']}{escape(when)}")
    ex = m.get("executor")
    if isinstance(ex, dict):  # executor: ray — what ran on the workers, what was sent again
        moved = [*ex.get("targets", []), *ex.get("evaluators", [])]
        retried = (row.get("summary") or {}).get("samples_retried", 0)
        c.print(f"executor {ex.get('type')}: {ex.get('workers')} worker(s) ran "
                f"{escape(', '.join(moved))}; {retried} call(s) sent again after a worker "
                "was lost")
    c.print(f"[dim]assay {m.get('assay_version')}, git {plain(m.get('git_commit'))[:12]}, "
            f"python {m.get('python')}, command: {escape(' '.join(m.get('command') or []))}[/]")
    from assay.report.causes import BY_CAUSE

    from .report_cmd import print_aggregates

    # --by cause: the causes finance-cause holds, not an item field of that name
    print_aggregates(run_id, db, None if by == BY_CAUSE else by)
    if by == BY_CAUSE:
        from .causes_view import print_causes

        print_causes(c, engine, run_id)
    answers = repo.list_answers(engine, run_id)
    by_target: dict[str, list[dict[str, Any]]] = {}
    for a in answers:
        by_target.setdefault(a["target"], []).append(a)
    if answers and row["kind"] == "run":
        t2 = Table(title="targets")
        for col in ("target", "answers", "errors", "tokens", "latency p50 s", "p95 s"):
            t2.add_column(col, justify="left" if col == "target" else "right")
        from assay.store.conversations import failed_turns

        failed = failed_turns(engine, run_id)  # a conversation's failed turns are errors too
        for name, rows in by_target.items():
            lat = [a["latency_s"] for a in rows if a["latency_s"] is not None]
            tokens = sum(a["total_tokens"] or 0 for a in rows)
            errors = sum(1 for a in rows if a["error"]) + failed.get(name, 0)
            t2.add_row(escape(name), str(len(rows)), str(errors),
                       f"{tokens:,}", _pct(lat, 0.5), _pct(lat, 0.95))
        c.print(t2)
    from .conversation_view import outcome_table

    outcomes = outcome_table(engine, run_id)
    if outcomes is not None:
        c.print(outcomes)


def show_outcome(run_id: str, outcome: str, db: str | None) -> None:
    """`assay show RUN --outcome OUTCOME`: the conversations that ended so."""
    from .conversation_view import check_outcome, list_by_outcome

    check_outcome(outcome)
    list_by_outcome(_console(), open_engine(db), run_id, outcome)


def show_item(run_id: str, item_id: str, db: str | None, *, full: bool = False) -> None:
    engine = open_engine(db)
    row = _run_or_fail(engine, run_id)
    items = repo.get_items(engine, row["dataset_id"], [item_id])
    if item_id not in items:
        raise ConfigError(f"run '{run_id}' has no item '{item_id}'")
    item = items[item_id]
    c = _console()
    c.rule(f"[bold]{escape(item_id)}[/] in run {run_id}")
    if is_conversation(item):  # turn by turn, then its scores as any item's
        from .conversation_view import print_conversation

        print_conversation(c, engine, run_id, item, clip=_clip, full=full,
                           tool_calls=lambda i, a, indent: _tool_calls(c, i, a, full, indent))
    else:
        _question_and_answers(c, engine, run_id, item, full)
    results = [r for r in repo.list_results(engine, run_id) if r["item_id"] == item_id]
    if results and is_conversation(item):
        c.print("[bold]conversation scores[/] (its judged turns combined)")
    _results(c, results, full)
    spans = repo.list_spans(engine, run_id, item_id)
    if spans:
        c.print(_span_tree(spans))


def _tool_calls(c: Console, item: Item, answer: Answer, full: bool, indent: str = "  ") -> None:
    """The agent's trajectory: the answer's tool calls, else the item's (a watched trace's,
    a dataset's), as the trajectory checks read them."""
    trajectory = trajectory_of(item, answer)
    if trajectory is None:
        return
    if trajectory.source == ITEM and trajectory.calls:
        c.print(f"{indent}[dim]tool calls from {escape(trajectory.where)}[/]")
    for n, tc in enumerate(trajectory.calls, 1):
        out = [] if tc.error is not None and tc.result is None else \
            [_clip(tc.result, full, 200)]
        if tc.error is not None:
            out.append(f"[red]error[/] {_clip(tc.error, full, 200)}")
        c.print(f"{indent}[dim]tool call {n}:[/] {escape(tc.name)} "
                f"{_clip(tc.arguments, full, 200)} → {' '.join(out)}")
    for problem in trajectory.problems:
        c.print(f"{indent}[red]{escape(problem)}[/]")


def _question_and_answers(c: Console, engine: Any, run_id: str, item: Item, full: bool
                          ) -> None:
    """A one-question item: the question, each target's answer, the ground truth."""
    item_id = item.id
    f = item.fields
    question = f.get("prompt", f.get("question", f.get("input")))
    c.print(f"[bold]question[/] {_clip(question, full)}")
    if f.get("response_reference"):
        c.print(f"[bold]reference[/] {_clip(f['response_reference'], full)}")
    answers = [a for a in repo.list_answers(engine, run_id) if a["item_id"] == item_id]
    for a in sorted(answers, key=lambda a: (a["target"], a["epoch"])):
        head = f"[bold]answer[/] from {escape(a['target'])}" + (
            f" (epoch {a['epoch']})" if a["epoch"] else "")
        call = answer_call(a)
        if a["error"]:
            c.print(f"{head}: [red]error[/] {escape(a['error'])}")
        else:
            meta = []
            if a["latency_s"] is not None:
                meta.append(f"{a['latency_s']:.3f} s")
            if call is not None and not call.usage.empty:
                meta.append(f"tokens {call.usage.to_json()}")
            if call is not None and call.cost is not None:
                meta.append(f"cost {call.cost:g}")
            c.print(f"{head}" + (f" [dim]({', '.join(meta)})[/]" if meta else "")
                    + f": {_clip(a['text'], full)}")
        extras = a["extras"] or {}
        if call is not None and call.messages:
            c.print(f"  [dim]prompt sent:[/] {_clip([dict(m) for m in call.messages], full)}")
        _tool_calls(c, item, Answer(a["text"], extras), full)
    snaps = repo.list_truth(engine, run_id, item_id)
    for t in sorted(snaps, key=lambda t: (t["target"], t["epoch"])):
        gap = "" if t["gap_s"] is None else f", {humane_gap(t['gap_s'])}" + (
            " [red](stale: too far from the answer to judge a latest value)[/]"
            if stale(t["gap_s"]) else "")
        c.print(f"[bold]ground truth[/] ({t['mode']}) for {escape(t['target'])}: "
                f"{escape(t['provider'])} {escape(t['instrument'])}"
                + (f" ({t['market']})" if t["market"] else "")
                + f" — {t['status']}" + (f": {escape(t['message'])}" if t["message"] else ""))
        c.print(f"  [dim]query:[/] {escape(t['query'])}; [dim]fetched at[/] "
                f"{_when(t['fetched_at'])} UTC{gap}")
        if t["fields"]:
            c.print(f"  [dim]values:[/] {escape(plain(t['fields']))}")
    truth = f.get("ground_truth")
    if not snaps:
        c.print(f"[bold]ground truth[/] (stored in the item's 'ground_truth' field; recorded "
                f"by the dataset, not fetched): {_clip(_readable(truth), full)}"
                if truth is not None
                else "[bold]ground truth[/]: none in the item")


def _results(c: Console, results: list[dict[str, Any]], full: bool) -> None:
    """Each evaluator's score with its reason, and how it got there."""
    for r in sorted(results, key=lambda r: (r["target"], r["epoch"], r["evaluator"])):
        score = "–" if r["score"] is None else f"{r['score']:g}"
        c.print(f"[bold]{escape(r['evaluator'])}[/] on {escape(r['target'])} → score {score} "
                f"({r['status']}): {escape(r['reason'])}")
        ev = r["evidence"] or {}
        judged = result_call(r)
        if judged is not None and judged.messages:
            for m in judged.messages:
                c.print(f"  [dim]{escape(str(m.get('role')))}:[/] "
                        f"{_clip(m.get('content'), full)}")
            c.print(f"  [dim]raw reply:[/] {_clip(judged.reply, full)}")
            parsed = ev.get("parsed") or ev.get("extraction") or {}
            c.print(f"  [dim]parsed:[/] {escape(plain(parsed))}"
                    + (" [dim](from cache)[/]" if judged.cached else ""))
            spent = [f"tokens {judged.usage.total}"] if judged.usage.total is not None else []
            if judged.cost is not None:
                spent.append(f"cost {judged.cost:g}")
            c.print(f"  [dim]model:[/] {escape(judged.name or judged.model)}"
                    + (f" [dim]({', '.join(spent)})[/]" if spent else ""))
        for v in ev.get("values", []):
            c.print(f"  [dim]value[/] {escape(plain(v.get('text')))} → "
                    f"{escape(plain(v.get('field')))} (via {escape(plain(v.get('via')))}) truth "
                    f"{escape(plain(v.get('truth')))}, accepted "
                    f"{escape(interval(v.get('accepted')))}: "
                    f"{'pass' if v.get('pass') else 'FAIL'}")
        rule = ev.get("rule")
        if isinstance(rule, dict) and rule.get("text"):
            c.print(f"  [dim]rule ({escape(plain(rule.get('kind')))}):[/] "
                    f"{escape(plain(rule['text']))}")
        elif rule:
            c.print(f"  [dim]rule:[/] {escape(plain(rule))}")


def _readable(value: Any) -> str:
    """A field as a person reads it: JSON text (FinSearchComp stores the truth so) as its
    values, anything else as it is."""
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        try:
            return plain(json.loads(value))
        except ValueError:
            return value
    return value if isinstance(value, str) else plain(value)


def _short(value: Any, limit: int = 80) -> str:
    text = str(value)
    return text if len(text) <= limit else text[:limit] + "…"


def _span_tree(spans: list[dict[str, Any]]) -> Tree:
    tree = Tree("[bold]spans[/]")
    by_id = {s["span_id"]: s for s in spans}
    children: dict[str | None, list[dict[str, Any]]] = {}
    for s in spans:
        parent = s["parent_id"] if s["parent_id"] in by_id else None
        children.setdefault(parent, []).append(s)

    def label(s: dict[str, Any]) -> str:
        ms = ((s["end_at"] - s["start_at"]).total_seconds() * 1000 if s["end_at"] else None)
        attrs = s["attributes"] or {}
        extra = {k: v for k, v in attrs.items() if k in ("outcome", "status", "score", "error",
                                                          "mode", "how", "gap_s", "answer",
                                                          "truth")
                 and v is not None}
        if s["kind"] == "tool":  # an agent's tool call: what it was given and returned
            extra.update({k: _short(attrs.get(f"{k}.value")) for k in ("input", "output")
                          if attrs.get(f"{k}.value") is not None})
        colour = "red" if s["status"] == "error" else "green"
        return (f"[{colour}]{escape(s['kind'])}[/] {escape(s['name'])}"
                + (f" {ms:,.1f} ms" if ms is not None else "")
                + (f" [dim]{escape(plain(extra))}[/]" if extra else ""))

    def add(node: Tree, parent: str | None) -> None:
        for s in children.get(parent, []):
            add(node.add(label(s)), s["span_id"])

    add(tree, None)
    return tree
