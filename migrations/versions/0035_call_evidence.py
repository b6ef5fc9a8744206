"""call evidence: why the contact rules allowed each call, kept with it as they stood

- `calls.evidence`: a JSON document written once when the call is placed (NULL for the
  calls placed before: their evidence was not kept, and none is invented).

Revision ID: 0035
Revises: 0034
Create Date: 2026-12-03 13:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0035'
down_revision = '0034'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column("calls", sa.Column("evidence", sa.JSON(), nullable=True))


def downgrade():
    op.drop_column("calls", "evidence")
