"""Human review: a reviewer's corrected score for one result, with a reason and a name. The raw
score stays in `results`; the newest review of a result is its correction.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reviews",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.String(64), sa.ForeignKey("runs.id"), nullable=False),
        sa.Column("item_id", sa.String(255), nullable=False),
        sa.Column("target", sa.String(255), nullable=False),
        sa.Column("epoch", sa.Integer, nullable=False),
        sa.Column("evaluator", sa.String(255), nullable=False),
        sa.Column("score", sa.Float),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("reviewer", sa.String(255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_reviews_run", "reviews", ["run_id"])


def downgrade() -> None:
    op.drop_index("ix_reviews_run", table_name="reviews")
    op.drop_table("reviews")
