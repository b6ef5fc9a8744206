"""provisioning by identity providers (SCIM): users' resource ids, activity, external ids
and versions; SCIM tokens beside API keys; the template of the users they create

- `users.resource_id`: a random id for every user (filled for existing ones), unique;
  `users.active` (true for existing ones), `external_id`, `version`, `updated_at`,
  `email_entries` and `department` (as the provider sent them), `email_index` (every
  address, lower case, filled for existing ones).
- `api_keys.purpose`: "api" for every existing key, or "scim".
- `tenants.provisioning_template`: the user template of users created without one;
  `tenants.provisioning_in_instance`: whether they are created in the instance too.

Added columns only (no table is copied on SQLite, so no child row is touched).

Revision ID: 0039
Revises: 0038
Create Date: 2026-12-04 20:30:00.000000

"""
import uuid

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0039'
down_revision = '0038'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column("users", sa.Column("resource_id", sa.String(length=36), nullable=True))
    op.add_column("users", sa.Column("active", sa.Boolean(), nullable=False, server_default=sa.true()))
    op.add_column("users", sa.Column("external_id", sa.String(length=255), nullable=True))
    op.add_column("users", sa.Column("version", sa.Integer(), nullable=False, server_default="1"))
    op.add_column("users", sa.Column("updated_at", sa.DateTime(), nullable=True))
    op.add_column("users", sa.Column("email_entries", sa.JSON(), nullable=True))
    op.add_column("users", sa.Column("department", sa.String(length=255), nullable=True))
    op.add_column("users", sa.Column("email_index", sa.Text(), nullable=False, server_default=""))
    users = sa.table(
        "users",
        sa.column("id", sa.Integer),
        sa.column("resource_id", sa.String),
        sa.column("primary_email", sa.String),
        sa.column("secondary_email", sa.String),
        sa.column("email_index", sa.Text),
    )
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(users.c.id, users.c.primary_email, users.c.secondary_email)
    ).all()
    for user_id, primary, secondary in rows:
        emails = [e.lower() for e in (primary, secondary) if e]
        connection.execute(
            users.update()
            .where(users.c.id == user_id)
            .values(
                resource_id=str(uuid.uuid4()),
                email_index=f",{','.join(emails)}," if emails else "",
            )
        )
    op.create_index("ix_users_resource_id", "users", ["resource_id"], unique=True)
    op.add_column(
        "api_keys", sa.Column("purpose", sa.String(length=8), nullable=False, server_default="api")
    )
    op.add_column("tenants", sa.Column("provisioning_template", sa.String(length=255), nullable=True))
    op.add_column(
        "tenants",
        sa.Column("provisioning_in_instance", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade():
    op.drop_column("tenants", "provisioning_in_instance")
    op.drop_column("tenants", "provisioning_template")
    op.drop_column("api_keys", "purpose")
    op.drop_index("ix_users_resource_id", table_name="users")
    for column in (
        "email_index", "department", "email_entries", "updated_at", "version", "external_id", "active",
        "resource_id",
    ):
        op.drop_column("users", column)
