"""The do-not-call list as a CSV file: import (with a report per row) and export.

An import file holds one number per row, optionally a note in the second column (further
columns are ignored), and optionally a header: a first row whose first cell holds no digit.
Rows are numbered as the file's lines (a header is row 1). Each row is added, already
listed (on the list before, or repeating an earlier row), or refused with its reason;
refused rows do not stop the others. The whole file is one transaction, written a chunk of
rows per statement, and leaves one summary audit record (`dnc.imported`); the numbers it
adds carry the row's note, else the import's.

Cells are read and written with the intake files' spreadsheet guard (`'+1415…`), so an
export loads back as the same list.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass, field

from sqlalchemy import select

from app.extensions import db
from app.models import Tenant
from app.models.dnc import DncNumber
from app.services import csv_files
from app.services.actors import Actor
from app.services.audit.reading import wire_time
from app.services.audit.trail import Change, record
from app.services.csv_files import GuardedWriter
from app.services.dnc.numbers import MAX_NOTE, check_note, insert_numbers
from app.services.values import is_e164

NOTE_IMPORT = "import"
EXPORT_HEADER = ("number", "note", "added")
EXPORT_CHUNK = 5000
MAX_NAME = 255


@dataclass(frozen=True)
class RowResult:
    """A row that added nothing: its number in the file, its number cell, and why."""

    row: int
    value: str
    reason: str


@dataclass
class ImportReport:
    file_name: str
    added: int = 0
    already: list[RowResult] = field(default_factory=list)
    refused: list[RowResult] = field(default_factory=list)

    @property
    def rows(self) -> int:
        return self.added + len(self.already) + len(self.refused)

    def summary(self) -> str:
        return (
            f"{self.rows} rows: {self.added} added, {len(self.already)} already listed, "
            f"{len(self.refused)} refused"
        )


def _is_header(cells: list[str]) -> bool:
    return not any(c.isdigit() for c in cells[0])


def _checked(cells: list[str]) -> str | None:
    """Why the row is refused, or None."""
    number = cells[0]
    if not number:
        return "no number in the first column"
    if not is_e164(number):
        return f"'{number}' is not an E.164 number (+ then 2 to 15 digits)"
    if len(cells) > 1 and len(cells[1]) > MAX_NOTE:
        return f"the note is longer than {MAX_NOTE} characters"
    return None


def import_numbers(
    tenant: Tenant, data: bytes, file_name: str, *, actor: Actor, note: str = NOTE_IMPORT
) -> ImportReport:
    """Add the file's numbers to the tenant's list; the report of every row that added
    nothing. A file that is not UTF-8 CSV is refused whole (InvalidInput)."""
    note = check_note(note) or NOTE_IMPORT
    file_name = file_name[:MAX_NAME]  # as the audit trail keeps an entity's id
    report = ImportReport(file_name)
    first_row: dict[str, int] = {}
    rows: list[tuple[str, str]] = []
    for index, (line, cells) in enumerate(csv_files.rows(csv_files.decoded(data))):
        if index == 0 and _is_header(cells):
            continue
        if (reason := _checked(cells)) is not None:
            report.refused.append(RowResult(line, cells[0], reason))
        elif (earlier := first_row.get(cells[0])) is not None:
            report.already.append(RowResult(line, cells[0], f"repeats row {earlier}"))
        else:
            first_row[cells[0]] = line
            rows.append((cells[0], cells[1] if len(cells) > 1 and cells[1] else note))
    inserted = insert_numbers(tenant.id, rows)
    report.added = len(inserted)
    report.already += [
        RowResult(first_row[number], number, "already on the list")
        for number, _ in rows
        if number not in inserted
    ]
    report.already.sort(key=lambda r: r.row)
    counts = {
        "file": file_name,
        "added": report.added,
        "alreadyListed": len(report.already),
        "refused": len(report.refused),
        "note": note,
    }
    record(actor, Change("dnc.imported", "dnc_import", file_name, tenant.id, after=counts))
    return report


def export_csv(tenant: Tenant) -> Iterator[str]:
    """The tenant's list as CSV text (number, note, when added), by number, in chunks."""
    buffer = io.StringIO()
    writer = GuardedWriter(buffer)
    writer.writerow(EXPORT_HEADER)
    last = ""
    while True:
        chunk = list(
            db.session.execute(
                select(DncNumber.number, DncNumber.note, DncNumber.created_at)
                .where(DncNumber.tenant_id == tenant.id, DncNumber.number > last)
                .order_by(DncNumber.number)
                .limit(EXPORT_CHUNK)
            )
        )
        for number, note, added in chunk:
            writer.writerow((number, note, wire_time(added)))
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        if len(chunk) < EXPORT_CHUNK:
            return
        last = chunk[-1].number
