"""report endings: every attempt in one ending row; a deleted task still counted attempted

- `attempt_rollups.taken_back`, `changed_elsewhere` and `in_progress`: the attempts a
  supervisor took back, those ended by a change elsewhere (a status change, a move, a
  deletion), and those still open; counted here from the attempts already made.
- `attempts.deleted_task_id`: the task's id once the task is deleted (its `task_id` is then
  NULL), with a partial index; attempts of tasks deleted before this revision keep none.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-01 21:30:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0025'
down_revision = '0024'
branch_labels = None
depends_on = None

ENDINGS = {
    "taken_back": "a.ended_how = 'TAKEN_BACK'",
    "changed_elsewhere": "a.ended_how = 'CHANGED_ELSEWHERE'",
    "in_progress": "a.ended_how IS NULL",
}
KEY = ("campaign_id", "slot", "skill_queue_id", "agent_login", "time_zone")


def _epoch(dialect, column):
    if dialect == "postgresql":
        return f"CAST(FLOOR(EXTRACT(EPOCH FROM {column})) AS BIGINT)"
    return f"CAST(strftime('%s', {column}) AS INTEGER)"


def _backfill(dialect):
    """One UPDATE ... FROM an aggregate of the attempts by the rollups' key (both
    databases): every key with attempts already has its row."""
    key = (
        f"a.campaign_id AS campaign_id, ({_epoch(dialect, 'a.delivered_at')} / 900) AS slot,"
        " COALESCE(a.skill_queue_id, 0) AS skill_queue_id, a.agent_login AS agent_login,"
        " COALESCE(a.time_zone, '') AS time_zone"
    )
    counts = ", ".join(
        f"COALESCE(SUM(CASE WHEN {condition} THEN 1 ELSE 0 END), 0) AS {name}"
        for name, condition in ENDINGS.items()
    )
    grouped = ", ".join(str(n) for n in range(1, len(KEY) + 1))
    op.execute(
        "UPDATE attempt_rollups SET "
        + ", ".join(f"{name} = f.{name}" for name in ENDINGS)
        + f" FROM (SELECT {key}, {counts} FROM attempts a GROUP BY {grouped}) AS f WHERE "
        + " AND ".join(f"attempt_rollups.{column} = f.{column}" for column in KEY)
    )


def upgrade():
    dialect = op.get_bind().dialect.name
    for name in ENDINGS:
        op.add_column(
            "attempt_rollups",
            sa.Column(name, sa.BigInteger(), nullable=False, server_default="0"),
        )
    op.add_column("attempts", sa.Column("deleted_task_id", sa.BigInteger().with_variant(
        sa.Integer(), "sqlite"), nullable=True))
    op.create_index(
        "ix_attempts_deleted_task", "attempts",
        ["campaign_id", "delivered_at", "deleted_task_id"],
        sqlite_where=sa.text("deleted_task_id IS NOT NULL"),
        postgresql_where=sa.text("deleted_task_id IS NOT NULL"),
    )
    _backfill(dialect)


def downgrade():
    op.drop_index("ix_attempts_deleted_task", table_name="attempts")
    op.drop_column("attempts", "deleted_task_id")
    for name in reversed(ENDINGS):
        op.drop_column("attempt_rollups", name)
