"""phone numbers: whether each phone item's value is a number that exists; a campaign's
default country; the numbers an intake load normalised

- `task_items.valid_number`: for a phone item (its key contains "phone", its value not
  empty), whether the value is a valid number by libphonenumber's metadata; NULL for every
  other item. Delivery passes over a number that is not (rule INVALID_NUMBER).
- Backfilled from the stored values, a thousand items per statement.
- `campaigns.default_country`: the country whose national format intake files may write
  the campaign's numbers in (none for every existing campaign).
- `intake_loads.normalised`: how many of a load's numbers were read in that country (0 for
  the loads before).

Revision ID: 0032
Revises: 0031
Create Date: 2026-12-02 19:00:00.000000

"""
from alembic import op
import sqlalchemy as sa

from app.services.phone_numbers import is_valid


# revision identifiers, used by Alembic.
revision = '0032'
down_revision = '0031'
branch_labels = None
depends_on = None

BATCH = 1000


def upgrade():
    # Plain ALTER TABLE on both databases: a batch copy of `campaigns` on SQLite would drop
    # the old table and, with foreign keys on, cascade its children away.
    op.add_column("campaigns", sa.Column("default_country", sa.String(length=2), nullable=True))
    op.add_column(
        "intake_loads", sa.Column("normalised", sa.Integer(), nullable=False, server_default="0")
    )
    op.add_column("task_items", sa.Column("valid_number", sa.Boolean(), nullable=True))
    connection = op.get_bind()
    items = sa.table(
        "task_items",
        sa.column("task_id"), sa.column("position"), sa.column("key"), sa.column("value"),
        sa.column("valid_number", sa.Boolean()),
    )
    phones = connection.execute(
        sa.select(items.c.task_id, items.c.position, items.c.value).where(
            sa.func.lower(items.c.key).like("%phone%"), items.c.value != ""
        )
    ).all()
    update = (
        items.update()
        .where(items.c.task_id == sa.bindparam("t"), items.c.position == sa.bindparam("p"))
        .values(valid_number=sa.bindparam("v"))
    )
    for start in range(0, len(phones), BATCH):
        rows = [
            {"t": task_id, "p": position, "v": is_valid(value)}
            for task_id, position, value in phones[start : start + BATCH]
        ]
        connection.execute(update, rows)


def downgrade():
    op.drop_column("task_items", "valid_number")
    op.drop_column("intake_loads", "normalised")
    op.drop_column("campaigns", "default_country")
