"""progress snapshots: a large campaign's Progress panel counts at one moment

- `progress_snapshots` (campaign_id, taken_at, counts, taking_until): the counts a
  campaign of PROGRESS_EXACT_TASKS tasks or more shows until they are
  PROGRESS_SNAPSHOT_SECONDS old; one process at a time counts again (`taking_until`).

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-02 02:10:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0027'
down_revision = '0026'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'progress_snapshots',
        sa.Column('campaign_id', sa.Integer(), nullable=False),
        sa.Column('taken_at', sa.DateTime(), nullable=False),
        sa.Column('counts', sa.JSON(), nullable=False),
        sa.Column('taking_until', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('campaign_id'),
    )


def downgrade():
    op.drop_table('progress_snapshots')
