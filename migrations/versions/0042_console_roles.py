"""console roles: each supervisor's role in each tenant they may see

- `supervisor_tenants.role`: administrator, supervisor or analyst. Every grant made
  before roles existed becomes a supervisor's; an account of every tenant
  (`supervisors.all_tenants`) stays an administrator of every tenant.

Revision ID: 0042
Revises: 0041
Create Date: 2026-12-07 23:40:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0042'
down_revision = '0041'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("supervisor_tenants") as batch:
        batch.add_column(
            sa.Column("role", sa.String(16), nullable=False, server_default="supervisor")
        )


def downgrade():
    with op.batch_alter_table("supervisor_tenants") as batch:
        batch.drop_column("role")
