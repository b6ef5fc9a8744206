"""A bulk job's end report: why tasks failed, counted by reason, and every failure as CSV
(spreadsheet-safe, as every download of the service is)."""

from __future__ import annotations

import io
from collections.abc import Iterator

from sqlalchemy import func, select

from app.extensions import db
from app.models import BulkFailure, BulkJob
from app.services.csv_files import GuardedWriter

FAILURES_HEADER = ("previewRecordID", "clientId", "reason")
CHUNK = 1000


def failure_reasons(job: BulkJob, limit: int = 20) -> list[tuple[str, int]]:
    """The reasons tasks failed, most frequent first, with how many each."""
    count = func.count(BulkFailure.id)
    rows = db.session.execute(
        select(BulkFailure.reason, count)
        .where(BulkFailure.job_id == job.id)
        .group_by(BulkFailure.reason)
        .order_by(count.desc(), BulkFailure.reason)
        .limit(limit)
    )
    return [(reason, number) for reason, number in rows]


def failures_csv(job: BulkJob) -> Iterator[str]:
    """Every failure of the job, in task order, as CSV text in chunks."""
    buffer = io.StringIO()
    writer = GuardedWriter(buffer)
    writer.writerow(FAILURES_HEADER)
    last = 0
    while True:
        chunk = list(
            db.session.execute(
                select(
                    BulkFailure.id, BulkFailure.record_id, BulkFailure.client_id, BulkFailure.reason
                )
                .where(BulkFailure.job_id == job.id, BulkFailure.id > last)
                .order_by(BulkFailure.id)
                .limit(CHUNK)
            )
        )
        for _, record_id, client_id, reason in chunk:
            writer.writerow((record_id, client_id, reason))
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        if len(chunk) < CHUNK:
            return
        last = chunk[-1].id
