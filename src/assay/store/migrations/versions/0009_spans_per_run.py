"""A span is keyed by its run and its id, not by its id alone: an agent's spans come with the
ids its own tracer gave them, and the same trace sent to two online runs (a collector fanning
out to a staging and a production watch) must be stored by both — under a key of the id alone
the second run's write was refused and its watch stopped.

Revision ID: 0009
Revises: 0008

SQLite cannot alter a primary key in place: the table is rebuilt (create, copy, drop, rename),
as 0003 does, the portable way that works on PostgreSQL too.
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(JSONB(), "postgresql")
COLUMNS = ("span_id, trace_id, parent_id, run_id, item_id, kind, name, start_at, end_at, "
           "status, attributes")


def upgrade() -> None:
    op.create_table(
        "spans_v9",
        sa.Column("span_id", sa.String(32), primary_key=True),
        sa.Column("trace_id", sa.String(32), nullable=False),
        sa.Column("parent_id", sa.String(32)),
        sa.Column("run_id", sa.String(64), sa.ForeignKey("runs.id"), primary_key=True),
        sa.Column("item_id", sa.String(255)),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("start_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("end_at", sa.DateTime(timezone=True)),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attributes", Json),
    )
    op.execute(f"INSERT INTO spans_v9 ({COLUMNS}) SELECT {COLUMNS} FROM spans")
    op.drop_index("ix_spans_run_item", table_name="spans")
    op.drop_table("spans")
    op.rename_table("spans_v9", "spans")
    op.create_index("ix_spans_run_item", "spans", ["run_id", "item_id"])


def downgrade() -> None:  # pragma: no cover - kept for symmetry; a span kept by two runs is lost
    raise NotImplementedError("0009 cannot be downgraded without losing spans")
