"""Exporting a campaign's tasks, or a search's, as an intake file.

The clientId column comes first (named as in intake), then every data key, then the
system fields. The rows come from cursors that stream the tasks and their items in step
(see export_rows), a chunk of tasks at a time, so a million tasks export in flat memory;
loading the export back gives the same tasks. Every cell is guarded against spreadsheet
formulas by the one CSV writer (`csv_files`), which intake undoes.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import closing
from itertools import islice

from sqlalchemy import ColumnElement

from app.extensions import db
from app.models import Campaign
from app.services.csv_files import GuardedWriter
from app.services.intake.export_rows import (
    ExportedCampaign,
    TimeText,
    data_keys,
    snapshot,
    task_rows,
    time_text,
)
from app.services.search.criteria import Criterion
from app.services.search.query import Also, filtered

SYSTEM_COLUMNS = (
    "previewRecordID",
    "workedState",
    "workAttempts",
    "lastAttemptAgent",
    "lastAttemptTime",
    "nextEarliestWorkTime",
    "skillQueue",
    "preferredAgent",
    "workCodes",
)
CHUNK = 1000


def _rows(tasks: Iterator, keys: list[str], time: TimeText) -> Iterator[list]:
    """The CSV row of each (task row, values by key, work codes), one at a time."""
    missing = [""] * len(keys)
    for task, values, work_codes in tasks:
        _, client_id, record_id, state, attempts, agent, last_at, next_at, queue, preferred = task
        yield [
            client_id, *map(values.get, keys, missing), record_id, state, attempts,
            agent or "", time(last_at), time(next_at), queue, preferred or "", work_codes,
        ]  # fmt: skip


def export_csv(campaign: Campaign, criteria: list[Criterion], also: Also = ()) -> Iterator[str]:
    """The CSV text of the matching tasks, a chunk of rows at a time.

    A criterion that is not valid raises ServiceError here, before the first chunk, so a
    download is refused rather than cut short. The rows are read, once the first chunk is
    asked for, in a transaction of the export's own (see export_rows.snapshot); the
    caller's, which only read, is ended here: left open, it would sit idle beside a long
    stream, and PostgreSQL ends such a session (idle_in_transaction_session_timeout).
    """
    matching = filtered(campaign, criteria, also).whereclause
    whole = not criteria and not also
    exported = ExportedCampaign(campaign.id, campaign.client_id_field_name, whole)
    db.session.rollback()
    return _chunks(exported, matching)


def _chunks(campaign: ExportedCampaign, matching: ColumnElement[bool]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = GuardedWriter(buffer)
    with snapshot() as connection:
        keys = data_keys(connection, campaign, matching)
        writer.writerow([campaign.client_id_field_name, *keys, *SYSTEM_COLUMNS])
        time = time_text(connection.dialect)
        # Closed before the connection goes back to the pool, also when a download is cut off.
        with closing(task_rows(connection, matching, CHUNK)) as tasks:
            rows = _rows(tasks, keys, time)
            while True:
                writer.writerows(islice(rows, CHUNK))  # each row written as it is made
                if not (text := buffer.getvalue()):
                    break
                yield text
                buffer.seek(0)
                buffer.truncate()
