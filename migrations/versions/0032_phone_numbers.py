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
    with op.batch_alter_table("campaigns") as batch:
        batch.add_column(sa.Column("default_country", sa.String(length=2), nullable=True))
    with op.batch_alter_table("intake_loads") as batch:
        batch.add_column(
            sa.Column("normalised", sa.Integer(), nullable=False, server_default="0")
        )
    with op.batch_alter_table("task_items") as batch:
        batch.add_column(sa.Column("valid_number", sa.Boolean(), nullable=True))
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
    with op.batch_alter_table("task_items") as batch:
        batch.drop_column("valid_number")
    with op.batch_alter_table("intake_loads") as batch:
        batch.drop_column("normalised")
    with op.batch_alter_table("campaigns") as batch:
        batch.drop_column("default_country")
