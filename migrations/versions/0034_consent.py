"""consent: the tenant's consent ledger per number; the campaigns that require consent;
work codes that revoke it

- `consent_records`: each consent given (at, source, optionally one campaign and a purpose)
  and each revoked (at, how), with who recorded it; read by (tenant, number, at).
- `campaigns.consent_required` ("none" for every existing campaign) and `consent_keys`.
- `work_code_choices.revokes_consent` (false for every existing code).

Revision ID: 0034
Revises: 0033
Create Date: 2026-12-03 12:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0034'
down_revision = '0033'
branch_labels = None
depends_on = None


def _text_c(length):
    return sa.String(length=length).with_variant(
        sa.String(length=length, collation="C"), "postgresql"
    )


def upgrade():
    op.create_table(
        "consent_records",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("number", _text_c(16), nullable=False),
        sa.Column("action", sa.String(length=8), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("source", sa.String(length=255), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=True),
        sa.Column("purpose", sa.String(length=255), nullable=False),
        sa.Column("recorded_by", sa.String(length=255), nullable=False),
        sa.Column("recorded_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"],
            name=op.f("fk_consent_records_tenant_id_tenants"), ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"],
            name=op.f("fk_consent_records_campaign_id_campaigns"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_consent_records")),
    )
    op.create_index(
        "ix_consent_records_number", "consent_records", ["tenant_id", "number", "at"]
    )
    # Plain ALTER TABLE on both databases (a batch copy of `campaigns` on SQLite would
    # cascade its children away).
    op.add_column(
        "campaigns",
        sa.Column("consent_required", sa.String(length=8), nullable=False, server_default="none"),
    )
    op.add_column(
        "campaigns", sa.Column("consent_keys", sa.Text(), nullable=False, server_default="")
    )
    op.add_column(
        "work_code_choices",
        sa.Column("revokes_consent", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade():
    op.drop_column("work_code_choices", "revokes_consent")
    op.drop_column("campaigns", "consent_keys")
    op.drop_column("campaigns", "consent_required")
    op.drop_index("ix_consent_records_number", table_name="consent_records")
    op.drop_table("consent_records")
