"""audit records by kind: the index a page of a few kinds' history reads newest first

- `ix_audit_records_kind` (tenant_id, entity_kind, id): the Users, API-keys and
  do-not-call pages read each kind's newest records from it, however many records of
  other kinds (a task's, a call's) the tenant's trail holds.

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-02 01:30:00.000000

"""
from alembic import op


# revision identifiers, used by Alembic.
revision = '0026'
down_revision = '0025'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('audit_records', schema=None) as batch_op:
        batch_op.create_index(
            'ix_audit_records_kind', ['tenant_id', 'entity_kind', 'id'], unique=False
        )


def downgrade():
    with op.batch_alter_table('audit_records', schema=None) as batch_op:
        batch_op.drop_index('ix_audit_records_kind')
