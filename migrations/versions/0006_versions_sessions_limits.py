"""task versions, server-side sign-in sessions, shared rate-limit counters

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22 16:40:00

A task counts its changes (forms refuse a save from a stale page); signed-in sessions
live on the server (signing out ends them); rate-limit counters live in the database so
every worker and host counts together.
"""
from alembic import op
import sqlalchemy as sa


revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('tasks', schema=None) as batch_op:
        batch_op.add_column(sa.Column('version', sa.Integer(), nullable=False, server_default='1'))

    op.create_table('login_sessions',
    sa.Column('id', sa.String(length=64), nullable=False),
    sa.Column('supervisor_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('last_seen_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['supervisor_id'], ['supervisors.id'], name=op.f('fk_login_sessions_supervisor_id_supervisors'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_login_sessions'))
    )
    with op.batch_alter_table('login_sessions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_login_sessions_supervisor_id'), ['supervisor_id'], unique=False)

    op.create_table('rate_limits',
    sa.Column('key', sa.String(length=255), nullable=False),
    sa.Column('count', sa.Integer(), nullable=False),
    sa.Column('expires_at', sa.Float(), nullable=False),
    sa.PrimaryKeyConstraint('key', name=op.f('pk_rate_limits'))
    )
    with op.batch_alter_table('rate_limits', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_rate_limits_expires_at'), ['expires_at'], unique=False)


def downgrade():
    with op.batch_alter_table('rate_limits', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_rate_limits_expires_at'))
    op.drop_table('rate_limits')

    with op.batch_alter_table('login_sessions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_login_sessions_supervisor_id'))
    op.drop_table('login_sessions')

    with op.batch_alter_table('tasks', schema=None) as batch_op:
        batch_op.drop_column('version')
