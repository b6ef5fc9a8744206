"""contact limits: how often a number, person or task may be called

- `contact_limits`: a tenant's limits (at most N calls or contacts within a rolling window,
  per number, person or task, across its campaigns or within one).
- `contact_marks`: one row per call placed (and per contact made) to each scope it counts
  for, written in the call's transaction; counted by an index range per scope and window.
- `contact_scopes`: one row per scope counted, locked by the call that counts it.
- `tenants.person_key`: the data item that names a person across campaigns.

Revision ID: 0029
Revises: 0027
Create Date: 2026-12-02 10:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0029'
down_revision = '0027'
branch_labels = None
depends_on = None


def _text_c(length):
    return sa.String(length=length).with_variant(
        sa.String(length=length, collation="C"), "postgresql"
    )


BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade():
    op.create_table(
        "contact_limits",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("max_count", sa.Integer(), nullable=False),
        sa.Column("within_minutes", sa.Integer(), nullable=False),
        sa.Column("per", sa.String(length=16), nullable=False),
        sa.Column("counting", sa.String(length=16), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"],
            name=op.f("fk_contact_limits_tenant_id_tenants"), ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"],
            name=op.f("fk_contact_limits_campaign_id_campaigns"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_contact_limits")),
    )
    op.create_index(
        op.f("ix_contact_limits_tenant_id"), "contact_limits", ["tenant_id"], unique=False
    )
    op.create_table(
        "contact_marks",
        sa.Column("id", BIG_ID, nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("scope_key", _text_c(300), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("attempt_id", BIG_ID, nullable=True),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"],
            name=op.f("fk_contact_marks_tenant_id_tenants"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_contact_marks")),
    )
    op.create_index(
        "ix_contact_marks_scope",
        "contact_marks",
        ["tenant_id", "scope_key", "kind", "at", "campaign_id"],
        unique=False,
    )
    op.create_index("ix_contact_marks_attempt", "contact_marks", ["attempt_id"], unique=False)
    op.create_table(
        "contact_scopes",
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("scope_key", _text_c(300), nullable=False),
        sa.Column("counted_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"],
            name=op.f("fk_contact_scopes_tenant_id_tenants"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tenant_id", "scope_key", name=op.f("pk_contact_scopes")),
    )
    op.add_column("tenants", sa.Column("person_key", sa.String(length=255), nullable=True))


def downgrade():
    op.drop_column("tenants", "person_key")
    op.drop_table("contact_scopes")
    op.drop_index("ix_contact_marks_attempt", table_name="contact_marks")
    op.drop_index("ix_contact_marks_scope", table_name="contact_marks")
    op.drop_table("contact_marks")
    op.drop_index(op.f("ix_contact_limits_tenant_id"), table_name="contact_limits")
    op.drop_table("contact_limits")
