"""Conversations (core/conversation.py): their messages (`turns`), their per-turn judgments
(`turn_results`), and each conversation's outcome on its answer row (`answers.outcome`).

Revision ID: 0012
Revises: 0011

Additive only: two new tables and a nullable column; rows stored before are one-question
samples and keep NULL for their outcome.
"""

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(JSONB(), "postgresql")


def _call_columns() -> list[sa.Column[Any]]:
    return [sa.Column("cost", sa.Float), sa.Column("prompt_tokens", sa.Integer),
            sa.Column("completion_tokens", sa.Integer), sa.Column("total_tokens", sa.Integer),
            sa.Column("call", Json)]


def _sample() -> list[sa.Column[Any]]:
    return [sa.Column("run_id", sa.String(64), sa.ForeignKey("runs.id"), primary_key=True),
            sa.Column("item_id", sa.String(255), primary_key=True),
            sa.Column("target", sa.String(255), primary_key=True),
            sa.Column("epoch", sa.Integer, primary_key=True),
            sa.Column("turn", sa.Integer, primary_key=True)]


def upgrade() -> None:
    op.add_column("answers", sa.Column("outcome", sa.String(16)))
    op.create_table(
        "turns", *_sample(),
        sa.Column("role", sa.String(16), primary_key=True),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("text", sa.Text), sa.Column("error", sa.Text),
        sa.Column("latency_s", sa.Float), sa.Column("extras", Json),
        sa.Column("truth", Json), sa.Column("ended", sa.String(16)),
        sa.Column("started_at", sa.DateTime(timezone=True)),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
        *_call_columns())
    op.create_table(
        "turn_results", *_sample(),
        sa.Column("evaluator", sa.String(255), primary_key=True),
        sa.Column("evaluator_version", sa.String(64), nullable=False),
        sa.Column("score", sa.Float), sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=False), sa.Column("evidence", Json),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        *_call_columns())


def downgrade() -> None:
    op.drop_table("turn_results")
    op.drop_table("turns")
    with op.batch_alter_table("answers") as batch:
        batch.drop_column("outcome")
