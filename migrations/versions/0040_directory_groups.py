"""directory groups: the groups a tenant's identity provider pushes (SCIM), their members,
and the skill queue a group's name gives its members

- `directory_groups` (unique display name per tenant, a random resource id, the provider's
  external id, a version), `directory_group_members`, `group_mappings`.

Revision ID: 0040
Revises: 0039
Create Date: 2026-12-04 21:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0040'
down_revision = '0039'
branch_labels = None
depends_on = None


def _text_c(length):
    return sa.String(length).with_variant(sa.String(length, collation="C"), "postgresql")


def upgrade():
    op.create_table(
        "directory_groups",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("resource_id", sa.String(length=36), nullable=False),
        sa.Column("display_name", _text_c(255), nullable=False),
        sa.Column("external_id", sa.String(length=255), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"],
            name=op.f("fk_directory_groups_tenant_id_tenants"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_directory_groups")),
        sa.UniqueConstraint(
            "tenant_id", "display_name", name=op.f("uq_directory_groups_tenant_id_display_name")
        ),
    )
    op.create_index(
        "ix_directory_groups_resource_id", "directory_groups", ["resource_id"], unique=True
    )
    op.create_table(
        "directory_group_members",
        sa.Column("group_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["group_id"], ["directory_groups.id"],
            name=op.f("fk_directory_group_members_group_id_directory_groups"), ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"],
            name=op.f("fk_directory_group_members_user_id_users"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("group_id", "user_id", name=op.f("pk_directory_group_members")),
    )
    op.create_index(
        op.f("ix_directory_group_members_user_id"), "directory_group_members", ["user_id"]
    )
    op.create_table(
        "group_mappings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("group_name", _text_c(255), nullable=False),
        sa.Column("skill_queue_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"],
            name=op.f("fk_group_mappings_tenant_id_tenants"), ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["skill_queue_id"], ["skill_queues.id"],
            name=op.f("fk_group_mappings_skill_queue_id_skill_queues"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_group_mappings")),
        sa.UniqueConstraint(
            "tenant_id", "group_name", name=op.f("uq_group_mappings_tenant_id_group_name")
        ),
    )


def downgrade():
    op.drop_table("group_mappings")
    op.drop_index(op.f("ix_directory_group_members_user_id"), table_name="directory_group_members")
    op.drop_table("directory_group_members")
    op.drop_index("ix_directory_groups_resource_id", table_name="directory_groups")
    op.drop_table("directory_groups")
