"""the attempt ledger

- `attempts`: one row per delivery of a task to an agent (task, campaign, queue, agent, the
  times of the delivery, the call and the close, the call's result, the outcome and work
  codes, how the attempt ended). Indexed for a task's attempts newest first and for a
  campaign's attempts by time.
- No rows are written for tasks worked before: the ledger starts with the next delivery
  (an attempt made up from `work_attempts` would have no agent, times or result).

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-27 03:30:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade():
    op.create_table(
        "attempts",
        sa.Column("id", BIG_ID, nullable=False),
        sa.Column("task_id", BIG_ID, nullable=True),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("skill_queue_id", sa.Integer(), nullable=True),
        sa.Column("agent_id", sa.Integer(), nullable=False),
        sa.Column("agent_login", sa.String(length=255), nullable=False),
        sa.Column("delivered_at", sa.DateTime(), nullable=False),
        sa.Column("call_started_at", sa.DateTime(), nullable=True),
        sa.Column("contact_id", sa.String(length=255), nullable=True),
        sa.Column("connected_at", sa.DateTime(), nullable=True),
        sa.Column("call_ended_at", sa.DateTime(), nullable=True),
        sa.Column("call_result", sa.String(length=16), nullable=True),
        sa.Column("closed_at", sa.DateTime(), nullable=True),
        sa.Column("outcome", sa.String(length=16), nullable=True),
        sa.Column("work_codes", sa.JSON(), nullable=False),
        sa.Column("ended_how", sa.String(length=20), nullable=True),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["task_id"], ["tasks.id"],
            name=op.f("fk_attempts_task_id_tasks"), ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"],
            name=op.f("fk_attempts_campaign_id_campaigns"), ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["skill_queue_id"], ["skill_queues.id"],
            name=op.f("fk_attempts_skill_queue_id_skill_queues"), ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_attempts")),
    )
    with op.batch_alter_table("attempts", schema=None) as batch_op:
        batch_op.create_index("ix_attempts_task", ["task_id", "delivered_at"], unique=False)
        batch_op.create_index(
            "ix_attempts_campaign_time", ["campaign_id", "delivered_at"], unique=False
        )


def downgrade():
    with op.batch_alter_table("attempts", schema=None) as batch_op:
        batch_op.drop_index("ix_attempts_campaign_time")
        batch_op.drop_index("ix_attempts_task")
    op.drop_table("attempts")
