"""The `assay` command. Library errors become one line and an exit code, never a traceback."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from assay import __version__
from assay.core.errors import AssayError, ConfigError

app = typer.Typer(
    name="assay",
    help="Assay (试金石): traceable, executable evaluation of LLMs and agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

DbOption = Annotated[str | None, typer.Option(
    "--db", help="Database URL (default: $ASSAY_DB or sqlite:///.assay/assay.db).")]
JunitOption = Annotated[Path | None, typer.Option(
    "--junit", help="Write JUnit XML here: one test case per item and evaluator.")]
JunitThreshold = Annotated[float | None, typer.Option(
    "--junit-threshold", help="In --junit, an item passes at this score (default: its full "
    "score).")]
GithubOption = Annotated[bool, typer.Option(
    "--github", help="Under GitHub Actions: a Markdown step summary and ::error annotations "
    "for failing gates.")]
MaxCostOption = Annotated[float | None, typer.Option(
    "--max-cost", help="Budget in USD: stop before a model request would pass it, from the "
    "registry's prices (with --resume: a new, larger budget).")]
ExecutorOption = Annotated[str | None, typer.Option(
    "--executor", help="local, or ray: Python/command targets and code evaluators on a Ray "
    "cluster (docs/scale.md).")]
TimeoutOption = Annotated[float | None, typer.Option(
    "--timeout", help="Seconds a call of your own code may take on one item (a python target; "
    "a python: check, 60 by default) before that item is an error; replaces the run's "
    "timeout_s, on a resume or retry too.")]
RunIdOption = Annotated[str | None, typer.Option(
    "--run-id", help="Name the new run (letters, digits, . _ -) instead of a random id, e.g. "
    "to compare it later: assay compare base new.")]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"assay {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", callback=_version,
                                                is_eager=True, help="Print the version.")]
          = False) -> None:
    """Assay (试金石): traceable, executable evaluation of LLMs and agents."""


@app.command()
def score(
    dataset: Annotated[Path | None, typer.Argument(
        help="Items: .json (FinSearchComp), .jsonl, .csv, .xlsx or .parquet; or a named "
        "version, NAME@VERSION (assay datasets add).")] = None,
    responses: Annotated[Path | None, typer.Option(
        "--responses", help="Answers in a separate JSONL/CSV keyed by item id.")] = None,
    evaluator: Annotated[list[str] | None, typer.Option(
        "--evaluator", "-e", help="Evaluator name, or python:FILE.py:FUNCTION (repeatable).")]
        = None,
    arg: Annotated[list[str] | None, typer.Option(
        "--arg", help="An evaluator argument, KEY=VALUE (a YAML scalar), or "
        "EVALUATOR.KEY=VALUE when several are given (repeatable).")] = None,
    when: Annotated[list[str] | None, typer.Option(
        "--when", help="Score only the items where a condition holds: KEY=VALUE of the "
        "evaluator's when: (EVALUATOR.KEY=VALUE when several are given; repeatable), e.g. "
        "--when numeric.reference=number; the others are skipped.")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Write one JSON line per item and "
                                             "evaluator here.")] = None,
    field: Annotated[list[str] | None, typer.Option(
        "--field", help="Map a column to a field: NAME=COLUMN (repeatable).")] = None,
    id_field: Annotated[str | None, typer.Option(
        "--id-field", help="Field holding the item id (default: the first of prompt_id, id, item_id "
        "the items have, else a hash).")]
        = None,
    response_field: Annotated[str, typer.Option(
        "--response-field", help="Item field holding the answer.")] = "response",
    fail_under: Annotated[float | None, typer.Option(
        "--fail-under", help="Exit 1 when a mean score is below this (for CI).")] = None,
    by: Annotated[str, typer.Option("--by", help="Break the summary down by this item "
                                    "field; 'cause': count finance-cause's causes per "
                                    "target.")] = "label",
    judge_model: Annotated[str | None, typer.Option(
        "--judge-model", help="Registered model for LLM-judge evaluators (or write "
        "TEMPLATE@MODEL).")] = None,
    no_cache: Annotated[bool, typer.Option(
        "--no-cache", help="Call the judge model even when the same request is cached.")]
        = False,
    models: Annotated[Path | None, typer.Option(
        "--models", help="Model registry file (default: $ASSAY_MODELS or assay-models.yaml).")]
        = None,
    jury: Annotated[str | None, typer.Option(
        "--jury", help="Combine the model judges into one more score: majority or mean.")]
        = None,
    resume: Annotated[str | None, typer.Option(
        "--resume", help="Continue an interrupted score run (no DATASET needed).")] = None,
    junit: JunitOption = None,
    junit_threshold: JunitThreshold = None,
    github: GithubOption = False,
    max_cost: MaxCostOption = None,
    db: DbOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    executor: ExecutorOption = None,
    timeout: TimeoutOption = None,
    run_id: RunIdOption = None,
) -> None:
    """Score answers that already exist, e.g. with the executable finance rubric."""
    from .score_cmd import CiOutputs, run_score

    code = run_score(dataset=dataset, responses=responses, resume=resume,
                     evaluators=evaluator or ["finance-rubric"], args=arg or [],
                     when=when or [], out=out,
                     fields=field or [],
                     id_field=id_field, response_field=response_field, fail_under=fail_under,
                     group_by=by, db=db, quiet=quiet, judge_model=judge_model,
                     use_cache=not no_cache, models_file=models, jury=jury,
                     ci=CiOutputs(junit, junit_threshold, github), executor=executor,
                     max_cost=max_cost, timeout_s=timeout, run_id=run_id)
    raise typer.Exit(code)


@app.command()
def agreement(
    run_id: Annotated[str, typer.Argument(help="A run with two or more evaluators.")],
    evaluator: Annotated[list[str] | None, typer.Option(
        "--evaluator", "-e", help="Compare only these (repeatable).")] = None,
    show: Annotated[int, typer.Option("--show", help="Disagreements to list per pair.")] = 20,
    db: DbOption = None,
) -> None:
    """Percent agreement, Cohen's κ and the disagreeing items for each pair of evaluators."""
    from .agreement_cmd import show_agreement

    show_agreement(run_id, evaluator, show, db)


from .calibrate_cmd import calibrate as _calibrate  # noqa: E402  (a light module)

app.command(name="calibrate")(_calibrate)


@app.command()
def run(
    spec: Annotated[Path | None, typer.Argument(help="Experiment spec (.yaml or .toml).")]
        = None,
    resume: Annotated[str | None, typer.Option(
        "--resume", help="Continue an interrupted run: no finished target call or judgment "
        "is repeated.")] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Only the first N selected "
                                              "items.")] = None,
    concurrency: Annotated[int | None, typer.Option(
        "--concurrency", help="Samples in flight at once.")] = None,
    target: Annotated[list[str] | None, typer.Option(
        "--target", "-t", help="Run only this target of the spec (repeatable).")] = None,
    evaluator: Annotated[list[str] | None, typer.Option(
        "--evaluator", "-e", help="Use these evaluators instead of the spec's (repeatable).")]
        = None,
    no_cache: Annotated[bool, typer.Option(
        "--no-cache", help="Call judge models even when the same request is cached.")] = False,
    models: Annotated[Path | None, typer.Option(
        "--models", help="Model registry file (default: $ASSAY_MODELS or assay-models.yaml).")]
        = None,
    fail_under: Annotated[float | None, typer.Option(
        "--fail-under", help="Exit 1 when a mean score is below this (for CI).")] = None,
    junit: JunitOption = None,
    junit_threshold: JunitThreshold = None,
    github: GithubOption = False,
    max_cost: MaxCostOption = None,
    db: DbOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
    executor: ExecutorOption = None,
    timeout: TimeoutOption = None,
    run_id: RunIdOption = None,
) -> None:
    """Run an experiment: targets answer, evaluators score, every step traced and stored."""
    from .run_cmd import run_spec
    from .score_cmd import CiOutputs

    if (spec is None) == (resume is None):
        from assay.core.errors import ConfigError

        raise ConfigError("give a SPEC to start a run, or --resume RUN_ID to continue one")
    raise typer.Exit(run_spec(spec=spec, resume=resume, limit=limit, concurrency=concurrency,
                              targets=target or [], evaluators=evaluator or [],
                              use_cache=not no_cache, models_file=models, db=db, quiet=quiet,
                              ci=CiOutputs(junit, junit_threshold, github, fail_under),
                              executor=executor, max_cost=max_cost, timeout_s=timeout,
                              run_id=run_id))


@app.command()
def watch(
    spec: Annotated[Path, typer.Argument(help="Watch spec (.yaml): name, source.otlp, sample, "
                                         "filter, evaluators, ground_truth, rubric.")],
    no_cache: Annotated[bool, typer.Option(
        "--no-cache", help="Call judge models even when the same request is cached.")] = False,
    models: Annotated[Path | None, typer.Option(
        "--models", help="Model registry file (default: $ASSAY_MODELS or assay-models.yaml).")]
        = None,
    db: DbOption = None,
) -> None:
    """Score an agent's own OTLP traces as they arrive (an online run; the same name resumes
    it)."""
    from .watch_cmd import run_watch

    raise typer.Exit(run_watch(spec, db=db, models_file=models, use_cache=not no_cache))


@app.command()
def retry(
    run_id: Annotated[str, typer.Argument(help="A run whose failed items should run again.")],
    models: Annotated[Path | None, typer.Option("--models", help="Model registry file.")]
        = None,
    db: DbOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
    timeout: TimeoutOption = None,
) -> None:
    """Re-run only the items of a run that ended in an error (target or evaluator)."""
    from .run_cmd import retry_run

    raise typer.Exit(retry_run(run_id, models_file=models, db=db, quiet=quiet,
                               timeout_s=timeout))


@app.command()
def show(
    run_id: Annotated[str, typer.Argument(help="Run id (see `assay runs`).")],
    item: Annotated[str | None, typer.Option(
        "--item", help="Show this item's whole chain: question, answer, ground truth, each "
        "judgment, spans.")] = None,
    full: Annotated[bool, typer.Option("--full", help="Do not shorten long prompts.")]
        = False,
    by: Annotated[str | None, typer.Option(
        "--by", help="Break the scores down by this item field (label, tags, any field); "
        "'outcome': how each conversation ended; 'cause': count finance-cause's causes per "
        "target.")]
        = None,
    outcome: Annotated[str | None, typer.Option(
        "--outcome", help="List the conversations that ended so: done, transferred, "
        "max_turns, timeout, budget or aborted.")] = None,
    db: DbOption = None,
) -> None:
    """A run's summary, or one item's trace from question to final score (a conversation's
    turn by turn)."""
    from .show_cmd import show_item, show_outcome, show_run

    if outcome is not None:
        if item is not None:
            raise ConfigError("--outcome lists conversations; leave out --item")
        show_outcome(run_id, outcome, db)
    elif item is None:
        show_run(run_id, db, by)
    else:
        show_item(run_id, item, db, full=full)


@app.command()
def replay(
    run_id: Annotated[str, typer.Argument(help="The run to recompute.")],
    fresh: Annotated[bool, typer.Option(
        "--fresh", help="Ask model judges again instead of reading their cached replies.")]
        = False,
    show: Annotated[int, typer.Option("--show", help="Differences to list per evaluator.")]
        = 20,
    models: Annotated[Path | None, typer.Option("--models", help="Model registry file.")]
        = None,
    db: DbOption = None,
    timeout: TimeoutOption = None,
) -> None:
    """Recompute a run's scores from its stored answers and ground truth, without calling
    targets; exit 1 when a code evaluator does not reproduce."""
    from .replay_cmd import replay as do_replay

    raise typer.Exit(do_replay(run_id, fresh=fresh, models_file=models, db=db, show=show,
                               timeout_s=timeout))


@app.command()
def runs(db: DbOption = None,
         limit: Annotated[int, typer.Option("--limit", help="How many, newest first.")] = 20,
         ) -> None:
    """List runs, newest first."""
    from .show_cmd import list_runs

    list_runs(db, limit)


@app.command()
def compare(
    run_ids: Annotated[list[str], typer.Argument(help="Runs to compare; the first is the "
                                                 "baseline.")],
    evaluator: Annotated[list[str] | None, typer.Option(
        "--evaluator", "-e", help="Only these evaluators (default: those all runs have).")]
        = None,
    target: Annotated[list[str] | None, typer.Option(
        "--target", "-t", help="For runs with several targets: one per run, in order.")]
        = None,
    show: Annotated[int, typer.Option("--show", help="Item ids to list per group.")] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON.")]
        = False,
    fail_if_worse: Annotated[bool, typer.Option(
        "--fail-if-worse", help="Exit 1 when a run is significantly worse than the baseline "
        "for some evaluator (McNemar for 0/1 scores, paired bootstrap otherwise).")] = False,
    alpha: Annotated[float, typer.Option("--alpha", help="Significance level of the gate.")]
        = 0.05,
    min_paired: Annotated[int, typer.Option(
        "--min-paired", help="Fewer paired items than this: no verdict (exit 0, said so).")]
        = 10,
    resamples: Annotated[int, typer.Option("--resamples", help="Bootstrap resamples.")]
        = 2000,
    max_drop: Annotated[list[str] | None, typer.Option(
        "--max-drop", help="Exit 1 when an evaluator's mean falls by more than this (0 to 1), "
        "significant or not; EVALUATOR=X for one evaluator. A gate like --fail-if-worse.")]
        = None,
    markdown: Annotated[Path | None, typer.Option(
        "--markdown", help="Write the comparison and verdicts as Markdown to this file (a pull "
        "request comment: gh pr comment --body-file FILE).")] = None,
    junit: JunitOption = None,
    github: GithubOption = False,
    db: DbOption = None,
) -> None:
    """Paired comparison: difference in means with a bootstrap 95% interval, flipped items,
    McNemar's exact test, items present in only one run; with --fail-if-worse or --max-drop,
    a CI gate."""
    from assay.report.gate import MaxDrop

    from .report_cmd import CompareGate
    from .report_cmd import compare as do_compare

    gate = CompareGate(fail_if_worse=fail_if_worse, alpha=alpha, min_paired=min_paired,
                       resamples=resamples, junit=junit, github=github,
                       max_drop=MaxDrop.parse(max_drop or []), markdown=markdown)
    raise typer.Exit(do_compare(run_ids, evaluators=evaluator or [], targets=target or [],
                                db=db, show=show, as_json=as_json, gate=gate))


@app.command()
def review(
    run_id: Annotated[str, typer.Argument(help="The run.")],
    item: Annotated[str | None, typer.Argument(help="The item to correct (omit to list the "
                                               "run's reviews).")] = None,
    evaluator: Annotated[str | None, typer.Option("--evaluator", "-e", help="Whose score.")]
        = None,
    score: Annotated[str | None, typer.Option("--score", help="The corrected score, or "
                                              "null.")] = None,
    reason: Annotated[str | None, typer.Option("--reason", help="Why.")] = None,
    reviewer: Annotated[str | None, typer.Option("--reviewer", help="Who.")] = None,
    target: Annotated[str | None, typer.Option("--target", help="For runs with several "
                                               "targets.")] = None,
    epoch: Annotated[int, typer.Option("--epoch", help="For runs with repeats.")] = 0,
    db: DbOption = None,
) -> None:
    """Override one score with a reason and a name; the raw score is kept beside it."""
    from .report_cmd import review as do_review

    raise typer.Exit(do_review(run_id, item, evaluator=evaluator, score=score, reason=reason,
                               reviewer=reviewer, target=target, epoch=epoch, db=db))


@app.command()
def export(
    run_id: Annotated[str, typer.Argument(help="The run.")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="csv, jsonl, parquet or xlsx.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The file to write.")],
    db: DbOption = None,
) -> None:
    """One row per item and evaluator with provenance: answer, ground truth (provider, time),
    judge reply, reason, status, correction."""
    from .report_cmd import export as do_export

    raise typer.Exit(do_export(run_id, fmt, out, db))


@app.command()
def report(
    run_id: Annotated[str, typer.Argument(help="The run.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The HTML file to write.")]
        = Path("report.html"),
    compare_with: Annotated[list[str] | None, typer.Option(
        "--compare", help="Compare with this run (repeatable); this run is the baseline.")]
        = None,
    by: Annotated[str, typer.Option("--by", help="Break scores down by this item field.")]
        = "label",
    limit: Annotated[int, typer.Option("--items", help="Per-item rows in the report "
                                       "(failures first).")] = 2000,
    db: DbOption = None,
) -> None:
    """A self-contained HTML report that opens offline: summary, charts, per-item table whose
    rows expand to the trace."""
    from .report_cmd import report as do_report

    raise typer.Exit(do_report(run_id, compare_with or [], out, db, by, limit))


@app.command()
def view(
    host: Annotated[str, typer.Option("--host", help="Address to listen on; anything but "
                                      "127.0.0.1 needs $ASSAY_UI_TOKEN.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port.")] = 8600,
    models: Annotated[Path | None, typer.Option("--models", help="Model registry file.")]
        = None,
    db: DbOption = None,
) -> None:
    """The web UI: runs, filters, item traces, comparisons, review; and the JSON API."""
    import os

    from assay.store.db import open_engine
    from assay.web.app import check_bind, serve

    token = os.environ.get("ASSAY_UI_TOKEN") or None
    check_bind(host, token)  # refused before its URL is printed
    engine = open_engine(db)
    typer.echo(f"Assay UI on http://{host}:{port}/" + (" (token required)" if token else ""))
    serve(engine, host=host, port=port, token=token, models_file=models)


truth_app = typer.Typer(help="Ground truth: fetch quotes with their provenance.",
                        no_args_is_help=True)
app.add_typer(truth_app, name="truth")


@truth_app.command("fetch")
def truth_fetch(
    provider: Annotated[str, typer.Option(
        "--provider", "-p", help="akshare, yfinance, tushare, wind or snapshot.")],
    instrument: Annotated[str, typer.Option(
        "--instrument", "-i", help="The provider's exact code: 600519, 00700, 105.AAPL, HSI, "
        "USDCNH, AAPL (yfinance), 600519.SH (tushare, wind).")],
    market: Annotated[str | None, typer.Option(
        "--market", help="For akshare/snapshot: cn_stock, hk_stock, us_stock, index, fx, "
        "cny_onshore, sge_benchmark, comex.")] = None,
    tags: Annotated[str | None, typer.Option(
        "--tags", help="Or the item's tags (Stock, Index, 汇率) to tell the market.")] = None,
    snapshots: Annotated[Path | None, typer.Option(
        "--snapshots", help="Folder of recorded tables, for --provider snapshot.")] = None,
    date: Annotated[str | None, typer.Option(
        "--date", help="With --snapshots: the tables of this day (YYYY-MM-DD).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the snapshot as JSON.")]
        = False,
) -> None:
    """Fetch one quote and print it normalised, with provider, query and fetch time; exit 1
    when the snapshot is empty or an error."""
    from .truth_cmd import fetch

    raise typer.Exit(fetch(provider=provider, instrument=instrument, market=market, tags=tags,
                           snapshots=snapshots, date=date, as_json=as_json))


@truth_app.command("providers")
def truth_providers() -> None:
    """List the ground-truth providers, their options and the extra each needs."""
    from .evaluators_cmd import list_providers

    list_providers()


targets_app = typer.Typer(help="Target types: what answers an item in `assay run`.",
                          no_args_is_help=True)
app.add_typer(targets_app, name="targets")


@targets_app.command("list")
def targets_list() -> None:
    """List the target types a spec may use, with their options."""
    from .evaluators_cmd import list_targets

    list_targets()


evaluators_app = typer.Typer(help="Evaluators and judge templates.", no_args_is_help=True)
app.add_typer(evaluators_app, name="evaluators")


@evaluators_app.command("list")
def evaluators_list() -> None:
    """List evaluators: code, judge templates (built-in and ./evaluators/), hybrids, juries."""
    from .evaluators_cmd import list_evaluators

    list_evaluators()


@evaluators_app.command("show")
def evaluators_show(name: Annotated[str, typer.Argument(
        help="Evaluator or template name, or a template file.")]) -> None:
    """Show an evaluator: for a judge template, its messages, variables and score range."""
    from .evaluators_cmd import show_evaluator

    show_evaluator(name)


examples_app = typer.Typer(help="The bundled examples: sample data, specs, a CI workflow.",
                           no_args_is_help=True)
app.add_typer(examples_app, name="examples")


@examples_app.command("copy")
def examples_copy(
    dest: Annotated[Path, typer.Argument(help="A new (or empty) folder.")] = Path(
        "assay-examples"),
) -> None:
    """Copy the examples into DEST, to run and edit them (a wheel ships them too)."""
    from .examples_cmd import copy

    raise typer.Exit(copy(dest))


datasets_app = typer.Typer(help="Named dataset versions: add a file under a name, list, show.",
                           no_args_is_help=True)
app.add_typer(datasets_app, name="datasets")


@datasets_app.command("add")
def datasets_add(
    name: Annotated[str, typer.Argument(help="A name for the dataset (letters, digits, . _ -).")],
    file: Annotated[Path | None, typer.Argument(
        help="Items: .json, .jsonl, .csv, .xlsx or .parquet (or --from-run).")] = None,
    field: Annotated[list[str] | None, typer.Option(
        "--field", help="Map a column to a field: NAME=COLUMN (repeatable).")] = None,
    id_field: Annotated[str | None, typer.Option(
        "--id-field", help="Field holding the item id (default: the first of prompt_id, id, "
        "item_id the items have, else a hash).")] = None,
    from_run: Annotated[str | None, typer.Option(
        "--from-run", help="Take the items from a run (also an online run's traces): each "
        "item's fields, the answer as `response`, the captured truth as `ground_truth`.")]
        = None,
    target: Annotated[str | None, typer.Option(
        "--target", help="With --from-run, for runs with several targets: whose answers.")]
        = None,
    as_reference: Annotated[bool, typer.Option(
        "--as-reference", help="With --from-run: the answer is also the reference_output "
        "(what the agent said then is what it must say again).")] = False,
    db: DbOption = None,
) -> None:
    """Store the file's items (or a run's samples) as NAME's next version (none when the
    content is unchanged)."""
    from .datasets_cmd import add, add_run

    if (file is None) == (from_run is None):
        raise ConfigError("give a FILE or --from-run RUN (one of them)")
    if from_run is not None:
        if field or id_field:
            raise ConfigError("--field and --id-field map a file's columns: not with --from-run")
        raise typer.Exit(add_run(name, from_run, target, as_reference, db))
    if target is not None or as_reference:
        raise ConfigError("--target and --as-reference go with --from-run")
    assert file is not None
    raise typer.Exit(add(name, file, field or [], id_field, db))


@datasets_app.command("list")
def datasets_list(db: DbOption = None) -> None:
    """List named datasets with their latest version."""
    from .datasets_cmd import list_all

    raise typer.Exit(list_all(db))


@datasets_app.command("show")
def datasets_show(
    ref: Annotated[str, typer.Argument(help="NAME (its versions) or NAME@VERSION.")],
    items: Annotated[int, typer.Option("--items", help="Items to list.")] = 10,
    db: DbOption = None,
) -> None:
    """A name's versions, or one version: items, content hash, source file, runs that used it."""
    from .datasets_cmd import show as do_show

    raise typer.Exit(do_show(ref, db, items))


models_app = typer.Typer(help="The model registry (OpenAI-compatible endpoints).",
                         no_args_is_help=True)
app.add_typer(models_app, name="models")
ModelsFile = Annotated[Path | None, typer.Option(
    "--models", help="Registry file (default: $ASSAY_MODELS or assay-models.yaml).")]


@models_app.command("add")
def models_add(
    name: Annotated[str, typer.Argument(help="A name to refer to this model by.")],
    model: Annotated[str, typer.Option("--model", help="The endpoint's model id.")],
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible "
                                                 "base URL, e.g. http://127.0.0.1:8000/v1.")]
        = None,
    preset: Annotated[str | None, typer.Option(
        "--preset", help="Base URL and key variable of a known provider: openai, deepseek, "
        "qwen, doubao, moonshot, zhipu, ollama, vllm, llamacpp.")] = None,
    api_key_env: Annotated[str | None, typer.Option(
        "--api-key-env", help="NAME of the environment variable holding the key.")] = None,
    param: Annotated[list[str] | None, typer.Option(
        "--param", help="Request parameter k=v (repeatable), e.g. temperature=0.")] = None,
    max_concurrency: Annotated[int, typer.Option("--max-concurrency")] = 8,
    rpm: Annotated[int | None, typer.Option("--rpm", help="Requests per minute: request "
                                            "starts are spaced 60/N seconds apart.")] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds per request.")] = 60.0,
    max_retries: Annotated[int, typer.Option("--max-retries")] = 4,
    price_in: Annotated[float | None, typer.Option(
        "--price-in", help="Price per million input tokens (for cost figures).")] = None,
    price_out: Annotated[float | None, typer.Option(
        "--price-out", help="Price per million output tokens.")] = None,
    json_mode: Annotated[bool, typer.Option(
        "--json-mode", help="Ask judges to reply in JSON (response_format), where supported.")]
        = False,
    stream: Annotated[bool, typer.Option(
        "--stream", help="Stream replies (server-sent events) and assemble them.")] = False,
    replace: Annotated[bool, typer.Option("--replace", help="Overwrite an existing entry.")]
        = False,
    models: ModelsFile = None,
) -> None:
    """Register an OpenAI-compatible model (only the key's variable NAME is stored)."""
    from .models_cmd import add_model

    add_model(name=name, model=model, base_url=base_url, preset=preset,
              api_key_env=api_key_env, params=param or [], max_concurrency=max_concurrency,
              rpm=rpm, timeout=timeout, max_retries=max_retries, replace=replace,
              models_file=models, price_in=price_in, price_out=price_out, json_mode=json_mode,
              stream=stream)


@models_app.command("list")
def models_list(models: ModelsFile = None) -> None:
    """List registered models."""
    from .models_cmd import list_models

    list_models(models)


@models_app.command("show")
def models_show(name: str, models: ModelsFile = None) -> None:
    """Show one model's settings (never its key)."""
    from .models_cmd import show_model

    show_model(name, models)


@models_app.command("test")
def models_test(name: str, models: ModelsFile = None,
                prompt: Annotated[str, typer.Option("--prompt")] = "Reply with: ok") -> None:
    """Send one request; print latency, tokens and the reply."""
    from .models_cmd import test_model

    raise typer.Exit(test_model(name, prompt, models))


@models_app.command("remove")
def models_remove(name: str, models: ModelsFile = None) -> None:
    """Remove a model from the registry."""
    from .models_cmd import remove_model

    remove_model(name, models)


def _error_line(exc: BaseException) -> str:
    """One line for an error: any secret Assay sent is masked, text no terminal encoding can
    hold is replaced and control characters (a file's or an answer's, quoted in the message)
    are shown as escapes, not run (assay.core.secrets, assay.core.text)."""
    from assay.core import secrets
    from assay.core.text import printable, safe_text

    return printable(safe_text(secrets.mask(f"error: {exc}"))[0])


def _one_line_paragraphs(group: typer.Typer) -> None:
    """Commands' help from their docstrings, each paragraph joined into one line: the terminal
    wraps it at its own width (a docstring's line breaks, kept, broke sentences mid-way on an
    80-column terminal)."""
    for info in group.registered_commands:
        doc = info.help or (info.callback.__doc__ if info.callback else None)
        if doc:
            info.help = "\n\n".join(" ".join(p.split()) for p in doc.strip().split("\n\n"))
    for sub in group.registered_groups:
        if sub.typer_instance is not None:
            _one_line_paragraphs(sub.typer_instance)


_one_line_paragraphs(app)


def main() -> None:
    try:
        app()
    except AssayError as exc:
        typer.secho(_error_line(exc), err=True, fg=typer.colors.RED)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        typer.secho("interrupted: finished results are kept in the store", err=True)
        sys.exit(130)
    except OSError as exc:  # a file the library did not anticipate: still one line
        typer.secho(_error_line(exc), err=True, fg=typer.colors.RED)
        sys.exit(1)


if __name__ == "__main__":
    main()
