"""identity providers: SAML 2.0, OpenID Connect and directory sign-in

- `identity_providers`: one per tenant for the desk, and one without a tenant for the
  supervisors' console; kind-specific settings and a sealed secret.
- `sso_seen_assertions`: assertions and tokens already accepted, until they expire.
- `tenants.local_agent_passwords` (true: agents keep signing in as today).
- `supervisors.break_glass` (false) and `supervisors.sso_subject`.

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-27 08:30:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0022'
down_revision = '0021'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "identity_providers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("sealed_secret", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"],
            name=op.f("fk_identity_providers_tenant_id_tenants"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_identity_providers")),
        sa.UniqueConstraint("tenant_id", name=op.f("uq_identity_providers_tenant_id")),
    )
    op.create_table(
        "sso_seen_assertions",
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("digest", name=op.f("pk_sso_seen_assertions")),
    )
    op.create_index(
        op.f("ix_sso_seen_assertions_expires_at"), "sso_seen_assertions", ["expires_at"]
    )
    # Plain ADD COLUMN: a batch copy of a parent table cascades its DROP TABLE on SQLite.
    op.add_column(
        "tenants",
        sa.Column(
            "local_agent_passwords", sa.Boolean(), nullable=False, server_default=sa.true()
        ),
    )
    op.add_column(
        "supervisors",
        sa.Column("break_glass", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.add_column("supervisors", sa.Column("sso_subject", sa.String(length=512), nullable=True))
    op.create_index(
        op.f("ix_supervisors_sso_subject"), "supervisors", ["sso_subject"], unique=True
    )


def downgrade():
    op.drop_index(op.f("ix_supervisors_sso_subject"), table_name="supervisors")
    op.drop_column("supervisors", "sso_subject")
    op.drop_column("supervisors", "break_glass")
    op.drop_column("tenants", "local_agent_passwords")
    op.drop_index(op.f("ix_sso_seen_assertions_expires_at"), table_name="sso_seen_assertions")
    op.drop_table("sso_seen_assertions")
    op.drop_table("identity_providers")
