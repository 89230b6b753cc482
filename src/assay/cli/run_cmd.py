"""`assay run` and `assay retry`: start or continue an experiment with live progress."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.text import Text

from assay.core.conversation import OUTCOMES
from assay.core.errors import ConfigError
from assay.core.outputs import refuse_inputs
from assay.runner.execute import RunResult, run_experiment
from assay.runner.overrides import Overrides
from assay.runner.pipeline import Progress
from assay.runner.resume import prior_spec
from assay.runner.spec import ExperimentSpec, load_spec, read_files
from assay.store import lease, repo
from assay.store.db import Engine, open_engine, redact, resolve_url, store_file

from .ci_cmd import finish_run
from .costs_view import budget_stop_line, print_costs
from .score_cmd import CiOutputs, _print_summary, check_limits, check_timeout


def run_spec(*, spec: Path | None, resume: str | None, limit: int | None,
             concurrency: int | None, targets: list[str], evaluators: list[str],
             use_cache: bool, models_file: Path | None, db: str | None, quiet: bool,
             ci: CiOutputs | None = None, executor: str | None = None,
             max_cost: float | None = None, timeout_s: float | None = None,
             run_id: str | None = None) -> int:
    if resume is not None and run_id is not None:
        raise ConfigError("--run-id names a new run: not with --resume")
    if concurrency is not None and concurrency < 1:
        raise ConfigError("--concurrency must be at least 1")
    check_limits(max_cost, ci)
    check_timeout(timeout_s)
    if limit is not None and limit < 1:
        raise ConfigError("--limit must be at least 1")
    engine = open_engine(db)
    if resume is not None and (limit or concurrency or targets or evaluators or executor):
        raise ConfigError("--resume continues a run as it was started: it takes no --limit, "
                          "--concurrency, --target, --evaluator or --executor")
    loaded = load_spec(spec) if spec is not None else None
    if ci is not None:  # before anything runs: a CI file never overwrites what the run reads
        refuse_inputs(ci.junit, "--junit", {
            "the spec": spec, "the store": store_file(db),
            **read_files(loaded if loaded is not None else prior_spec(engine, str(resume))),
            "the models file (--models)": models_file})
    overrides = Overrides(limit, concurrency, targets, evaluators, executor=executor,
                          max_cost=max_cost if resume is None else None,
                          timeout_s=timeout_s if resume is None else None)
    return _execute(engine, loaded, overrides, resume, use_cache, models_file, db, quiet, ci,
                    max_cost if resume is not None else None,
                    timeout_s if resume is not None else None, run_id=run_id)


def online_only(run_id: str) -> str:
    return (f"run '{run_id}' is an online run (assay watch): restart `assay watch SPEC` with "
            "its spec to continue it; nothing was changed")


def retry_run(run_id: str, *, models_file: Path | None, db: str | None, quiet: bool,
              timeout_s: float | None = None) -> int:
    check_timeout(timeout_s)
    engine = open_engine(db)
    row = repo.require_run(engine, run_id)
    if row["kind"] == "online":
        raise ConfigError(online_only(run_id))
    if row["status"] == "running":
        raise ConfigError(f"run '{run_id}' is marked running; if its process is gone, "
                          f"continue it with assay run --resume {run_id}")
    with lease.held(engine, run_id):  # nothing is deleted while another process works on it
        answers, results = repo.delete_errors(engine, run_id)
        Console(stderr=True).print(f"retrying run {run_id}: {answers} failed target call(s), "
                                   f"{results} failed result(s)")
        return _execute(engine, None, Overrides(), run_id, True, models_file, db, quiet,
                        timeout_s=timeout_s)


def _execute(engine: Engine, spec: ExperimentSpec | None, overrides: Overrides, resume: str | None,
             use_cache: bool, models_file: Path | None, db: str | None, quiet: bool,
             ci: CiOutputs | None = None, max_cost: float | None = None,
             timeout_s: float | None = None, run_id: str | None = None) -> int:
    console = Console()
    if not console.is_terminal:
        console = Console(width=160)
    err = Console(stderr=True)
    if not err.is_terminal:  # a log file gets whole lines
        err = Console(stderr=True, width=1000)
    started = time.monotonic()

    def line(p: Progress) -> Text:
        fresh = p.done - p.skipped
        rate = fresh / max(1e-9, time.monotonic() - started)
        left = (p.total - p.done) / rate if rate > 0 else float("inf")
        eta = "–" if left == float("inf") else f"{int(left // 60)}:{int(left % 60):02d}"
        return Text(f"run {p.done}/{p.total} samples · {rate:,.1f}/s · ETA {eta} · "
                    f"errors {p.errors} · tokens {p.tokens:,}"
                    + (f" · {p.skipped} already done" if p.skipped else ""))

    progress = Progress()
    with Live(Text(""), console=err, refresh_per_second=4, transient=True,
              auto_refresh=True) as live:
        if quiet or not err.is_terminal:
            live.stop()
        else:
            progress.on_change = lambda p: live.update(line(p))
        result: RunResult = asyncio.run(run_experiment(
            engine, spec, overrides=overrides, resume=resume,
            models_file=models_file, use_cache=use_cache, progress=progress,
            max_cost=max_cost, timeout_s=timeout_s, run_id=run_id))
    for note in result.notes:
        Console(stderr=True, soft_wrap=True, highlight=False).print(
            f"[yellow]warning:[/] {escape(note)}")
    _print_summary(console, result.run_id, result.spec.name, result.total, result.summary,
                   result.spec.group_by)
    for target, counts in result.outcomes.items():  # how the conversations ended
        console.print(f"conversations of {escape(target)}: " + ", ".join(
            f"{n} {outcome}" for outcome, n in sorted(
                counts.items(), key=lambda c: (-c[1], OUTCOMES.index(c[0])
                                               if c[0] in OUTCOMES else len(OUTCOMES)))))
    print_costs(console, result.costs, result.budget)
    if result.otlp:
        err.print(result.otlp)
    if result.stop_reason == "budget":
        err.print(budget_stop_line(result, "run"))
        return 130
    if result.status == "interrupted":
        err.print(f"interrupted: {result.done} of {result.total} samples are stored; continue "
                  f"with: assay run --resume {result.run_id}")
        return 130
    console.print(f"run [bold]{result.run_id}[/] stored in {redact(resolve_url(db))}; "
                  f"explain any item with: assay show {result.run_id} --item ID")
    ci = ci or CiOutputs()
    return finish_run(console, engine, run_id=result.run_id, name=result.spec.name,
                      total=result.total, overall=result.summary.overall,
                      fail_under=ci.fail_under, junit=ci.junit,
                      junit_threshold=ci.junit_threshold, github=ci.github)
