"""A run has one owner at a time: the process continuing it holds a lease in its row (who,
and until when; renewed while it works), so a second `--resume` of the same run refuses in one
line instead of sending every request twice.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("runs", sa.Column("lease_owner", sa.String(255)))
    op.add_column("runs", sa.Column("lease_until", sa.DateTime(timezone=True)))


def downgrade() -> None:
    op.drop_column("runs", "lease_until")
    op.drop_column("runs", "lease_owner")
