"""agent workspace: away reasons, wrap-up limits, notes on attempts

- `away_reasons`: the reasons a tenant offers for being AWAY (Break, Lunch, …).
- `users.desk_state_reason` and `agent_state_spans.reason`: the reason of the agent's AWAY
  now and of each span (NULL: none chosen, or not AWAY).
- `skill_queues.wrap_up_limit_seconds`: wrap-up after which the desk warns (NULL: none).
- `attempts.note`: the agent's note on the attempt.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-01 21:30:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0024'
down_revision = '0023'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "away_reasons",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("sort_order", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"],
            name=op.f("fk_away_reasons_tenant_id_tenants"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_away_reasons")),
        sa.UniqueConstraint("tenant_id", "name", name=op.f("uq_away_reasons_tenant_id_name")),
    )
    op.add_column("users", sa.Column("desk_state_reason", sa.String(length=40)))
    op.add_column("agent_state_spans", sa.Column("reason", sa.String(length=40)))
    op.add_column("skill_queues", sa.Column("wrap_up_limit_seconds", sa.Integer()))
    op.add_column("attempts", sa.Column("note", sa.Text()))

def downgrade():
    op.drop_column("attempts", "note")
    op.drop_column("skill_queues", "wrap_up_limit_seconds")
    op.drop_column("agent_state_spans", "reason")
    op.drop_column("users", "desk_state_reason")
    op.drop_table("away_reasons")
