"""report rollups: the attempt ledger counted per 15-minute UTC slot

- `attempts.time_zone`: the customer's zone when the attempt was made (the task's, else
  its campaign's default), filled for the attempts already made.
- `attempt_rollups` and `work_code_rollups`: per campaign, queue (0 for none), agent,
  customer zone (codes: code key and value) and 15-minute UTC slot, the figures the
  reports read; counted here from the attempts already made, then kept by the ledger.
- `ix_attempts_campaign_time` gains the task (tasks attempted in a range counted from the
  index alone); `ix_attempts_campaign_ended` finds the open attempts and those ended late.

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-27 08:40:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0023'
down_revision = '0022'
branch_labels = None
depends_on = None

MEASURES = (
    "attempts", "contacts", "successes", "completed", "removed", "rescheduled", "closed",
    "released", "lapsed", "preview_seconds", "previews", "talk_seconds", "talks",
    "wrap_up_seconds", "wrap_ups", "held_seconds",
)


def _count(name):
    return sa.Column(name, sa.BigInteger(), nullable=False, server_default="0")


def _key(table, *extra):
    return [
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("slot", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("skill_queue_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("agent_login", sa.String(length=255), nullable=False),
        *extra,
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"],
            name=op.f(f"fk_{table}_campaign_id_campaigns"), ondelete="CASCADE",
        ),
    ]


def _epoch(dialect, column):
    if dialect == "postgresql":
        return f"CAST(FLOOR(EXTRACT(EPOCH FROM {column})) AS BIGINT)"
    return f"CAST(strftime('%s', {column}) AS INTEGER)"


def _backfill(dialect):
    def seconds(since, until):
        known = f"{since} IS NOT NULL AND {until} IS NOT NULL"
        span = f"{_epoch(dialect, until)} - {_epoch(dialect, since)}"
        return f"COALESCE(SUM(CASE WHEN {known} THEN {span} ELSE 0 END), 0)," \
            f" COALESCE(SUM(CASE WHEN {known} THEN 1 ELSE 0 END), 0)"

    def count_if(condition):
        return f"COALESCE(SUM(CASE WHEN {condition} THEN 1 ELSE 0 END), 0)"

    slot = f"({_epoch(dialect, 'a.delivered_at')} / 900)"
    key = f"a.campaign_id, {slot}, COALESCE(a.skill_queue_id, 0), a.agent_login"
    truth = "" if dialect == "postgresql" else " = 1"
    held = (
        f"CASE WHEN a.ended_at IS NOT NULL AND a.ended_at > a.delivered_at"
        f" THEN {_epoch(dialect, 'a.ended_at')} - {_epoch(dialect, 'a.delivered_at')} ELSE 0 END"
    )
    figures = ", ".join([
        "COUNT(*)",
        count_if(f"a.contact{truth}"),
        count_if(f"a.success{truth}"),
        count_if("a.outcome = 'COMPLETE'"),
        count_if("a.outcome = 'REMOVE'"),
        count_if("a.outcome = 'RESCHEDULE'"),
        count_if("a.ended_how = 'CLOSED'"),
        count_if("a.ended_how = 'RELEASED'"),
        count_if("a.ended_how = 'LAPSED'"),
        seconds("a.delivered_at", "COALESCE(a.call_started_at, a.ended_at)"),
        seconds("a.connected_at", "a.call_ended_at"),
        seconds("a.call_ended_at", "a.closed_at"),
        f"COALESCE(SUM({held}), 0)",
    ])
    op.execute(
        "INSERT INTO attempt_rollups (campaign_id, slot, skill_queue_id, agent_login, time_zone, "
        + ", ".join(MEASURES)
        + f") SELECT {key}, COALESCE(a.time_zone, ''), {figures} FROM attempts a"
        f" GROUP BY {key}, COALESCE(a.time_zone, '')"
    )
    if dialect == "postgresql":
        codes = "json_array_elements(a.work_codes) AS c(value)"
        name, value = "c.value ->> 'key'", "c.value ->> 'value'"
    else:
        codes = "json_each(a.work_codes) AS c"
        name, value = "json_extract(c.value, '$.key')", "json_extract(c.value, '$.value')"
    op.execute(
        "INSERT INTO work_code_rollups (campaign_id, slot, skill_queue_id, agent_login,"
        " code_key, code_value, chosen)"
        f" SELECT {key}, {name}, {value}, COUNT(*) FROM attempts a, {codes}"
        f" WHERE a.ended_how = 'CLOSED' AND {name} IS NOT NULL AND {value} IS NOT NULL"
        f" GROUP BY {key}, {name}, {value}"
    )


def upgrade():
    dialect = op.get_bind().dialect.name
    op.add_column("attempts", sa.Column("time_zone", sa.String(length=64), nullable=True))
    op.execute(
        "UPDATE attempts SET time_zone = COALESCE("
        "(SELECT t.time_zone FROM tasks t WHERE t.id = attempts.task_id),"
        " (SELECT c.default_time_zone FROM campaigns c WHERE c.id = attempts.campaign_id))"
    )
    op.drop_index("ix_attempts_campaign_time", table_name="attempts")
    op.create_index(
        "ix_attempts_campaign_time", "attempts", ["campaign_id", "delivered_at", "task_id"]
    )
    op.create_index("ix_attempts_campaign_ended", "attempts", ["campaign_id", "ended_at"])
    op.create_index(
        "ix_attempts_campaign_task", "attempts", ["campaign_id", "task_id", "delivered_at"]
    )
    op.create_table(
        "attempt_rollups",
        *_key("attempt_rollups", sa.Column("time_zone", sa.String(length=64), nullable=False)),
        *(_count(name) for name in MEASURES),
        sa.PrimaryKeyConstraint(
            "campaign_id", "slot", "skill_queue_id", "agent_login", "time_zone",
            name=op.f("pk_attempt_rollups"),
        ),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "work_code_rollups",
        *_key(
            "work_code_rollups",
            sa.Column("code_key", sa.String(length=255), nullable=False),
            sa.Column("code_value", sa.String(length=255), nullable=False),
        ),
        _count("chosen"),
        sa.PrimaryKeyConstraint(
            "campaign_id", "slot", "skill_queue_id", "agent_login", "code_key", "code_value",
            name=op.f("pk_work_code_rollups"),
        ),
        sqlite_with_rowid=False,
    )
    _backfill(dialect)


def downgrade():
    op.drop_table("work_code_rollups")
    op.drop_table("attempt_rollups")
    op.drop_index("ix_attempts_campaign_task", table_name="attempts")
    op.drop_index("ix_attempts_campaign_ended", table_name="attempts")
    op.drop_index("ix_attempts_campaign_time", table_name="attempts")
    op.create_index("ix_attempts_campaign_time", "attempts", ["campaign_id", "delivered_at"])
    op.drop_column("attempts", "time_zone")
