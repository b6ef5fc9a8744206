"""task zones: a campaign may take a task's zones from its numbers; a task whose numbers
span several zones keeps them all

- `campaigns.zone_from`: "default" for every existing campaign (the default zone, as
  before), or "number".
- `tasks.zones`: every zone of a task whose numbers span several (empty for every existing
  task), and the partial index of them per campaign.

Revision ID: 0038
Revises: 0037
Create Date: 2026-12-03 16:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0038'
down_revision = '0037'
branch_labels = None
depends_on = None

SPANNING = sa.text("worked_state IN ('NOTWORKED', 'WORKED') AND zones != ''")


def upgrade():
    op.add_column(
        "campaigns",
        sa.Column("zone_from", sa.String(length=8), nullable=False, server_default="default"),
    )
    op.add_column("tasks", sa.Column("zones", sa.Text(), nullable=False, server_default=""))
    op.create_index(
        "ix_tasks_campaign_zones", "tasks", ["campaign_id", "zones"],
        sqlite_where=SPANNING, postgresql_where=SPANNING,
    )


def downgrade():
    op.drop_index("ix_tasks_campaign_zones", table_name="tasks")
    op.drop_column("tasks", "zones")
    op.drop_column("campaigns", "zone_from")
