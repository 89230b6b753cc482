"""Initial schema: datasets, items, runs, answers, results, spans.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "datasets",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("path", sa.Text, nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("n_items", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "items",
        sa.Column("dataset_id", sa.String(64), sa.ForeignKey("datasets.id"), primary_key=True),
        sa.Column("item_id", sa.String(255), primary_key=True),
        sa.Column("line", sa.Integer),
        sa.Column("fields", Json, nullable=False),
    )
    op.create_table(
        "runs",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("dataset_id", sa.String(64), sa.ForeignKey("datasets.id")),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
        sa.Column("manifest", Json, nullable=False),
        sa.Column("summary", Json),
    )
    op.create_table(
        "answers",
        sa.Column("run_id", sa.String(64), sa.ForeignKey("runs.id"), primary_key=True),
        sa.Column("item_id", sa.String(255), primary_key=True),
        sa.Column("target", sa.String(255), primary_key=True),
        sa.Column("text", sa.Text),
        sa.Column("error", sa.Text),
        sa.Column("latency_s", sa.Float),
        sa.Column("usage", Json),
        sa.Column("extras", Json),
    )
    op.create_table(
        "results",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.String(64), sa.ForeignKey("runs.id"), nullable=False),
        sa.Column("item_id", sa.String(255), nullable=False),
        sa.Column("evaluator", sa.String(255), nullable=False),
        sa.Column("evaluator_version", sa.String(64), nullable=False),
        sa.Column("score", sa.Float),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("evidence", Json),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("run_id", "item_id", "evaluator",
                            name="uq_results_run_item_evaluator"),
    )
    op.create_index("ix_results_run_status", "results", ["run_id", "status"])
    op.create_table(
        "spans",
        sa.Column("span_id", sa.String(32), primary_key=True),
        sa.Column("trace_id", sa.String(32), nullable=False),
        sa.Column("parent_id", sa.String(32)),
        sa.Column("run_id", sa.String(64), sa.ForeignKey("runs.id"), nullable=False),
        sa.Column("item_id", sa.String(255)),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("start_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("end_at", sa.DateTime(timezone=True)),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attributes", Json),
    )
    op.create_index("ix_spans_run_item", "spans", ["run_id", "item_id"])


def downgrade() -> None:
    for index, table in (("ix_spans_run_item", "spans"), ("ix_results_run_status", "results")):
        op.drop_index(index, table_name=table)
    for table in ("spans", "results", "answers", "runs", "items", "datasets"):
        op.drop_table(table)
