"""campaigns have a life cycle: ACTIVE, PAUSED, ARCHIVED, with who changed it and when

Every campaign there is stays ACTIVE (the server default), as it was.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-26 23:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('campaigns', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('status', sa.String(length=16), server_default='ACTIVE', nullable=False)
        )
        batch_op.add_column(sa.Column('status_changed_at', sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column('status_changed_by_kind', sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column('status_changed_by_id', sa.String(length=255), nullable=True))


def downgrade():
    with op.batch_alter_table('campaigns', schema=None) as batch_op:
        batch_op.drop_column('status_changed_by_id')
        batch_op.drop_column('status_changed_by_kind')
        batch_op.drop_column('status_changed_at')
        batch_op.drop_column('status')
