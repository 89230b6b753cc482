"""The `assay` command. Library errors become one line and an exit code, never a traceback."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from assay import __version__
from assay.core.errors import AssayError

app = typer.Typer(
    name="assay",
    help="Assay (试金石): traceable, executable evaluation of LLMs and agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

DbOption = Annotated[str | None, typer.Option(
    "--db", help="Database URL (default: $ASSAY_DB or sqlite:///.assay/assay.db).")]


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
    dataset: Annotated[Path, typer.Argument(help="Items: .json (FinSearchComp), .jsonl, .csv, "
                                            ".xlsx or .parquet.")],
    responses: Annotated[Path | None, typer.Option(
        "--responses", help="Answers in a separate JSONL/CSV keyed by item id.")] = None,
    evaluator: Annotated[list[str] | None, typer.Option(
        "--evaluator", "-e", help="Evaluator name (repeatable).")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Write one JSON line per item and "
                                             "evaluator here.")] = None,
    field: Annotated[list[str] | None, typer.Option(
        "--field", help="Map a column to a field: NAME=COLUMN (repeatable).")] = None,
    id_field: Annotated[str | None, typer.Option(
        "--id-field", help="Field holding the item id (default: prompt_id, else a hash).")]
        = None,
    response_field: Annotated[str, typer.Option(
        "--response-field", help="Item field holding the answer.")] = "response",
    fail_under: Annotated[float | None, typer.Option(
        "--fail-under", help="Exit 1 when a mean score is below this (for CI).")] = None,
    by: Annotated[str, typer.Option("--by", help="Break the summary down by this item "
                                    "field.")] = "label",
    db: DbOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Score answers that already exist, e.g. with the executable finance rubric."""
    from .score_cmd import run_score

    code = run_score(dataset=dataset, responses=responses,
                     evaluators=evaluator or ["finance-rubric"], out=out, fields=field or [],
                     id_field=id_field, response_field=response_field, fail_under=fail_under,
                     group_by=by, db=db, quiet=quiet)
    raise typer.Exit(code)


evaluators_app = typer.Typer(help="Evaluators and judge templates.", no_args_is_help=True)
app.add_typer(evaluators_app, name="evaluators")


@evaluators_app.command("list")
def evaluators_list() -> None:
    """List code evaluators and judge templates (built-in and ./evaluators/)."""
    from .evaluators_cmd import list_evaluators

    list_evaluators()


@evaluators_app.command("show")
def evaluators_show(name: Annotated[str, typer.Argument(
        help="Evaluator or template name, or a template file.")]) -> None:
    """Show an evaluator: for a judge template, its messages, variables and score range."""
    from .evaluators_cmd import show_evaluator

    show_evaluator(name)


def main() -> None:
    try:
        app()
    except AssayError as exc:
        typer.secho(f"error: {exc}", err=True, fg=typer.colors.RED)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        typer.secho("interrupted: finished results are kept in the store", err=True)
        sys.exit(130)
    except OSError as exc:  # a file the library did not anticipate: still one line
        typer.secho(f"error: {exc}", err=True, fg=typer.colors.RED)
        sys.exit(1)


if __name__ == "__main__":
    main()
