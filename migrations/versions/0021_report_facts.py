"""report facts: work codes flagged contact and success, agents' state spans

- `work_code_choices.contact` and `.success` (false for existing codes: a supervisor flags
  them; until then an ANSWERED call counts as a contact).
- `attempts.contact` and `.success`: the rollups the reports count, kept by the ledger
  (false for attempts already made).
- `agent_state_spans`: the time each agent spent in each desk state, written from the next
  state change on (no history is invented for the time before).

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-27 06:10:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0021'
down_revision = '0020'
branch_labels = None
depends_on = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade():
    # Plain ADD COLUMN: a batch copy of a parent table cascades its DROP TABLE on SQLite.
    op.add_column(
        "work_code_choices",
        sa.Column("contact", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.add_column(
        "work_code_choices",
        sa.Column("success", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    for table_column in ("contact", "success"):
        op.add_column(
            "attempts",
            sa.Column(table_column, sa.Boolean(), nullable=False, server_default=sa.false()),
        )
    op.create_table(
        "agent_state_spans",
        sa.Column("id", BIG_ID, nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("agent_id", sa.Integer(), nullable=False),
        sa.Column("agent_login", sa.String(length=255), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"],
            name=op.f("fk_agent_state_spans_tenant_id_tenants"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_state_spans")),
    )
    op.create_index(
        "ix_agent_state_spans_agent", "agent_state_spans", ["agent_id", "started_at"]
    )
    op.create_index(
        "ix_agent_state_spans_tenant_time", "agent_state_spans", ["tenant_id", "started_at"]
    )


def downgrade():
    op.drop_index("ix_agent_state_spans_tenant_time", table_name="agent_state_spans")
    op.drop_index("ix_agent_state_spans_agent", table_name="agent_state_spans")
    op.drop_table("agent_state_spans")
    op.drop_column("attempts", "success")
    op.drop_column("attempts", "contact")
    op.drop_column("work_code_choices", "success")
    op.drop_column("work_code_choices", "contact")
