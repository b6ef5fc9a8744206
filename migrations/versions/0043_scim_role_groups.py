"""scim role groups: a SCIM group's name may give a console role, and each role says who
gave it

- `group_mappings.role`: the console role a group of that name gives its members (then
  `skill_queue_id` is empty; a mapping gives one or the other).
- `supervisor_tenants.given_by`: `grant` (an operator or an administrator; every role
  before this), `console-provider` (the console's identity provider at sign-in) or `scim`
  (a role group of the tenant's identity provider). Each giver changes only its own.

Revision ID: 0043
Revises: 0042
Create Date: 2026-12-08 00:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0043'
down_revision = '0042'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("group_mappings") as batch:
        batch.alter_column("skill_queue_id", existing_type=sa.Integer(), nullable=True)
        batch.add_column(sa.Column("role", sa.String(16), nullable=True))
    with op.batch_alter_table("supervisor_tenants") as batch:
        batch.add_column(
            sa.Column("given_by", sa.String(16), nullable=False, server_default="grant")
        )


def downgrade():
    op.execute("DELETE FROM group_mappings WHERE skill_queue_id IS NULL")
    op.execute("DELETE FROM supervisor_tenants WHERE given_by = 'scim'")
    with op.batch_alter_table("supervisor_tenants") as batch:
        batch.drop_column("given_by")
    with op.batch_alter_table("group_mappings") as batch:
        batch.drop_column("role")
        batch.alter_column("skill_queue_id", existing_type=sa.Integer(), nullable=False)
