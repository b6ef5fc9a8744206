"""progress snapshots without their task count: it is the counts' sum, and never read

- `progress_snapshots.tasks` dropped: a snapshot's task count is the sum of its counts by
  state (`counts`), which is what the pages and the recount read.

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-02 03:40:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0028'
down_revision = '0027'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('progress_snapshots', schema=None) as batch_op:
        batch_op.drop_column('tasks')


def downgrade():
    # Snapshots are counted again from the tasks: the old rows go, the next page stores one.
    op.execute('DELETE FROM progress_snapshots')
    with op.batch_alter_table('progress_snapshots', schema=None) as batch_op:
        batch_op.add_column(sa.Column('tasks', sa.Integer(), nullable=False))
