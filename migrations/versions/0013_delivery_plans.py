"""delivery plans that stay flat at a million tasks

- `ix_tasks_reserved_by` replaces the full index of reserved_by_id with a partial one of
  the reserved tasks only: the column is NULL on nearly every task, so after ANALYZE SQLite
  judged the full index useless and read the whole table for an agent's own task.
- `ix_tasks_delivery_untimed`: a campaign's WORKED tasks without a next earliest time (the
  third tier of the order), which PostgreSQL otherwise found by walking the primary key.
- `ix_tasks_campaign_agent` gains hold_until: the tasks held for an agent now, without
  reading those whose hold has ended.
- `ix_tasks_campaign_zone`: the zones a campaign's open tasks are in, so calling windows can
  skip a campaign that has no task inside its window now.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-25 23:10:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def _where(condition):
    return {"sqlite_where": sa.text(condition), "postgresql_where": sa.text(condition)}


HELD = "preferred_agent IS NOT NULL"
OPEN = "worked_state IN ('NOTWORKED', 'WORKED')"
UNTIMED = "worked_state = 'WORKED' AND next_earliest_work_at IS NULL"
RESERVED = "reserved_by_id IS NOT NULL"


def upgrade():
    op.drop_index('ix_tasks_reserved_by_id', table_name='tasks')
    op.create_index('ix_tasks_reserved_by', 'tasks', ['reserved_by_id'], **_where(RESERVED))
    op.drop_index('ix_tasks_campaign_agent', table_name='tasks')
    op.create_index(
        'ix_tasks_campaign_agent', 'tasks', ['campaign_id', 'preferred_agent', 'hold_until'],
        **_where(HELD),
    )
    op.create_index('ix_tasks_delivery_untimed', 'tasks', ['campaign_id', 'id'], **_where(UNTIMED))
    op.create_index('ix_tasks_campaign_zone', 'tasks', ['campaign_id', 'time_zone'], **_where(OPEN))


def downgrade():
    op.drop_index('ix_tasks_campaign_zone', table_name='tasks')
    op.drop_index('ix_tasks_delivery_untimed', table_name='tasks')
    op.drop_index('ix_tasks_campaign_agent', table_name='tasks')
    op.create_index(
        'ix_tasks_campaign_agent', 'tasks', ['campaign_id', 'preferred_agent'], **_where(HELD)
    )
    op.drop_index('ix_tasks_reserved_by', table_name='tasks')
    op.create_index('ix_tasks_reserved_by_id', 'tasks', ['reserved_by_id'], unique=False)
