"""Finding a campaign's tasks: by previewRecordID or clientId, for reading or for changing.

The lookups every task action sends are built once. A lookup for changing takes the write
lock first (SQLite, app/db/transactions.py) and the task's row lock (PostgreSQL), and reads again a
task read before it: only what is read under the lock may be changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from sqlalchemy import bindparam, select
from sqlalchemy.orm import joinedload

from app.db.plain_reads import PlainRead
from app.db.transactions import take_write_lock
from app.extensions import db
from app.models import Campaign, SkillQueue, Task
from app.services.errors import InvalidInput, NotFound, TaskNotFound
from app.services.snapshots import TaskSnapshot
from app.services.tasks.snapshots import stored_snapshot


@dataclass(frozen=True)
class Locator:
    """How a request names one task: previewRecordId wins over clientId."""

    record_id: str | None = None
    client_id: str | None = None

    def describe(self) -> str:
        if self.record_id:
            return f"previewRecordId '{self.record_id}'"
        return f"clientId '{self.client_id}'"


_CAMPAIGN = (
    select(Campaign)
    .options(joinedload(Campaign.default_skill_queue))
    .where(Campaign.tenant_id == bindparam("tenant_id"), Campaign.name == bindparam("name"))
)


def campaign_named(tenant_id: int, name: str) -> Campaign:
    """The tenant's campaign a task action names, with its default queue (a new task's);
    NotFound when it has none of that name."""
    campaign = db.session.scalar(_CAMPAIGN, {"tenant_id": tenant_id, "name": name})
    if campaign is None:
        raise _no_campaign(name)
    return campaign


class CampaignRef(NamedTuple):
    """What a read of a campaign's tasks needs of the campaign, read without the ORM."""

    id: int
    tenant_id: int
    name: str


_CAMPAIGN_REF = PlainRead(
    select(Campaign.id, Campaign.tenant_id, Campaign.name).where(
        Campaign.tenant_id == bindparam("tenant_id"), Campaign.name == bindparam("name")
    )
)


def campaign_ref(tenant_id: int, name: str) -> CampaignRef:
    """The tenant's campaign a search names, as `campaign_named` finds it but as a plain
    row; NotFound when it has none of that name."""
    row = _CAMPAIGN_REF.first(db.session, tenant_id=tenant_id, name=name)
    if row is None:
        raise _no_campaign(name)
    return CampaignRef(*row)


class CampaignRow(NamedTuple):
    """What an add of a task needs of its campaign, read without the ORM: building the
    Campaign and its queue as models costs an add more than all its reads (some 0.3 ms)."""

    id: int
    tenant_id: int
    name: str
    status: str
    client_id_field_name: str
    default_skill_queue_id: int
    default_time_zone: str
    zone_from: str
    default_queue_name: str


_QUEUES = SkillQueue.__table__
_CAMPAIGNS = Campaign.__table__
_CAMPAIGN_ROW = PlainRead(
    select(
        *(_CAMPAIGNS.c[name] for name in CampaignRow._fields[:-1]),
        _QUEUES.c.name.label("default_queue_name"),
    )
    .join(_QUEUES, _QUEUES.c.id == _CAMPAIGNS.c.default_skill_queue_id)
    .where(_CAMPAIGNS.c.tenant_id == bindparam("tenant_id"), _CAMPAIGNS.c.name == bindparam("name"))
)


def campaign_row(tenant_id: int, name: str) -> CampaignRow:
    """The tenant's campaign an add names, with its default queue's name, as a plain row;
    NotFound when it has none of that name."""
    row = _CAMPAIGN_ROW.first(db.session, tenant_id=tenant_id, name=name)
    if row is None:
        raise _no_campaign(name)
    return CampaignRow(*row)


def campaign_model(campaign: CampaignRow) -> Campaign:
    """The campaign of a plain row as a model, with its default queue: a task read to be
    updated then finds them in the session rather than reading each again."""
    options = [joinedload(Campaign.default_skill_queue)]
    return db.session.get(Campaign, campaign.id, options=options)


def _no_campaign(name: str) -> NotFound:
    return NotFound(f"campaign '{name}' does not exist in this environment")


_BY = {
    by: select(Task).where(
        Task.campaign_id == bindparam("campaign_id"), located == bindparam("value")
    )
    for by, located in (("record_id", Task.record_id), ("client_id", Task.client_id))
}
_BY_LOCKING = {  # populate_existing: a task read before is read again
    by: query.with_for_update(of=Task).execution_options(populate_existing=True)
    for by, query in _BY.items()
}


def _task_by(by: str, campaign: Campaign, value: str, lock: bool) -> Task | None:
    if lock:
        # Writers lock the task row first (PostgreSQL), so two updates of one task take
        # turns instead of interleaving their deletes and inserts of its items; on SQLite
        # the write lock, taken here, serialises writers.
        take_write_lock(db.session)
    query = (_BY_LOCKING if lock else _BY)[by]
    return db.session.scalar(query, {"campaign_id": campaign.id, "value": value})


def by_record_id(campaign: Campaign, record_id: str, lock: bool = False) -> Task | None:
    """The campaign's task of this previewRecordID, or None; `lock` to change it."""
    return _task_by("record_id", campaign, record_id, lock)


def by_client_id(campaign: Campaign, client_id: str, lock: bool = False) -> Task | None:
    """The campaign's task of this clientId, or None; `lock` to change it."""
    return _task_by("client_id", campaign, client_id, lock)


def find_task(campaign: Campaign, locator: Locator, lock: bool = False) -> Task:
    """The task the locator names, or TaskNotFound; `lock` when the caller will change it."""
    if locator.record_id:
        task = by_record_id(campaign, locator.record_id, lock)
    elif locator.client_id:
        task = by_client_id(campaign, locator.client_id, lock)
    else:
        raise InvalidInput("previewRecordId or clientId is required")
    if task is None:
        raise _not_found(campaign, locator)
    return task


def find_task_snapshot(campaign: Campaign | CampaignRef, locator: Locator) -> TaskSnapshot:
    """The task the locator names as stored, read as plain rows; TaskNotFound."""
    if locator.record_id:
        found = stored_snapshot(campaign.name, campaign.id, "record_id", locator.record_id)
    else:
        found = stored_snapshot(campaign.name, campaign.id, "client_id", locator.client_id)
    if found is None:
        raise _not_found(campaign, locator)
    return found


def _not_found(campaign: Campaign | CampaignRef, locator: Locator) -> TaskNotFound:
    return TaskNotFound(f"no task with {locator.describe()} in campaign '{campaign.name}'")


_STORED_KEY = {by: query.with_only_columns(Task.client_id_field) for by, query in _BY.items()}


def stored_key(campaign: Campaign, record_id: str | None, client_id: str) -> str | None:
    """The key a stored task keeps its clientId under, read without loading the task."""
    where = {"campaign_id": campaign.id}
    key = record_id and db.session.scalar(_STORED_KEY["record_id"], {**where, "value": record_id})
    return key or db.session.scalar(_STORED_KEY["client_id"], {**where, "value": client_id})


def find_tenant_task(tenant_id: int, record_id: str) -> Task | None:
    """A task of the tenant by its previewRecordID, whichever campaign holds it now."""
    return db.session.scalar(
        select(Task)
        .join(Campaign, Campaign.id == Task.campaign_id)
        .where(Campaign.tenant_id == tenant_id, Task.record_id == record_id)
    )
