"""task regions: where each task's customer is, by its State item and its numbers

- `tasks.regions`: the ISO 3166-2 regions of the task's `State` item and of its phone
  numbers' area codes, `,US-FL,US-GA,` (empty: none known); backfilled from the stored
  items, a thousand tasks per statement.

Revision ID: 0036
Revises: 0035
Create Date: 2026-12-03 14:00:00.000000

"""
from types import SimpleNamespace

from alembic import op
import sqlalchemy as sa

from app.services import regions
from app.services.values import wrapped


# revision identifiers, used by Alembic.
revision = '0036'
down_revision = '0035'
branch_labels = None
depends_on = None

BATCH = 1000


def upgrade():
    # Plain ALTER TABLE on both databases (a batch copy of `tasks` on SQLite would cascade
    # its children away).
    op.add_column("tasks", sa.Column("regions", sa.Text(), nullable=False, server_default=""))
    connection = op.get_bind()
    items = sa.table("task_items", sa.column("task_id"), sa.column("key"), sa.column("value"))
    key = sa.func.lower(items.c.key)
    found: dict[int, list] = {}
    for task_id, item_key, value in connection.execute(
        sa.select(items.c.task_id, items.c.key, items.c.value).where(
            sa.or_(key == "state", key.like("%phone%")), items.c.value != ""
        )
    ):
        found.setdefault(task_id, []).append(SimpleNamespace(key=item_key, value=value))
    tasks = sa.table("tasks", sa.column("id"), sa.column("regions"))
    update = tasks.update().where(tasks.c.id == sa.bindparam("t")).values(regions=sa.bindparam("r"))
    rows = [
        {"t": task_id, "r": text}
        for task_id, task_items in found.items()
        if (text := wrapped(regions.regions_of(task_items)))
    ]
    for start in range(0, len(rows), BATCH):
        connection.execute(update, rows[start : start + BATCH])


def downgrade():
    op.drop_column("tasks", "regions")
