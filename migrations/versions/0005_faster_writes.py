"""faster writes: task items keyed by (task, position), partial indexes

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-21 05:50:00

Task items are keyed by (task_id, position) and, on SQLite, stored WITHOUT ROWID, so a
task's items are clustered and every insert maintains one b-tree fewer. Indexes on
columns that are mostly NULL only hold the rows that have a value.
"""
from alembic import op
import sqlalchemy as sa


revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None

TEXT_C = sa.Text().with_variant(sa.Text(collation='C'), 'postgresql')
KEY_C = sa.String(length=255).with_variant(sa.String(length=255, collation='C'), 'postgresql')
TASK_ID = sa.BigInteger().with_variant(sa.Integer(), 'sqlite')
COPIED = "task_id, campaign_id, key, value, number, display_order, position"


def _items_table(name, keyed_by_position):
    columns = []
    if not keyed_by_position:
        columns.append(sa.Column('id', TASK_ID, nullable=False))
    columns += [
        sa.Column('task_id', TASK_ID, nullable=False),
        sa.Column('campaign_id', sa.Integer(), nullable=False),
        sa.Column('key', KEY_C, nullable=False),
        sa.Column('value', TEXT_C, nullable=False),
        sa.Column('number', sa.Float(), nullable=True),
        sa.Column('display_order', sa.Integer(), nullable=True),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name='fk_task_items_campaign_id_campaigns', ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['task_id'], ['tasks.id'], name='fk_task_items_task_id_tasks', ondelete='CASCADE'),
    ]
    key = ['task_id', 'position'] if keyed_by_position else ['id']
    columns.append(sa.PrimaryKeyConstraint(*key, name='pk_task_items_new'))
    options = {'sqlite_with_rowid': False} if keyed_by_position else {}
    op.create_table(name, *columns, **options)


def _swap_items_table():
    op.drop_table('task_items')
    op.rename_table('task_items_new', 'task_items')
    if op.get_bind().dialect.name == 'postgresql':
        op.execute('ALTER TABLE task_items RENAME CONSTRAINT pk_task_items_new TO pk_task_items')


def _partial(condition):
    return {'sqlite_where': sa.text(condition), 'postgresql_where': sa.text(condition)}


def upgrade():
    _items_table('task_items_new', keyed_by_position=True)
    op.execute(f"INSERT INTO task_items_new ({COPIED}) SELECT {COPIED} FROM task_items")
    _swap_items_table()
    op.create_index('ix_task_items_campaign_key_value', 'task_items', ['campaign_id', 'key', 'value'])
    op.create_index('ix_task_items_campaign_key_number', 'task_items', ['campaign_id', 'key', 'number'],
                    **_partial('number IS NOT NULL'))

    op.drop_index('ix_tasks_skill_queue_id', table_name='tasks')
    op.drop_index('ix_tasks_campaign_next_work', table_name='tasks')
    op.drop_index('ix_tasks_campaign_agent', table_name='tasks')
    op.create_index('ix_tasks_campaign_next_work', 'tasks', ['campaign_id', 'next_earliest_work_at'],
                    **_partial('next_earliest_work_at IS NOT NULL'))
    op.create_index('ix_tasks_campaign_agent', 'tasks', ['campaign_id', 'preferred_agent'],
                    **_partial('preferred_agent IS NOT NULL'))


def downgrade():
    op.drop_index('ix_tasks_campaign_agent', table_name='tasks')
    op.drop_index('ix_tasks_campaign_next_work', table_name='tasks')
    op.create_index('ix_tasks_campaign_next_work', 'tasks', ['campaign_id', 'next_earliest_work_at'])
    op.create_index('ix_tasks_campaign_agent', 'tasks', ['campaign_id', 'preferred_agent'])
    op.create_index('ix_tasks_skill_queue_id', 'tasks', ['skill_queue_id'])

    _items_table('task_items_new', keyed_by_position=False)
    op.execute(f"INSERT INTO task_items_new ({COPIED}) SELECT {COPIED} FROM task_items")
    _swap_items_table()
    op.create_index('ix_task_items_campaign_key_value', 'task_items', ['campaign_id', 'key', 'value'])
    op.create_index('ix_task_items_campaign_key_number', 'task_items', ['campaign_id', 'key', 'number'])
    op.create_index('ix_task_items_task_id', 'task_items', ['task_id'])
