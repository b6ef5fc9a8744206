"""day rollups: the reports' figures per UTC day; kept counts of tasks attempted

- `attempt_day_rollups` and `work_code_day_rollups`: per campaign, queue (0 for none),
  agent (codes: code key and value) and UTC day (epoch seconds // 86,400), the sums of
  the 15-minute rollups over the day and its customer zones; summed here from the
  15-minute rows there are, then kept by the ledger in the same flush.
- `attempted_task_counts`: the distinct tasks attempted over a range that has ended, per
  tenant, campaign (0: all), queue (0: any), agent ('': any) and range; empty at first.

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-02 15:45:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0030'
down_revision = '0029'
branch_labels = None
depends_on = None

MEASURES = (
    "attempts", "contacts", "successes", "completed", "removed", "rescheduled", "closed",
    "released", "lapsed", "taken_back", "changed_elsewhere", "in_progress",
    "preview_seconds", "previews", "talk_seconds", "talks", "wrap_up_seconds", "wrap_ups",
    "held_seconds",
)


def _count(name):
    return sa.Column(name, sa.BigInteger(), nullable=False, server_default="0")


def _key(table, *extra):
    return [
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("day", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("skill_queue_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("agent_login", sa.String(length=255), nullable=False),
        *extra,
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"],
            name=op.f(f"fk_{table}_campaign_id_campaigns"), ondelete="CASCADE",
        ),
    ]


def _backfill():
    """The day rows summed from the 15-minute rows (slots // 96; the slots are positive)."""
    key = "campaign_id, slot / 96, skill_queue_id, agent_login"
    op.execute(
        "INSERT INTO attempt_day_rollups (campaign_id, day, skill_queue_id, agent_login, "
        + ", ".join(MEASURES) + ") SELECT " + key + ", "
        + ", ".join(f"SUM({name})" for name in MEASURES)
        + f" FROM attempt_rollups GROUP BY {key}"
    )
    codes = f"{key}, code_key, code_value"
    op.execute(
        "INSERT INTO work_code_day_rollups (campaign_id, day, skill_queue_id, agent_login,"
        f" code_key, code_value, chosen) SELECT {codes}, SUM(chosen) FROM work_code_rollups"
        f" GROUP BY {codes}"
    )


def upgrade():
    op.create_table(
        "attempt_day_rollups",
        *_key("attempt_day_rollups"),
        *(_count(name) for name in MEASURES),
        sa.PrimaryKeyConstraint(
            "campaign_id", "day", "skill_queue_id", "agent_login",
            name=op.f("pk_attempt_day_rollups"),
        ),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "work_code_day_rollups",
        *_key(
            "work_code_day_rollups",
            sa.Column("code_key", sa.String(length=255), nullable=False),
            sa.Column("code_value", sa.String(length=255), nullable=False),
        ),
        _count("chosen"),
        sa.PrimaryKeyConstraint(
            "campaign_id", "day", "skill_queue_id", "agent_login", "code_key", "code_value",
            name=op.f("pk_work_code_day_rollups"),
        ),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "attempted_task_counts",
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("skill_queue_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("agent_login", sa.String(length=255), nullable=False),
        sa.Column("range_start", sa.DateTime(), nullable=False),
        sa.Column("range_end", sa.DateTime(), nullable=False),
        sa.Column("tasks", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"],
            name=op.f("fk_attempted_task_counts_tenant_id_tenants"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "tenant_id", "campaign_id", "skill_queue_id", "agent_login", "range_start",
            "range_end", name=op.f("pk_attempted_task_counts"),
        ),
    )
    _backfill()


def downgrade():
    op.drop_table("attempted_task_counts")
    op.drop_table("work_code_day_rollups")
    op.drop_table("attempt_day_rollups")
