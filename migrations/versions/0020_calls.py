"""calls: dialling settings, the call on the attempt, work codes suggested by a call result

- `campaigns`: `auto_dial_seconds` (the preview countdown of progressive dialling, none: the
  agent dials), `can_skip` (true: the agent may release a task), `call_placement` (`desk`,
  or `contact-flow` for Amazon Connect's StartOutboundVoiceContact) and the Connect outbound
  queue ARN, contact flow id and caller id. Existing campaigns keep today's behaviour:
  no countdown, skipping allowed, the desk dials.
- `tenants.connect_ccp_url`: the Contact Control Panel the desk embeds (none: off).
- `work_code_choices.suggested_for`: the call result after which the desk preselects it.
- `attempts`: the call's `call_id` (unique), `phone_key`, `phone_number` and `placed_by`;
  an index for the calls the worker follows up.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-27 05:10:00.000000

"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade():
    # Plain ALTER TABLE ... ADD COLUMN, never a batch copy: on SQLite a copy of a parent
    # table (tenants, campaigns) would cascade its DROP TABLE to the children's rows.
    op.add_column("campaigns", sa.Column("auto_dial_seconds", sa.Integer(), nullable=True))
    op.add_column(
        "campaigns", sa.Column("can_skip", sa.Boolean(), nullable=False, server_default=sa.true())
    )
    op.add_column(
        "campaigns",
        sa.Column("call_placement", sa.String(length=16), nullable=False, server_default="desk"),
    )
    op.add_column("campaigns", sa.Column("connect_queue_arn", sa.String(length=255)))
    op.add_column("campaigns", sa.Column("connect_contact_flow_id", sa.String(length=100)))
    op.add_column("campaigns", sa.Column("connect_caller_id", sa.String(length=32)))
    op.add_column("tenants", sa.Column("connect_ccp_url", sa.String(length=255)))
    op.add_column("work_code_choices", sa.Column("suggested_for", sa.String(length=16)))
    op.add_column("attempts", sa.Column("call_id", sa.String(length=36)))
    op.add_column("attempts", sa.Column("phone_key", sa.String(length=255)))
    op.add_column("attempts", sa.Column("phone_number", sa.String(length=64)))
    op.add_column("attempts", sa.Column("placed_by", sa.String(length=16)))
    op.create_index("uq_attempts_call_id", "attempts", ["call_id"], unique=True)
    op.create_index("ix_attempts_calls_pending", "attempts", ["placed_by", "call_ended_at"])


def downgrade():
    op.drop_index("ix_attempts_calls_pending", table_name="attempts")
    op.drop_index("uq_attempts_call_id", table_name="attempts")
    for column in ("placed_by", "phone_number", "phone_key", "call_id"):
        op.drop_column("attempts", column)
    # Plain ALTER TABLE ... DROP COLUMN (SQLite 3.35+): a batch copy of these parents would,
    # with foreign keys on, cascade its DROP TABLE to their children (tasks, loads, users).
    op.drop_column("work_code_choices", "suggested_for")
    op.drop_column("tenants", "connect_ccp_url")
    for column in (
        "connect_caller_id",
        "connect_contact_flow_id",
        "connect_queue_arn",
        "call_placement",
        "can_skip",
        "auto_dial_seconds",
    ):
        op.drop_column("campaigns", column)
