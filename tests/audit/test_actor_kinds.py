"""Every kind of actor fits the columns the trail and the bulk jobs keep it in (PostgreSQL
refuses a longer one; SQLite would keep it silently)."""

from __future__ import annotations

import pytest

from app.models import AuditRecord, BulkJob
from app.services.actors import ActorKind


@pytest.mark.parametrize("kind", list(ActorKind), ids=lambda k: k.value)
@pytest.mark.parametrize("column", [AuditRecord.actor_kind, BulkJob.actor_kind], ids=str)
def test_each_actor_kind_fits_its_columns(kind, column):
    assert len(kind.value) <= column.type.length
