"""calling rules: when a tenant may call customers in a region, and contact limits that
count only a region's tasks

- `calling_rules`: per tenant and region (ISO 3166-2), hours in the customer's local time
  (on some weekdays or every day), weekdays without calls, the region's public holidays,
  the rule's own contact limit, and its source.
- `contact_limits.region`: a limit counting only the tasks in that region (NULL: every
  task, as before).

Revision ID: 0037
Revises: 0036
Create Date: 2026-12-03 15:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0037'
down_revision = '0036'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column("contact_limits", sa.Column("region", sa.String(length=8), nullable=True))
    op.create_table(
        "calling_rules",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("region", sa.String(length=8), nullable=False),
        sa.Column("opens_at", sa.Integer(), nullable=True),
        sa.Column("closes_at", sa.Integer(), nullable=True),
        sa.Column("days", sa.String(length=32), nullable=False, server_default=""),
        sa.Column("no_calls_on", sa.String(length=32), nullable=False, server_default=""),
        sa.Column("holidays", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("limit_id", sa.Integer(), nullable=True),
        sa.Column("source", sa.String(length=255), nullable=False, server_default=""),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"],
            name=op.f("fk_calling_rules_tenant_id_tenants"), ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["limit_id"], ["contact_limits.id"],
            name=op.f("fk_calling_rules_limit_id_contact_limits"), ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_calling_rules")),
    )
    op.create_index(op.f("ix_calling_rules_tenant_id"), "calling_rules", ["tenant_id"])


def downgrade():
    op.drop_index(op.f("ix_calling_rules_tenant_id"), table_name="calling_rules")
    op.drop_table("calling_rules")
    op.drop_column("contact_limits", "region")
