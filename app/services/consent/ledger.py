"""The tenant's consent ledger: each consent given to call a number and each revoked.

- A record is never changed or removed: a consent is ended by a revocation, and the
  history of a number (`history`) is every record in the order they took effect.
- A number's consent is **in force** at a moment for a campaign when a consent was given
  up to that moment, for every campaign or for that one, and no revocation came at or after
  it up to that moment. A revocation counts for every campaign of the tenant, at once.
- `at` is when it was given or revoked (a signed form last March, a letter today): never
  in the future; it defaults to now. Who recorded it is the actor.
- Every record leaves its audit record and its event (`consent.given`, `consent.revoked`)
  in the caller's transaction, one per number.
- Numbers are E.164 (as every stored phone value); a command's numbers are all or none.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import ColumnElement, exists, or_, select
from sqlalchemy.orm import aliased

from app.extensions import db
from app.models import Campaign, Task, Tenant
from app.models.consent import GIVEN, REVOKED, ConsentRecord
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.audit.trail import Change, record_all
from app.services.errors import InvalidInput
from app.services.fields import CONSENT_AT, CONSENT_NUMBERS, CONSENT_PURPOSE, CONSENT_SOURCE
from app.services.values import is_e164, is_phone_key, require_e164

MAX_TEXT = 255
# How a revocation by a work code at the desk is recorded.
BY_WORK_CODE = "work code at the desk"


def check_number(value: str) -> str:
    """The number without surrounding blanks when it is E.164; InvalidInput otherwise."""
    return require_e164(value, CONSENT_NUMBERS)


def check_numbers(numbers: Iterable[str]) -> list[str]:
    """Each number once, in order; InvalidInput for none or one that is not E.164."""
    wanted = list(dict.fromkeys(check_number(n) for n in numbers))
    if not wanted:
        raise InvalidInput("give at least one number", field=CONSENT_NUMBERS)
    return wanted


def _text(value: str, field, words: str) -> str:
    value = (value or "").strip()
    if len(value) > MAX_TEXT:
        raise InvalidInput(f"{words} is longer than {MAX_TEXT} characters", field=field)
    return value


def check_at(at: datetime | None, now: datetime) -> datetime:
    """When it took effect: `now` when not said; InvalidInput when it is in the future."""
    if at is None:
        return now
    if at.tzinfo is None:
        raise InvalidInput("the time must say its zone (Z or an offset)", field=CONSENT_AT)
    if at > now:
        raise InvalidInput(
            f"the time {at.isoformat()} is in the future: a consent is recorded as it happened",
            field=CONSENT_AT.said_as("at"),
        )
    return at


def _facts(entry: ConsentRecord) -> dict:
    facts = {"number": entry.number, "action": entry.action, "at": entry.at}
    if entry.action == GIVEN:
        facts["source"] = entry.source
        facts["campaign"] = entry.campaign.name if entry.campaign is not None else None
        facts["purpose"] = entry.purpose
    else:
        facts["how"] = entry.source
    return facts


def _write(tenant_id: int, entries: list[ConsentRecord], actor: Actor) -> list[ConsentRecord]:
    db.session.add_all(entries)
    db.session.flush()
    changes = []
    for entry in entries:
        facts = _facts(entry)
        kind = f"consent.{entry.action}"
        changes.append(
            Change(kind, "consent_record", str(entry.id), tenant_id, after=facts,
                   event_type=kind, event_data={"consent": facts}, subject=entry.number)
        )  # fmt: skip
    record_all(actor, changes)
    return entries


def give(
    tenant: Tenant,
    numbers: Iterable[str],
    *,
    actor: Actor,
    at: datetime | None = None,
    source: str = "",
    campaign: Campaign | None = None,
    purpose: str = "",
    now: datetime | None = None,
) -> list[ConsentRecord]:
    """Record consent given to call these numbers (for every campaign, or `campaign`'s)."""
    now = now or utcnow()
    wanted = check_numbers(numbers)
    at = check_at(at, now)
    source = _text(source, CONSENT_SOURCE, "source")
    purpose = _text(purpose, CONSENT_PURPOSE, "purpose")
    by = actor.describe()[:MAX_TEXT]
    entries = [
        ConsentRecord(tenant_id=tenant.id, number=number, action=GIVEN, at=at, source=source,
                      campaign=campaign, purpose=purpose, recorded_by=by, recorded_at=now)
        for number in wanted
    ]  # fmt: skip
    return _write(tenant.id, entries, actor)


def revoke(
    tenant: Tenant,
    numbers: Iterable[str],
    *,
    actor: Actor,
    at: datetime | None = None,
    how: str = "",
    now: datetime | None = None,
) -> list[ConsentRecord]:
    """Record these numbers' consent revoked, in every campaign of the tenant."""
    now = now or utcnow()
    wanted = check_numbers(numbers)
    at = check_at(at, now)
    how = _text(how, CONSENT_SOURCE.said_as("how"), "how")
    by = actor.describe()[:MAX_TEXT]
    entries = [
        ConsentRecord(tenant_id=tenant.id, number=number, action=REVOKED, at=at, source=how,
                      purpose="", recorded_by=by, recorded_at=now)
        for number in wanted
    ]  # fmt: skip
    return _write(tenant.id, entries, actor)


def revoke_task_numbers(task: Task, *, actor: Actor, now: datetime) -> list[str]:
    """Revoke the consent of every phone number of the task (a work code's outcome); the
    numbers revoked (none: the task has no number)."""
    numbers = list(
        dict.fromkeys(i.value for i in task.items if is_phone_key(i.key) and is_e164(i.value))
    )
    if numbers:
        revoke(task.campaign.tenant, numbers, actor=actor, how=BY_WORK_CODE, now=now)
    return numbers


def history(tenant: Tenant, number: str) -> list[ConsentRecord]:
    """Every record of the number, in the order they took effect: by `at`, a revocation
    after a consent given at the same moment (it wins), then as recorded."""
    number = check_number(number)
    found = db.session.scalars(
        select(ConsentRecord).where(
            ConsentRecord.tenant_id == tenant.id, ConsentRecord.number == number
        )
    )
    return sorted(found, key=lambda e: (e.at, e.action == REVOKED, e.id))


def standing(entries: list[ConsentRecord]) -> list[ConsentRecord]:
    """Of a number's history (as `history` orders it), the consents given still in force
    after it: those since the last revocation."""
    found: list[ConsentRecord] = []
    for entry in entries:
        found = [] if entry.action == REVOKED else [*found, entry]
    return found


def scope_text(entry: ConsentRecord) -> str:
    """`every campaign`, or `campaign Renewals` for a consent given for one."""
    return f"campaign {entry.campaign.name}" if entry.campaign else "every campaign"


def standing_text(entries: list[ConsentRecord]) -> str:
    """What a number's history (as `history` orders it) leaves in force, in words."""
    if not entries:
        return "no consent on record"
    in_force = standing(entries)
    if not in_force:
        return "no consent in force"
    return "consent in force for " + ", ".join(dict.fromkeys(scope_text(e) for e in in_force))


def _in_force(
    given, tenant_id: ColumnElement[int] | int, number, campaign_id, now: datetime
) -> list[ColumnElement[bool]]:
    """The conditions on a record `given` (an alias) that it is a consent given to `number`
    in force at `now` for the campaign: for every campaign or that one, and no revocation
    at or after it up to now (a revocation at the same moment wins)."""
    revoked = aliased(ConsentRecord, name="consent_revoked")
    later_revocation = exists(
        select(revoked.id).where(
            revoked.tenant_id == given.tenant_id,
            revoked.number == given.number,
            revoked.action == REVOKED,
            revoked.at >= given.at,
            revoked.at <= now,
        )
    )
    return [
        given.tenant_id == tenant_id,
        given.number == number,
        given.action == GIVEN,
        given.at <= now,
        or_(given.campaign_id.is_(None), given.campaign_id == campaign_id),
        ~later_revocation,
    ]


def in_force_condition(
    tenant_id: ColumnElement[int] | int,
    number: ColumnElement[str],
    campaign_id: ColumnElement[int],
    now: datetime,
) -> ColumnElement[bool]:
    """SQL: a consent for `number` in force at `now` for the campaign (correlated on the
    columns given). Probes of the ledger's (tenant, number, at) index."""
    given = aliased(ConsentRecord, name="consent_given")
    return exists(select(given.id).where(*_in_force(given, tenant_id, number, campaign_id, now)))


def in_force(tenant_id: int, number: str, campaign_id: int, now: datetime) -> ConsentRecord | None:
    """The consent given that is in force for the number and campaign at `now` (the latest
    of them), or None."""
    given = aliased(ConsentRecord, name="consent_given")
    return db.session.scalar(
        select(given)
        .where(*_in_force(given, tenant_id, number, campaign_id, now))
        .order_by(given.at.desc(), given.id.desc())
        .limit(1)
    )


def last_revocation(tenant_id: int, number: str, now: datetime) -> ConsentRecord | None:
    """The latest revocation of the number up to `now`, or None."""
    return db.session.scalar(
        select(ConsentRecord)
        .where(
            ConsentRecord.tenant_id == tenant_id,
            ConsentRecord.number == number,
            ConsentRecord.action == REVOKED,
            ConsentRecord.at <= now,
        )
        .order_by(ConsentRecord.at.desc(), ConsentRecord.id.desc())
        .limit(1)
    )
