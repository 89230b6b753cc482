"""Ground-truth snapshots captured for a run's samples: provider, instrument, query, fetch time,
the gap to the answer, status, values (normalised and the source's own) and what the evaluators
were given.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "truth_snapshots",
        sa.Column("run_id", sa.String(64), sa.ForeignKey("runs.id"), nullable=False),
        sa.Column("item_id", sa.String(255), nullable=False),
        sa.Column("target", sa.String(255), nullable=False),
        sa.Column("epoch", sa.Integer, nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("provider", sa.String(32), nullable=False),
        sa.Column("instrument", sa.String(64), nullable=False),
        sa.Column("market", sa.String(32)),
        sa.Column("query", sa.Text, nullable=False),
        sa.Column("fetched_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("answered_at", sa.DateTime(timezone=True)),
        sa.Column("gap_s", sa.Float),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("message", sa.Text),
        sa.Column("fields", Json),
        sa.Column("source_fields", Json),
        sa.Column("payload", Json),
        sa.PrimaryKeyConstraint("run_id", "item_id", "target", "epoch",
                                name="pk_truth_snapshots"),
    )


def downgrade() -> None:
    op.drop_table("truth_snapshots")
