"""task regions index: the sets of regions a campaign's open tasks are in, one probe each

- `ix_tasks_campaign_regions` (campaign, regions) over the open tasks with a region: the
  contact rules ask which regions are present before they write a regional calling rule
  into delivery's query (a rule of a region no open task is in holds nothing back).

Revision ID: 0041
Revises: 0040
Create Date: 2026-12-06 02:20:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0041'
down_revision = '0040'
branch_labels = None
depends_on = None

PLACED = sa.text("worked_state IN ('NOTWORKED', 'WORKED') AND regions != ''")


def upgrade():
    op.create_index(
        "ix_tasks_campaign_regions", "tasks", ["campaign_id", "regions"],
        sqlite_where=PLACED, postgresql_where=PLACED,
    )


def downgrade():
    op.drop_index("ix_tasks_campaign_regions", table_name="tasks")
