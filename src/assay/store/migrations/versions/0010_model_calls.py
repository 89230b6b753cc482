"""A model call's cost and tokens in columns of their own, on answers and results, and the call
itself as JSON (`call`, core/model_call.py's ModelCall): cost sheets and token counts become
plain column sums instead of reading `extras["cost"]` and `evidence["cost"]` by JSON path.

Revision ID: 0010
Revises: 0009

Rows written before keep their costs and tokens: the new columns are filled from the JSON they
were kept in — an answer's `extras.cost` and `usage`, a judge's `evidence.cost` and
`evidence.usage` (a hybrid's `evidence.extraction.usage`). Only numbers are read (a count: a
whole number from 0 to 2^31 − 1), so no stored value can stop the upgrade. Their `call` stays
NULL: readers take an old row's call from the keys its evidence or extras kept
(store/rows.py), and the rows themselves are not rewritten.
"""

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(JSONB(), "postgresql")
COLUMNS = ("cost", "prompt_tokens", "completion_tokens", "total_tokens", "call")
MAX_COUNT = 2**31 - 1


def _columns() -> list[sa.Column[Any]]:
    return [sa.Column("cost", sa.Float), sa.Column("prompt_tokens", sa.Integer),
            sa.Column("completion_tokens", sa.Integer), sa.Column("total_tokens", sa.Integer),
            sa.Column("call", Json)]


def _number(dialect: str, column: str, path: tuple[str, ...], *, count: bool) -> str:
    """SQL for the number at `path` in a JSON column, else NULL (missing, not a number, not
    valid JSON; for a count also fractional, negative or too large)."""
    if dialect == "postgresql":
        at = "{" + ",".join(path) + "}"
        value = f"({column} #>> '{at}')::numeric"
        if count:
            return (f"CASE WHEN jsonb_typeof({column} #> '{at}') = 'number' THEN CASE WHEN "
                    f"{value} = trunc({value}) AND {value} BETWEEN 0 AND {MAX_COUNT} THEN "
                    f"{value}::integer END END")
        return (f"CASE WHEN jsonb_typeof({column} #> '{at}') = 'number' THEN "
                f"({column} #>> '{at}')::double precision END")
    at = "$." + ".".join(path)
    if count:
        return (f"CASE WHEN json_valid({column}) THEN CASE WHEN json_type({column}, '{at}') = "
                f"'integer' AND json_extract({column}, '{at}') BETWEEN 0 AND {MAX_COUNT} THEN "
                f"json_extract({column}, '{at}') END END")
    return (f"CASE WHEN json_valid({column}) THEN CASE WHEN json_type({column}, '{at}') IN "
            f"('integer', 'real') THEN json_extract({column}, '{at}') END END")


def _first(*sql: str) -> str:
    return sql[0] if len(sql) == 1 else f"COALESCE({', '.join(sql)})"


def _backfill(dialect: str, table: str, cost: tuple[str, str],
              usages: list[tuple[str, tuple[str, ...]]]) -> None:
    """Fill cost and tokens of `table` from `cost` (a JSON column and key) and the first of
    `usages` (a JSON column and the path to a usage object there) that has each count. Only
    rows holding any of them are written; on SQLite a text match finds the candidates before
    any JSON is parsed (a score run's 100,000 code results have neither)."""
    def count(key: str) -> str:
        return _first(*(_number(dialect, c, (*p, key), count=True) for c, p in usages))

    spent = _number(dialect, cost[0], (cost[1],), count=False)
    prompt, completion = count("prompt_tokens"), count("completion_tokens")
    both = f"CAST({prompt} AS BIGINT) + {completion}"  # (no integer overflow on PostgreSQL)
    total = (f"COALESCE({count('total_tokens')}, CASE WHEN {both} <= {MAX_COUNT} THEN "
             f"{prompt} + {completion} END)")
    found = " OR ".join(f"{e} IS NOT NULL" for e in (spent, prompt, completion, total))
    if dialect != "postgresql":
        candidates = " OR ".join(f"{c} LIKE '%{k}%'" for c, k in (
            (cost[0], f'"{cost[1]}"'), *((c, '_tokens"') for c in {c for c, _ in usages})))
        found = f"({candidates}) AND ({found})"
    op.execute(f"UPDATE {table} SET cost = {spent}, prompt_tokens = {prompt}, "
               f"completion_tokens = {completion}, total_tokens = {total} WHERE {found}")


def upgrade() -> None:
    for table in ("answers", "results"):
        for column in _columns():
            op.add_column(table, column)
    dialect = op.get_bind().dialect.name
    _backfill(dialect, "answers", ("extras", "cost"), [("usage", ())])
    _backfill(dialect, "results", ("evidence", "cost"),
              [("evidence", ("usage",)), ("evidence", ("extraction", "usage"))])


def downgrade() -> None:
    for table in ("answers", "results"):
        for column in reversed(COLUMNS):
            op.drop_column(table, column)
