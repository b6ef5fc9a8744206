"""The counts of the contact limits: a mark per call placed (and per contact made) to each
scope it counts for, counted in each limit's rolling window.

- A call placed marks its number (`number:+14155550100`), its person (`person:` the task's
  data item named by the tenant's person key, else its clientId) and its task
  (`task:42`), with its campaign and time, in the call's own transaction: every call
  counts, a redial inside one attempt (Call again) as a second call.
- A limit counts the marks of its kind (calls or contacts) of one scope since `within`
  before now (a mark exactly `within` old has left the window), in its campaign or all:
  one range of `ix_contact_marks_scope`, reading at most `max` entries.
- Reached, it holds until enough marks have left: the `max`-th newest mark's time plus
  `within`.
- `admit_call` first takes the lock of each scope a limit counts (an upserted
  `contact_scopes` row, in key order, held until the call's commit on PostgreSQL; the
  transaction's write turn on SQLite), then counts: calls to one number at the same
  moment from several hosts are counted one after another, and a limit of 3 lets 3 pass.
- Marks older than the longest window a limit may have (90 days) count for nothing: the
  worker deletes them every day (`prune_marks`).
- `verdicts` answers, for tasks at a moment, whether they may be called and until when
  not: a task is held back by a reached limit per person or per task, or by every one of
  its numbers being held (a task without a phone item by person and task limits only).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, Select, and_, func, select, true
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.db.pruning import delete_in_batches
from app.extensions import db
from app.models import ContactLimit, ContactMark, ContactScope, Task, TaskItem, Tenant
from app.services.contact_limits.limits import MAX_MINUTES, limit_words
from app.services.contactability.seat import local_text
from app.services.dnc.numbers import task_numbers
from app.services.errors import NotAvailable
from app.services.regions import in_region
from app.services.values import unwrapped

CALL, CONTACT = "call", "contact"
KIND_OF = {"calls": CALL, "contacts": CONTACT}
# A person's value longer than this is keyed by its digest (the key's column holds 300).
LONGEST_PERSON = 200


class ContactLimitReached(NotAvailable):
    """A contact limit holds the call back until `until` (UTC)."""

    def __init__(self, message: str, *, until: datetime) -> None:
        super().__init__(message)
        self.until = until


@dataclass(frozen=True)
class Hold:
    """One reached limit: which, for which scope (`number +1415…`), until when."""

    limit: ContactLimit
    scope: str
    until: datetime

    @property
    def message(self) -> str:
        return f"contact limit {self.limit.id} reached for {self.scope} ({limit_words(self.limit)})"


@dataclass(frozen=True)
class Verdict:
    """Whether a task may be called at the moment asked: `until` is when it may (None:
    now); `holds` what holds the whole task back, `numbers` each phone number's holds."""

    task_id: int
    holds: list[Hold] = field(default_factory=list)
    numbers: dict[str, list[Hold]] = field(default_factory=dict)

    @property
    def callable_now(self) -> bool:
        return self.until is None

    @property
    def until(self) -> datetime | None:
        ends = [hold.until for hold in self.holds]
        if self.numbers:
            per_number = [
                max((h.until for h in holds), default=None) for holds in self.numbers.values()
            ]
            if any(end is None for end in per_number):
                number_end = None
            else:
                number_end = min(end for end in per_number if end is not None)
            if number_end is not None:
                ends.append(number_end)
        return max(ends, default=None)


# --- scopes -------------------------------------------------------------------------------


def person_of(task: Task, person_key: str | None, items: Iterable[TaskItem] | None = None) -> str:
    """The person a task calls: its item named by the person key, else its clientId."""
    if person_key:
        for item in task.items if items is None else items:
            if item.key == person_key and (item.value or "").strip():
                return item.value.strip()
    return task.client_id


def scope_key(per: str, value: str | int) -> str:
    text = str(value)
    if per == "person" and len(text) > LONGEST_PERSON:
        text = "#" + hashlib.sha256(text.encode()).hexdigest()
    return f"{per}:{text}"


def _scope_words(per: str, key: str) -> str:
    value = key.split(":", 1)[1]
    return f"task {value}" if per == "task" else f"{per} {value}"


def _scopes(task: Task, person_key: str | None, number: str | None) -> dict[str, str]:
    scopes = {"person": scope_key("person", person_of(task, person_key)),
              "task": scope_key("task", task.id)}  # fmt: skip
    if number:
        scopes["number"] = scope_key("number", number)
    return scopes


# --- counting -----------------------------------------------------------------------------


def campaign_limits(tenant_id: int, campaign_id: int) -> list[ContactLimit]:
    """The tenant's limits that count calls of this campaign, regional ones included."""
    return [
        limit
        for limit in db.session.scalars(
            select(ContactLimit)
            .where(ContactLimit.tenant_id == tenant_id)
            .order_by(ContactLimit.id)
        )
        if limit.campaign_id in (None, campaign_id)
    ]


def applying(limits: Iterable[ContactLimit], task: Task | None) -> list[ContactLimit]:
    """Of a campaign's limits, those counting calls of `task`: a regional limit only when
    the task is in its region (without a task, none)."""
    regions = set(unwrapped(task.regions)) if task is not None else set()
    return [limit for limit in limits if limit.region is None or limit.region in regions]


def limits_for(tenant_id: int, campaign_id: int, task: Task | None = None) -> list[ContactLimit]:
    """The tenant's limits that count calls of this campaign (of `task`, in its regions)."""
    return applying(campaign_limits(tenant_id, campaign_id), task)


def _in_window(tenant_id: int, limit: ContactLimit, key, now: datetime, *columns) -> Select:
    """The scope's marks the limit counts at `now` (`key`: a scope key, or SQL of one;
    None: every scope's)."""
    window = timedelta(minutes=limit.within_minutes)
    query = select(*columns).where(
        ContactMark.tenant_id == tenant_id,
        ContactMark.kind == KIND_OF[limit.counting],
        ContactMark.at > now - window,
    )
    if key is not None:
        query = query.where(ContactMark.scope_key == key)
    if limit.campaign_id is not None:
        query = query.where(ContactMark.campaign_id == limit.campaign_id)
    return query


def held_until(tenant_id: int, limit: ContactLimit, key: str, now: datetime) -> datetime | None:
    """When the limit lets a call to this scope be placed, if not now."""
    query = _in_window(tenant_id, limit, key, now, ContactMark.at)
    oldest_kept = db.session.scalar(
        query.order_by(ContactMark.at.desc()).offset(limit.max_count - 1).limit(1)
    )
    window = timedelta(minutes=limit.within_minutes)
    return None if oldest_kept is None else oldest_kept + window


def counted_marks(tenant_id: int, limit: ContactLimit, now: datetime, *columns) -> Select:
    """Every mark the limit counts at `now`, whatever its scope: the calls that leave its
    window later are the only moments it can let a held call go."""
    return _in_window(tenant_id, limit, None, now, *columns)


@dataclass(frozen=True)
class Count:
    """One limit as it stood for a call: the scope it counted and how many it counted."""

    limit: ContactLimit
    scope: str
    count: int


def held_condition(
    tenant_id: int, limit: ContactLimit, key: ColumnElement[str], now: datetime
) -> ColumnElement[bool]:
    """SQL: the limit holds calls to the scope `key` (an SQL expression of the task or its
    item, e.g. `'number:' || task_items.value`) back at `now`, for tasks it counts for (its
    campaign's, or any): `held_until`'s own query, asked in SQL."""
    query = _in_window(tenant_id, limit, key, now, ContactMark.at)
    kept = query.order_by(ContactMark.at.desc()).offset(limit.max_count - 1).limit(1)
    held = kept.scalar_subquery().is_not(None)
    applies = true() if limit.campaign_id is None else Task.campaign_id == limit.campaign_id
    if limit.region is not None:
        applies = and_(applies, in_region(limit.region))
    return and_(applies, held)


def tenant_limits(tenant_id: int) -> list[ContactLimit]:
    """Every limit of the tenant, oldest first."""
    return list(
        db.session.scalars(
            select(ContactLimit)
            .where(ContactLimit.tenant_id == tenant_id)
            .order_by(ContactLimit.id)
        )
    )


def person_key_of(tenant_id: int) -> str | None:
    tenant = db.session.get(Tenant, tenant_id)
    return tenant.person_key if tenant else None


def holds_for(task: Task, number: str | None, now: datetime) -> list[Hold]:
    """The reached limits holding a call to `number` of `task` back at `now` (no number:
    the person and task limits only), without taking any lock."""
    tenant_id = task.campaign.tenant_id
    scopes = _scopes(task, person_key_of(tenant_id), number)
    return _holds(tenant_id, limits_for(tenant_id, task.campaign_id, task), scopes, now)


def _holds(
    tenant_id: int, limits: Sequence[ContactLimit], scopes: dict[str, str], now
) -> list[Hold]:
    holds = []
    for limit in limits:
        key = scopes.get(limit.per)
        if key is None:
            continue
        until = held_until(tenant_id, limit, key, now)
        if until is not None:
            holds.append(Hold(limit, _scope_words(limit.per, key), until))
    return holds


def _lock(session: Session, tenant_id: int, keys: Iterable[str], now: datetime) -> None:
    """Take each scope's row lock (made when first counted), in key order, in one
    statement: a second call to the same scope waits here for the first one's commit,
    then counts its mark."""
    ordered = sorted(set(keys))
    if not ordered:
        return
    connection = session.connection()
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(ContactScope.__table__).values(
        [{"tenant_id": tenant_id, "scope_key": key, "counted_at": now} for key in ordered]
    )
    session.execute(
        statement.on_conflict_do_update(
            index_elements=["tenant_id", "scope_key"],
            set_={"counted_at": statement.excluded.counted_at},
        )
    )


def mark(
    session: Session,
    tenant_id: int,
    keys: Iterable[str],
    kind: str,
    campaign_id: int,
    at: datetime,
    attempt_id: int | None = None,
) -> None:
    rows = [
        {"tenant_id": tenant_id, "scope_key": key, "kind": kind, "campaign_id": campaign_id,
         "at": at, "attempt_id": attempt_id}
        for key in dict.fromkeys(keys)
    ]  # fmt: skip
    if rows:
        session.execute(ContactMark.__table__.insert(), rows)


def _tallies(tenant_id: int, counted: list[tuple[ContactLimit, str]], now) -> list[int]:
    """How many marks each (limit, scope key) counts at `now`, in one statement."""
    if not counted:
        return []
    parts = [
        _in_window(tenant_id, limit, key, now, func.count()).scalar_subquery()
        for limit, key in counted
    ]
    return [count or 0 for count in db.session.execute(select(*parts)).one()]


def admit_call(
    task: Task,
    number: str | None,
    *,
    now: datetime,
    zone: str = "UTC",
    limits: Iterable[ContactLimit] | None = None,
) -> list[Count]:
    """The check at the click, in the call's own transaction: ContactLimitReached when a
    limit holds this call to `number` of `task` back (nothing marked); else the call's
    marks, and each limit counting it with its count, this call included. `zone`: the zone
    the refusal's time is told in; `limits`: the tenant's limits, when read already."""
    campaign = task.campaign
    tenant_id = campaign.tenant_id
    tenant = db.session.get(Tenant, tenant_id)
    scopes = _scopes(task, tenant.person_key if tenant else None, number)
    if limits is None:
        counting = limits_for(tenant_id, campaign.id, task)
    else:
        counting = applying([lim for lim in limits if lim.campaign_id in (None, campaign.id)], task)
    counting = [limit for limit in counting if limit.per in scopes]
    if counting:
        _lock(db.session, tenant_id, (scopes[limit.per] for limit in counting), now)
    found, holds = [], []
    tallies = _tallies(tenant_id, [(limit, scopes[limit.per]) for limit in counting], now)
    for limit, count in zip(counting, tallies, strict=True):
        key = scopes[limit.per]
        if count >= limit.max_count:
            until = held_until(tenant_id, limit, key, now)
            if until is not None:
                holds.append(Hold(limit, _scope_words(limit.per, key), until))
        marked = 1 if KIND_OF[limit.counting] == CALL else 0
        found.append(Count(limit, _scope_words(limit.per, key), count + marked))
    if holds:
        last = max(holds, key=lambda hold: hold.until)
        raise ContactLimitReached(
            f"{last.message}: the call may be placed from {local_text(last.until, zone)}",
            until=last.until,
        )
    mark(db.session, tenant_id, scopes.values(), CALL, campaign.id, now)
    return found


def verdicts(tasks: Sequence[Task], now: datetime) -> list[Verdict]:
    """For each task (in order): may it be called at `now`, and until when not."""
    answers = []
    person_keys: dict[int, str | None] = {}
    limits: dict[int, list[ContactLimit]] = {}
    for task in tasks:
        tenant_id = task.campaign.tenant_id
        if tenant_id not in person_keys:
            tenant = db.session.get(Tenant, tenant_id)
            person_keys[tenant_id] = tenant.person_key if tenant else None
        if task.campaign_id not in limits:
            limits[task.campaign_id] = campaign_limits(tenant_id, task.campaign_id)
        applying_now = applying(limits[task.campaign_id], task)
        if not applying_now:
            answers.append(Verdict(task.id))
            continue
        scopes = _scopes(task, person_keys[tenant_id], None)
        whole = [lim for lim in applying_now if lim.per != "number"]
        per_number = [lim for lim in applying_now if lim.per == "number"]
        numbers = {
            number: _holds(tenant_id, per_number, {"number": scope_key("number", number)}, now)
            for number in task_numbers(task.items)
        }
        answers.append(Verdict(task.id, _holds(tenant_id, whole, scopes, now), numbers))
    return answers


def prune_marks(now: datetime) -> int:
    """Delete the marks no limit can count any more (older than the longest window, 90
    days) and the lock rows of scopes no call counted since; the number of marks deleted."""
    cutoff = now - timedelta(minutes=MAX_MINUTES)
    deleted = delete_in_batches(db.session, ContactMark, ContactMark.at < cutoff, [ContactMark.id])
    delete_in_batches(
        db.session,
        ContactScope,
        ContactScope.counted_at < cutoff,
        [ContactScope.tenant_id, ContactScope.scope_key],
    )
    return deleted
