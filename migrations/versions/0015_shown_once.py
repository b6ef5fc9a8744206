"""values shown once after a form's redirect (post/redirect/get)

- `shown_once`: a new API key, webhook signing secret, invitation link or do-not-call
  import report, held for the page the browser is redirected to after the form that made
  it; deleted when shown or after a few minutes. Secrets are stored masked with a pad only
  the browser's session holds.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-26 23:10:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('shown_once',
    sa.Column('id', sa.String(length=64), nullable=False),
    sa.Column('payload', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_shown_once'))
    )
    with op.batch_alter_table('shown_once', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_shown_once_created_at'), ['created_at'], unique=False)


def downgrade():
    with op.batch_alter_table('shown_once', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_shown_once_created_at'))

    op.drop_table('shown_once')
