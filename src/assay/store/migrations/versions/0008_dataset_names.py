"""Named dataset versions: `assay datasets add NAME FILE` gives each changed content of NAME the
next version number, pointing at the content-hashed dataset whose items are stored, so
`NAME@VERSION` runs later even when the file has changed; a run keeps the NAME@VERSION it used.

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "dataset_versions",
        sa.Column("name", sa.String(255), primary_key=True),
        sa.Column("version", sa.Integer, primary_key=True),
        sa.Column("dataset_id", sa.String(64), sa.ForeignKey("datasets.id"), nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.add_column("runs", sa.Column("dataset_ref", sa.String(255)))


def downgrade() -> None:
    op.drop_column("runs", "dataset_ref")
    op.drop_table("dataset_versions")
