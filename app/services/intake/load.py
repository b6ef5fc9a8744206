"""Loading an intake file into a campaign.

A load reads the file at least twice. The first read refuses a file that is not UTF-8
CSV, is empty or lacks the clientId column, before anything is written, and counts its
rows. With `dry_run` or `all_or_nothing` a second read validates every row without
writing. The last read validates and writes the rows in batches, one transaction each,
and writes the report of rejected rows and of rows superseded by a later row with the
same clientId. Memory stays flat: rows are streamed, and the clientIds seen so far live
in a scratch SQLite file. Each batch writes, with its tasks, an audit record and an event
per task it adds or updates, as the load's actor; a dry run writes none.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from itertools import islice
from pathlib import Path

from sqlalchemy.exc import IntegrityError

from app.db.private_files import private_file
from app.db.transactions import transaction
from app.extensions import db
from app.models import Campaign
from app.services.actors import Actor
from app.services.campaigns.life_cycle import check_takes_tasks
from app.services.csv_cells import excerpt, reason_text, unguard_row
from app.services.csv_files import GuardedWriter
from app.services.errors import InvalidInput, ServiceError
from app.services.fields import Field
from app.services.intake.columns import Layout, plan_row
from app.services.intake.file_reader import (
    FileRefused,
    Row,
    check_header,
    detect_delimiter,
    iter_rows,
    read_header,
    refuse_nul,
)
from app.services.intake.seen import SeenIds
from app.services.intake.writer import (
    FreshStatistics,
    Planned,
    Written,
    as_updates,
    existing_tasks,
    write_batch,
)
from app.services.tenants.setup import list_skill_queues

BATCH = 5000
REPORT_HEADER = ("line", "clientId", "outcome", "reason")
REPORTED_CLIENT_ID = 64  # characters of a rejected row's clientId the report shows


@dataclass
class Counts:
    """What a load did (or, in a dry run, would do)."""

    total: int = 0
    rows: int = 0
    added: int = 0
    updated: int = 0
    rejected: int = 0
    superseded: int = 0
    normalised: int = 0  # phone numbers of the rows written, read in the default country
    ignored_columns: list[str] = field(default_factory=list)


Progress = Callable[[Counts], None]
# Writes (or, in a dry run, only looks at) a batch: which clientIds were new, which refused.
Writer = Callable[[list[Planned]], Written]


def refusal_report(path: Path, message: str) -> None:
    """A report for a file refused as a whole: one line that says why."""
    with Report(path) as report:
        report.add(0, "", "refused", message)


def _keep_lines(path: Path, keep: int) -> None:
    """Cut the report down to its header and first `keep` lines."""
    kept = private_file(path.with_name(f"{path.name}.kept"))
    with (
        path.open(newline="", encoding="utf-8") as old,
        kept.open("w", newline="", encoding="utf-8") as new,
    ):
        # Read back as values and written again: the same cells, guarded as before.
        GuardedWriter(new).writerows(map(unguard_row, islice(csv.reader(old), keep + 1)))
    os.replace(kept, path)


class Report:
    """The report file: one line per rejected or superseded row."""

    def __init__(self, path: Path, keep: int | None = None) -> None:
        """A new report; with `keep`, an interrupted load's report, its first `keep` lines
        (those of the batches it committed) kept and the rest dropped."""
        path.parent.mkdir(parents=True, exist_ok=True)
        if keep is not None:
            _keep_lines(path, keep)
        self._handle = path.open("a" if keep is not None else "w", newline="", encoding="utf-8")
        self._csv = GuardedWriter(self._handle)
        if keep is None:
            self._csv.writerow(REPORT_HEADER)

    def add(self, line: int, client_id: str, outcome: str, reason: str) -> None:
        # A refused row's cells may be anything (a secret, a megabyte): only excerpts.
        if outcome == "rejected":
            client_id = excerpt(client_id, REPORTED_CLIENT_ID)
        self._csv.writerow((line, client_id, outcome, reason_text(reason)))

    def flush(self) -> None:
        self._handle.flush()

    def restart(self) -> None:
        self._handle.seek(0)
        self._handle.truncate()
        self._csv.writerow(REPORT_HEADER)

    def __enter__(self) -> Report:
        return self

    def __exit__(self, *_exc) -> None:
        self._handle.close()


@dataclass(frozen=True)
class QueueRef:
    """A skill queue as a load knows it: plain values, safe to share with its check thread."""

    id: int
    name: str


def _queue_lookup(campaign: Campaign) -> Callable[[str, Field], QueueRef]:
    """Every queue of the tenant, read once per load."""
    queues = {q.name: QueueRef(q.id, q.name) for q in list_skill_queues(campaign.tenant)}

    def lookup(name: str, where: Field) -> QueueRef:
        if name not in queues:
            raise InvalidInput(
                f"{where} '{excerpt(name)}' is not a skill queue of this environment",
                field=where,
            )
        return queues[name]

    return lookup


class _Pass:
    """One read of the rows: validate, note rejects and repeats, hand valid batches on."""

    def __init__(self, campaign: Campaign, layout: Layout, report: Report, total: int) -> None:
        self.campaign, self.layout, self.report = campaign, layout, report
        self.queues = _queue_lookup(campaign)
        self.country = campaign.default_country
        self.counts = Counts(total=total, ignored_columns=list(layout.ignored))

    def run(
        self, rows: Iterator[Row], write: Writer, progress: Progress | None = None, done: int = 0
    ) -> Counts:
        """Check and write the rows; the first `done` (whole batches an interrupted run
        committed) are only read again, for the clientIds they carried."""
        with SeenIds() as seen:
            for checked in self._checked_batches(rows):
                if done > 0:
                    done -= len(checked)
                    valid = [(r.plan.client_id, n) for n, _, r in checked if isinstance(r, Planned)]
                    seen.record(valid)
                    continue
                batch = []
                for line, client_id, result in checked:
                    self.counts.rows += 1
                    if isinstance(result, ServiceError):
                        self._note(line, client_id, "rejected", result.message)
                    else:
                        batch.append((line, result))
                self._flush(batch, seen, write, progress)
        return self.counts

    def _checked_batches(self, rows: Iterator[Row]) -> Iterator[list]:
        """Batches of (line, clientId, Planned or the ServiceError that refused the row).

        Pure work on the row's text and the queues read up front: no database access.
        """
        batch = []
        for row in rows:
            try:
                plan, queue, normalised = plan_row(
                    self.layout, row.cells, self.queues, self.country
                )
                batch.append((row.line, row.cells[0], Planned(plan, queue, normalised)))
            except ServiceError as error:
                batch.append((row.line, row.cells[0], error))
            if len(batch) >= BATCH:
                yield batch
                batch = []
        if batch:
            yield batch

    def _flush(self, batch, seen: SeenIds, write: Writer, progress: Progress | None) -> None:
        if batch:
            lines = [(planned.plan.client_id, line) for line, planned in batch]
            for earlier, client_id, later in seen.record(lines):
                reason = f"clientId repeated on line {later}; the last row wins"
                self._note(earlier, client_id, "superseded", reason)
            written = write([planned for _, planned in batch])
            last_line = dict(lines)
            for client_id, error in written.refused.items():
                self._note(last_line[client_id], client_id, "rejected", error.message)
            # A clientId an earlier batch carried was counted there: its row supersedes.
            counted = {client_id for client_id, _ in lines} - seen.earlier_batches
            counted -= written.refused.keys()
            self.counts.added += len(counted & written.new)
            self.counts.updated += len(counted - written.new)
            self.counts.normalised += sum(
                planned.normalised
                for _, planned in batch
                if planned.plan.client_id not in written.refused
            )
        if progress:
            progress(self.counts)

    def _note(self, line: int, client_id: str, outcome: str, reason: str) -> None:
        setattr(self.counts, outcome, getattr(self.counts, outcome) + 1)
        self.report.add(line, client_id, outcome, reason)


def _looking(campaign: Campaign) -> Writer:
    """A dry writer: tells which clientIds of a batch are new or refused, writing nothing."""

    def look(batch: list[Planned]) -> Written:
        latest = {planned.plan.client_id: planned for planned in batch}
        existing = existing_tasks(campaign, list(latest))
        _, refused = as_updates(campaign, latest, existing)
        return Written(latest.keys() - existing.keys(), refused)

    return look


def _committing(campaign: Campaign, actor: Actor) -> Writer:
    """Write each batch (its tasks, records and events); the pass commits it with the
    load's counts, so a load cut off between batches knows exactly what it wrote."""

    def write(batch: list[Planned]) -> Written:
        try:
            return write_batch(campaign, batch, actor=actor)
        except IntegrityError:  # a request added one of these clientIds meanwhile: again
            db.session.rollback()
            return write_batch(campaign, batch, actor=actor)

    return write


def check_file(campaign: Campaign, path: Path, delimiter: str | None) -> tuple[str, Layout, int]:
    """The delimiter, the column layout and the row count; FileRefused for an unusable file."""
    refuse_nul(path)
    delimiter = delimiter or detect_delimiter(path)
    header = read_header(path, delimiter)
    check_header(header, campaign.client_id_field_name)
    total = sum(1 for _ in iter_rows(path, delimiter))
    return delimiter, Layout.of(header), total


def _check_takes_files(campaign: Campaign) -> None:
    """An archived campaign takes no file: refused before a row is read."""
    try:
        check_takes_tasks(campaign)
    except InvalidInput as refusal:
        raise FileRefused(refusal.message) from None


def load_file(
    campaign: Campaign,
    path: Path,
    report_path: Path,
    *,
    dry_run: bool = False,
    all_or_nothing: bool = False,
    delimiter: str | None = None,
    progress: Progress | None = None,
    actor: Actor,
    resume: Counts | None = None,
) -> Counts:
    """Load the file into the campaign as `actor` (its load); raises FileRefused when
    nothing may be loaded. `resume`: the counts an interrupted run of this load committed
    with its last batch; the load goes on from there."""
    if resume is None or not resume.rows:  # a load under way when it was archived goes on
        _check_takes_files(campaign)
    delimiter, layout, total = check_file(campaign, path, delimiter)
    if resume is not None and resume.rows:
        with Report(report_path, keep=resume.rejected + resume.superseded) as report:
            written = _Pass(campaign, layout, report, total)
            written.counts = replace(resume, total=total, ignored_columns=list(layout.ignored))
            return written.run(
                iter_rows(path, delimiter),
                _committing(campaign, actor),
                _checkpoint(report, progress),
                done=resume.rows,
            )
    with Report(report_path) as report:
        if dry_run or all_or_nothing:
            with transaction(db.session, read_only=True):
                checked = _Pass(campaign, layout, report, total).run(
                    iter_rows(path, delimiter), _looking(campaign)
                )
            if dry_run:
                return checked
            if checked.rejected:
                raise FileRefused(
                    f"{checked.rejected} of {checked.rows} rows are invalid and the load is "
                    "all-or-nothing; nothing was loaded (the report lists them)",
                    checked,
                )
            report.restart()
        return _Pass(campaign, layout, report, total).run(
            iter_rows(path, delimiter), _committing(campaign, actor), _checkpoint(report, progress)
        )


def _checkpoint(report: Report, progress: Progress | None) -> Progress:
    """After each batch: the counts, then one commit of the batch with them; the
    planner's statistics kept fresh as the tasks grow."""
    statistics = FreshStatistics()

    def checkpoint(counts: Counts) -> None:
        if progress:
            progress(counts)  # the load's counts, written in the batch's transaction
        report.flush()  # the batch's report lines reach the file before the batch commits
        db.session.commit()
        statistics.after_commit(counts.added)

    return checkpoint
