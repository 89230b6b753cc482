"""Experiments: an answer and its results belong to a sample — (item, target, epoch) — so one
run can hold several targets and repeats. Answers also record when the target started and
finished.

Revision ID: 0003
Revises: 0002

The primary key and the unique constraint change, which SQLite cannot alter in place: each table
is rebuilt (create, copy, drop, rename), the portable way that works on PostgreSQL too.
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "answers_v3",
        sa.Column("run_id", sa.String(64), sa.ForeignKey("runs.id"), nullable=False),
        sa.Column("item_id", sa.String(255), nullable=False),
        sa.Column("target", sa.String(255), nullable=False),
        sa.Column("epoch", sa.Integer, nullable=False, server_default="0"),
        sa.Column("text", sa.Text),
        sa.Column("error", sa.Text),
        sa.Column("latency_s", sa.Float),
        sa.Column("usage", Json),
        sa.Column("extras", Json),
        sa.Column("started_at", sa.DateTime(timezone=True)),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
        sa.PrimaryKeyConstraint("run_id", "item_id", "target", "epoch", name="pk_answers"),
    )
    op.execute("INSERT INTO answers_v3 (run_id, item_id, target, epoch, text, error, latency_s, "
               "usage, extras) SELECT run_id, item_id, target, 0, text, error, latency_s, usage, "
               "extras FROM answers")
    op.drop_table("answers")
    op.rename_table("answers_v3", "answers")

    op.create_table(
        "results_v3",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.String(64), sa.ForeignKey("runs.id"), nullable=False),
        sa.Column("item_id", sa.String(255), nullable=False),
        sa.Column("target", sa.String(255), nullable=False, server_default="recorded"),
        sa.Column("epoch", sa.Integer, nullable=False, server_default="0"),
        sa.Column("evaluator", sa.String(255), nullable=False),
        sa.Column("evaluator_version", sa.String(64), nullable=False),
        sa.Column("score", sa.Float),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("evidence", Json),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("run_id", "item_id", "target", "epoch", "evaluator",
                            name="uq_results_sample_evaluator"),
    )
    op.execute("INSERT INTO results_v3 (id, run_id, item_id, target, epoch, evaluator, "
               "evaluator_version, score, status, reason, evidence, created_at) SELECT id, "
               "run_id, item_id, 'recorded', 0, evaluator, evaluator_version, score, status, "
               "reason, evidence, created_at FROM results")
    op.drop_index("ix_results_run_status", table_name="results")
    op.drop_table("results")
    op.rename_table("results_v3", "results")
    op.create_index("ix_results_run_status", "results", ["run_id", "status"])


def downgrade() -> None:  # pragma: no cover - kept for symmetry; data of extra targets is lost
    raise NotImplementedError("0003 cannot be downgraded without losing samples")
