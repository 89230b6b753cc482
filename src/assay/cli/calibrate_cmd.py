"""`assay calibrate RUN --judge EVALUATOR`: an LLM judge measured against the rubric's
decisions on the same items of a stored run.

The command function is defined here and registered in main.py; the store, rich and the
computation are imported when it runs, so `assay --help` stays fast."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from assay.report.calibration import Calibration, Rate


def calibrate(
    run_id: Annotated[str, typer.Argument(help="A run where the rubric and the judge scored "
                                          "the same items.")],
    judge: Annotated[str, typer.Option("--judge", "-j", help="The LLM judge to calibrate, as "
                                       "stored (e.g. item-judge@gpt).")],
    rubric: Annotated[str, typer.Option("--rubric", help="The executable evaluator whose 0/1 "
                                        "decisions are the reference.")] = "finance-rubric",
    show: Annotated[int, typer.Option("--show", help="Differing items to list.")] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="Print the calibration as JSON.")]
        = False,
    db: Annotated[str | None, typer.Option(
        "--db", help="Database URL (default: $ASSAY_DB or sqlite:///.assay/assay.db).")]
        = None,
) -> None:
    """How often an LLM judge agrees with the rules where the rules decide: accuracy,
    false-accept and false-reject rates (95% Wilson intervals), Cohen's κ, differing items."""
    raise typer.Exit(run_calibrate(run_id, judge, rubric, show, as_json, db))


def _console() -> Console:
    from rich.console import Console

    c = Console()
    return c if c.is_terminal else Console(width=160)


def _rate(r: Rate) -> str:
    if r.value is None:
        return "–"
    lo, hi = r.ci or (0.0, 0.0)
    return f"{r.value:.3f}  [{lo:.3f}, {hi:.3f}]  ({r.k}/{r.n})"


def run_calibrate(run_id: str, judge: str, rubric: str, show: int, as_json: bool,
                  db: str | None) -> int:
    from assay.core.errors import ConfigError
    from assay.report.calibration import CalibrationError, load_calibration
    from assay.store import repo
    from assay.store import results as stored
    from assay.store.db import open_engine

    engine = open_engine(db)
    repo.require_run(engine, run_id)
    names = sorted(stored.evaluator_names(engine, run_id))
    for role, name in (("judge", judge), ("rubric", rubric)):
        if name not in names:
            raise ConfigError(f"run {run_id} has no evaluator '{name}' (the {role}); it has "
                              f"{', '.join(names) or 'no results'}")
    if judge == rubric:
        raise ConfigError("--judge and --rubric name the same evaluator")
    try:
        # the JSON lists every difference with its reasons; the table only `show` of them
        cal = load_calibration(engine, run_id, judge, rubric,
                               reasons_for=None if as_json else show)
    except CalibrationError as exc:
        raise ConfigError(str(exc)) from None
    if cal.compared == 0:
        raise ConfigError(f"run {run_id}: no item that {rubric} decided (0 or 1) was also "
                          f"scored 0 or 1 by {judge} ({cal.rubric_decided} decided by the "
                          f"rubric, {cal.judge_missing} of them without a judge score)")
    if as_json:
        print(json.dumps(cal.as_dict(), ensure_ascii=False))
        return 0
    _print(cal, show)
    return 0


def _print(cal: Calibration, show: int) -> None:
    from rich.table import Table

    from .terminal import escape

    c = _console()
    c.print(f"[bold]{escape(cal.judge)}[/] against [bold]{escape(cal.rubric)}[/] in run "
            f"{escape(cal.run_id)}: {cal.compared} item(s) compared of {cal.rubric_decided} "
            f"the rubric decided ({cal.judge_missing} without a judge score)")
    grid = Table(title="judgments (rows: rules, columns: judge)")
    for col in ("", "judge 1", "judge 0"):
        grid.add_column(col, justify="right")
    grid.add_row("rules 1", str(cal.both_pass), str(cal.false_rejects))
    grid.add_row("rules 0", str(cal.false_accepts), str(cal.both_fail))
    c.print(grid)
    t = Table(title="agreement with the rules (95% Wilson intervals)")
    t.add_column("measure")
    t.add_column("value  [95% CI]  (k/n)", justify="right")
    t.add_row("accuracy", _rate(cal.accuracy))
    t.add_row("false-accept rate (judge 1 where rules 0)", _rate(cal.false_accept))
    t.add_row("false-reject rate (judge 0 where rules 1)", _rate(cal.false_reject))
    t.add_row("Cohen's κ", "–" if cal.kappa is None else f"{cal.kappa:.3f}")
    c.print(t)
    if cal.undecided_judged:
        corrected = cal.corrected_undecided_pass_rate()
        c.print(f"items the rules did not decide: {cal.undecided_judged} judged, pass rate "
                f"{cal.undecided_judge_pass / cal.undecided_judged:.3f}"
                + ("" if corrected is None else
                   f"; corrected for the rates above {corrected:.3f}")
                + " (see docs/calibration.md: decided items may be easier)")
    if cal.differences and show > 0:
        c.rule(f"{len(cal.differences)} item(s) where the judge and the rules differ")
        for d in cal.differences[:show]:
            where = "" if not d["target"] or d["target"] == "recorded" else f" [{d['target']}]"
            c.print(f"[bold]{escape(d['item_id'])}[/]{escape(where)}  {d['kind']}: rules "
                    f"{d['rules']}, judge {d['judge']}")
            c.print(f"  rules: {escape(str(d['rules_reason'])[:300])}")
            said = d["judge_reply"] or d["judge_reason"]
            c.print(f"  judge: {escape(' '.join(str(said).split())[:300])}")
        if len(cal.differences) > show:
            c.print(f"… {len(cal.differences) - show} more (--show N)")
