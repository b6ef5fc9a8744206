"""bulk actions on a search result

- `bulk_jobs`: a confirmed bulk action (who, when, the campaign, the criteria, the action and
  its fields, the count confirmed), its progress and its resume point.
- `bulk_failures`: the tasks a job could not act on, and why.
- `audit_records.actor_via`: what acted for the actor (a bulk job they confirmed). A nullable
  column without a default: added without rewriting the table on both databases.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-26 23:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade():
    op.create_table(
        "bulk_jobs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token", sa.String(length=36), nullable=True),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("actor_kind", sa.String(length=16), nullable=False),
        sa.Column("actor_id", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("criteria", sa.JSON(), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("fields", sa.JSON(), nullable=False),
        sa.Column("confirmed", sa.Integer(), nullable=False),
        sa.Column("last_confirmed_id", BIG_ID, nullable=False),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("acted", sa.Integer(), nullable=False),
        sa.Column("skipped", sa.Integer(), nullable=False),
        sa.Column("failed", sa.Integer(), nullable=False),
        sa.Column("last_task_id", BIG_ID, nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("message", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"],
            name=op.f("fk_bulk_jobs_campaign_id_campaigns"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bulk_jobs")),
        sa.UniqueConstraint("token", name=op.f("uq_bulk_jobs_token")),
    )
    with op.batch_alter_table("bulk_jobs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_bulk_jobs_campaign_id"), ["campaign_id"], unique=False)
    op.create_table(
        "bulk_failures",
        sa.Column("id", BIG_ID, nullable=False),
        sa.Column("job_id", sa.Integer(), nullable=False),
        sa.Column("task_id", BIG_ID, nullable=False),
        sa.Column("record_id", sa.String(length=36), nullable=False),
        sa.Column("client_id", sa.String(length=255), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["job_id"], ["bulk_jobs.id"],
            name=op.f("fk_bulk_failures_job_id_bulk_jobs"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bulk_failures")),
    )
    with op.batch_alter_table("bulk_failures", schema=None) as batch_op:
        batch_op.create_index("ix_bulk_failures_job", ["job_id", "id"], unique=False)
    op.add_column("audit_records", sa.Column("actor_via", sa.String(length=64), nullable=True))


def downgrade():
    with op.batch_alter_table("audit_records", schema=None) as batch_op:
        batch_op.drop_column("actor_via")
    op.drop_table("bulk_failures")
    op.drop_table("bulk_jobs")
