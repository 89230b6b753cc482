"""Items keep their `label` in a column of its own (indexed per dataset), so the UI can list
and filter a 100,000-item run by label without parsing every item's JSON.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("items", sa.Column("label", sa.String(255)))
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        op.execute("UPDATE items SET label = LEFT(fields->>'label', 255)")
    else:
        op.execute("UPDATE items SET label = substr(json_extract(fields, '$.label'), 1, 255) "
                   "WHERE json_type(fields, '$.label') = 'text'")
    op.create_index("ix_items_dataset_label", "items", ["dataset_id", "label"])


def downgrade() -> None:
    op.drop_index("ix_items_dataset_label", table_name="items")
    op.drop_column("items", "label")
