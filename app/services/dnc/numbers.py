"""The tenant's do-not-call list: E.164 numbers no agent is offered to dial.

- The list holds E.164 numbers only (`+` and 2 to 15 digits, as `rules.is_e164`); adding a
  number already listed is no error and keeps its first note.
- A task's phone items are its items whose key contains "phone" (any case) and whose value
  is an E.164 number: the ones the agent view dials. A task whose every phone item is
  listed is not delivered; a task with no phone item is delivered (it may be worked
  without calling). A listed number is shown to the agent as not callable (`display`).
- Every change leaves an audit record per number (`dnc.added`, `dnc.removed`); a CSV
  import (`dnc_csv`) leaves one summary record, `dnc.imported`.
- Delivery: no condition at all while the tenant lists nothing (one index probe says so);
  else each candidate task costs two index probes (its items, then the list per phone
  item). A pick skips listed tasks one by one, so its cost grows with the listed tasks
  ahead of the first callable one; a count over a campaign probes every open task.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, and_, case, exists, func, select, true

from app.db.bulk_inserts import driver_value
from app.db.plain_reads import session_connection
from app.extensions import db
from app.models import Campaign, Task, TaskItem, Tenant
from app.models.dnc import DncNumber
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.audit.trail import Change, record_all
from app.services.contactability.seat import Blocked, OtherRules, Seat
from app.services.errors import InvalidInput
from app.services.fields import DNC_NOTE, DNC_NUMBERS
from app.services.values import is_e164, is_phone_key, require_e164

MAX_NOTE = 255
# Rows per INSERT: under both databases' limits on bound parameters.
CHUNK = 2000
ALL_LISTED = "every number of the remaining tasks is on the do-not-call list"
NOTE_WORK_CODE = "work code"
# A digit sorts before ":" byte-wise, so [prefix, prefix + ":") holds every number that
# starts with the prefix: an index range on both databases, no LIKE to escape.
AFTER_DIGITS = ":"


# --- numbers -----------------------------------------------------------------------------


def check_number(value: str) -> str:
    """The number without surrounding blanks when it is E.164; InvalidInput otherwise."""
    return require_e164(value, DNC_NUMBERS)


def check_note(note: str) -> str:
    """The note without surrounding blanks; InvalidInput past MAX_NOTE characters."""
    note = note.strip()
    if len(note) > MAX_NOTE:
        raise InvalidInput(f"note is longer than {MAX_NOTE} characters", field=DNC_NOTE)
    return note


def _unique(numbers: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(numbers))


def insert_numbers(
    tenant_id: int, rows: list[tuple[str, str]], now: datetime | None = None
) -> set[str]:
    """Insert (number, note) rows, a chunk per statement, skipping numbers already listed
    (by anyone, even a moment ago in another transaction); the numbers actually inserted.

    Plain SQL on the driver: compiling a statement of thousands of rows would cost far
    more than running it."""
    if not rows:
        return set()
    connection = session_connection(db.session)
    mark = "?" if connection.dialect.paramstyle == "qmark" else "%s"
    stamp = driver_value(db.session, DncNumber.__table__.c.created_at)(now or utcnow())
    inserted: set[str] = set()
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start : start + CHUNK]
        values = ", ".join([f"({mark}, {mark}, {mark}, {mark})"] * len(chunk))
        sql = (
            f"INSERT INTO {DncNumber.__tablename__} (tenant_id, number, note, created_at) "  # noqa: S608 - names are ours
            f"VALUES {values} ON CONFLICT (tenant_id, number) DO NOTHING RETURNING number"
        )
        params = tuple(p for number, note in chunk for p in (tenant_id, number, note, stamp))
        inserted.update(row[0] for row in connection.exec_driver_sql(sql, params))
    return inserted


def _added(actor: Actor, tenant_id: int, rows: list[tuple[str, str]], **extra) -> None:
    record_all(
        actor,
        [
            Change(
                "dnc.added",
                "dnc_number",
                number,
                tenant_id,
                after={"number": number, "note": note, **extra},
            )
            for number, note in rows
        ],
    )


@dataclass(frozen=True)
class Added:
    """What an add did: the numbers now listed by it, and those that already were."""

    added: list[str]
    already: list[str]


def add_numbers(tenant: Tenant, numbers: Iterable[str], note: str = "", *, actor: Actor) -> Added:
    """List these numbers (all or none: one that is not E.164 refuses the lot)."""
    wanted = _unique(check_number(n) for n in numbers)
    if not wanted:
        raise InvalidInput("give at least one number", field=DNC_NUMBERS)
    note = check_note(note)
    inserted = insert_numbers(tenant.id, [(n, note) for n in wanted])
    added = [n for n in wanted if n in inserted]
    _added(actor, tenant.id, [(n, note) for n in added])
    return Added(added, [n for n in wanted if n not in inserted])


@dataclass(frozen=True)
class Removed:
    """What a remove did: the numbers taken off, and those that were not listed."""

    removed: list[str]
    not_listed: list[str]


def remove_numbers(tenant: Tenant, numbers: Iterable[str], *, actor: Actor) -> Removed:
    """Take these numbers off the list; a number that is not on it is said, not refused."""
    wanted = _unique(check_number(n) for n in numbers)
    if not wanted:
        raise InvalidInput("give at least one number", field=DNC_NUMBERS)
    found = list(
        db.session.scalars(
            select(DncNumber).where(DncNumber.tenant_id == tenant.id, DncNumber.number.in_(wanted))
        )
    )
    for entry in found:
        db.session.delete(entry)
    db.session.flush()
    record_all(
        actor,
        [
            Change(
                "dnc.removed",
                "dnc_number",
                entry.number,
                tenant.id,
                before={"number": entry.number, "note": entry.note},
            )
            for entry in found
        ],
    )
    gone = {entry.number for entry in found}
    return Removed([n for n in wanted if n in gone], [n for n in wanted if n not in gone])


def listed_numbers(tenant_id: int, numbers: Iterable[str]) -> set[str]:
    """Which of these numbers are on the tenant's list (one query; none for no E.164)."""
    wanted = {n for n in numbers if is_e164(n)}
    if not wanted:
        return set()
    return set(
        db.session.scalars(
            select(DncNumber.number).where(
                DncNumber.tenant_id == tenant_id, DncNumber.number.in_(wanted)
            )
        )
    )


def task_numbers(items: Iterable) -> list[str]:
    """The E.164 values of the phone items, in item order, each once."""
    return _unique(i.value for i in items if is_phone_key(i.key) and is_e164(i.value))


def add_task_numbers(task: Task, *, actor: Actor) -> list[str]:
    """List every phone number of the task (a work code's outcome); the task's numbers."""
    numbers = task_numbers(task.items)
    tenant_id = task.campaign.tenant_id
    inserted = insert_numbers(tenant_id, [(n, NOTE_WORK_CODE) for n in numbers])
    added = [(n, NOTE_WORK_CODE) for n in numbers if n in inserted]
    _added(actor, tenant_id, added, task=task.record_id)
    return numbers


# --- search ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """One page of a search: the entries and how many match in all."""

    entries: list[DncNumber]
    total: int


def search_condition(tenant_id: int, query: str, exact: bool) -> ColumnElement[bool]:
    """Numbers starting with `query` (digits, `+` optional), or equal to it when `exact`."""
    query = query.strip()
    digits = query.removeprefix("+")
    if digits and not (digits.isascii() and digits.isdigit()):
        raise InvalidInput(f"search '{query}' must be digits, optionally after a +")
    prefix = "+" + digits
    mine = DncNumber.tenant_id == tenant_id
    if exact:
        if not digits:
            raise InvalidInput("give the number to find")
        return and_(mine, DncNumber.number == prefix)
    if not digits:
        return mine
    return and_(mine, DncNumber.number >= prefix, DncNumber.number < prefix + AFTER_DIGITS)


def count_numbers(tenant: Tenant, query: str = "", *, exact: bool = False) -> int:
    where = search_condition(tenant.id, query, exact)
    return db.session.scalar(select(func.count()).select_from(DncNumber).where(where))


def search_numbers(
    tenant: Tenant, query: str = "", *, exact: bool = False, limit: int = 50, offset: int = 0
) -> Found:
    """The tenant's listed numbers matching `query`, by number, a page at a time."""
    where = search_condition(tenant.id, query, exact)
    entries = db.session.scalars(
        select(DncNumber).where(where).order_by(DncNumber.number).limit(limit).offset(offset)
    )
    return Found(list(entries), count_numbers(tenant, query, exact=exact))


# --- delivery ----------------------------------------------------------------------------


def _list_in_use(tenant_id: int) -> bool:
    """Whether the tenant lists any number (any tenant when 0): one index probe."""
    query = select(DncNumber.id).limit(1)
    if tenant_id:
        query = query.where(DncNumber.tenant_id == tenant_id)
    return db.session.scalar(query) is not None


def _of_task_tenant(tenant_id: int) -> ColumnElement[bool]:
    """Entries of the tenant; of the task's own tenant when the seat names none (counts
    made for any agent)."""
    if tenant_id:
        return DncNumber.tenant_id == tenant_id
    owner = (
        select(Campaign.tenant_id)
        .where(Campaign.id == Task.campaign_id)
        .correlate(Task)
        .scalar_subquery()
    )
    return DncNumber.tenant_id == owner


def callable_condition(tenant_id: int) -> ColumnElement[bool]:
    """No phone number, or one that is not listed.

    One correlated scalar subquery over the task's phone items (its items' primary key,
    task first, then the list's unique index per item): 1 when an item is not listed, the
    greatest of them wins, none at all counts as 1. Unlike an EXISTS, PostgreSQL never
    turns it into a hash of every task's items, so a LIMIT 1 pick stays a few index probes.
    Every stored phone value is E.164 or empty (`validation` refuses anything else).
    """
    unlisted = case((DncNumber.id.is_(None), 1), else_=0)
    best = (
        select(func.max(unlisted))
        .select_from(TaskItem)
        .outerjoin(DncNumber, and_(DncNumber.number == TaskItem.value, _of_task_tenant(tenant_id)))
        .where(TaskItem.task_id == Task.id, TaskItem.key.ilike("%phone%"), TaskItem.value != "")
        .scalar_subquery()
    )
    return func.coalesce(best, 1) == 1


def listed_condition(tenant_id: int) -> ColumnElement[bool] | None:
    """SQL on `task_items` (correlated): the item's value is on the list; None while the
    tenant lists nothing (one index probe says so)."""
    if not _list_in_use(tenant_id):
        return None
    return exists(
        select(DncNumber.id)
        .where(DncNumber.number == TaskItem.value, _of_task_tenant(tenant_id))
        .correlate(TaskItem, Task)
    )


def has_callable_number(seat: Seat) -> ColumnElement[bool]:
    """Eligibility: not every phone number of the task is on the tenant's list. No
    condition at all while the tenant lists nothing."""
    if not _list_in_use(seat.tenant_id):
        return true()
    return callable_condition(seat.tenant_id)


def all_listed(
    seat: Seat, ready: ColumnElement[bool], _others: OtherRules | None = None
) -> Blocked | None:
    """When tasks are ready and every one of them is kept back by the list: say so (the
    clock never ends it: None for when)."""
    if not _list_in_use(seat.tenant_id):
        return None
    callable_ = callable_condition(seat.tenant_id)
    kept_back = select(Task.id).where(ready, ~callable_).limit(1)
    if db.session.scalar(kept_back) is None:
        return None
    if db.session.scalar(select(Task.id).where(ready, callable_).limit(1)) is not None:
        return None
    return Blocked(ALL_LISTED)
