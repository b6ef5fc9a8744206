"""a task taken back from an agent by a supervisor is not offered to that agent for a while

`tasks.passed_over_agent` (the agent's loginUserId) and `tasks.passed_over_until`: a
supervisor's Release means "not this agent now", so the task goes to the next agent of its
queue instead of straight back to the one it was taken from. Both nullable: adding them
rewrites no table. No index: the condition only filters the candidates delivery already
finds by its own indexes.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-26 23:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('tasks', schema=None) as batch:
        batch.add_column(sa.Column('passed_over_agent', sa.String(length=255), nullable=True))
        batch.add_column(sa.Column('passed_over_until', sa.DateTime(), nullable=True))


def downgrade():
    with op.batch_alter_table('tasks', schema=None) as batch:
        batch.drop_column('passed_over_until')
        batch.drop_column('passed_over_agent')
