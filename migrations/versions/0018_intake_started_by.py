"""intake loads record who started them

- `intake_loads.started_by_kind`, `intake_loads.started_by_id`: the actor who started the
  load (a supervisor, an operator, the drop watcher), as the audit trail names actors.
  Nullable columns without a default: loads from before keep none ("not recorded").

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-27 02:40:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('intake_loads', schema=None) as batch_op:
        batch_op.add_column(sa.Column('started_by_kind', sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column('started_by_id', sa.String(length=255), nullable=True))


def downgrade():
    with op.batch_alter_table('intake_loads', schema=None) as batch_op:
        batch_op.drop_column('started_by_id')
        batch_op.drop_column('started_by_kind')
