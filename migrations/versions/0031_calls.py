"""calls: every call placed is its own record

- `calls`: one row per call of an attempt (its id, phone item and number, who placed it,
  the contact centre's contact id, start, connection, end, result). A redial inside one
  attempt is a second row; the attempt keeps the columns of its last call.
- Backfilled: one call per existing attempt that placed one (its call columns), so the
  calls made before this upgrade keep their ids (their events are still accepted) and
  count for the task's numbers (the one called last, those found invalid).

Revision ID: 0031
Revises: 0030
Create Date: 2026-12-02 15:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0031'
down_revision = '0030'
branch_labels = None
depends_on = None


BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade():
    op.create_table(
        "calls",
        sa.Column("id", BIG_ID, nullable=False),
        sa.Column("attempt_id", BIG_ID, nullable=False),
        sa.Column("task_id", BIG_ID, nullable=True),
        sa.Column("call_id", sa.String(length=36), nullable=False),
        sa.Column("phone_key", sa.String(length=255), nullable=False),
        sa.Column("phone_number", sa.String(length=64), nullable=False),
        sa.Column("placed_by", sa.String(length=16), nullable=True),
        sa.Column("contact_id", sa.String(length=255), nullable=True),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("connected_at", sa.DateTime(), nullable=True),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        sa.Column("result", sa.String(length=16), nullable=True),
        sa.ForeignKeyConstraint(
            ["attempt_id"], ["attempts.id"],
            name=op.f("fk_calls_attempt_id_attempts"), ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["task_id"], ["tasks.id"],
            name=op.f("fk_calls_task_id_tasks"), ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_calls")),
    )
    op.create_index("uq_calls_call_id", "calls", ["call_id"], unique=True)
    op.create_index("ix_calls_attempt", "calls", ["attempt_id", "started_at"], unique=False)
    op.create_index("ix_calls_task", "calls", ["task_id", "started_at"], unique=False)
    # The calls placed before: the last one of each attempt (an earlier redial's columns
    # were replaced and are not known).
    op.execute(
        "INSERT INTO calls (attempt_id, task_id, call_id, phone_key, phone_number, placed_by, "
        "contact_id, started_at, connected_at, ended_at, result) "
        "SELECT id, task_id, call_id, COALESCE(phone_key, ''), COALESCE(phone_number, ''), "
        "placed_by, contact_id, call_started_at, connected_at, call_ended_at, call_result "
        "FROM attempts WHERE call_id IS NOT NULL AND call_started_at IS NOT NULL"
    )


def downgrade():
    op.drop_index("ix_calls_task", table_name="calls")
    op.drop_index("ix_calls_attempt", table_name="calls")
    op.drop_index("uq_calls_call_id", table_name="calls")
    op.drop_table("calls")
