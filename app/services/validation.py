"""The rules a task's data items obey, whichever door they come in by."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from app.models import SkillQueue, Tenant
from app.services.errors import InvalidClientId, InvalidDataKey, InvalidInput
from app.services.rules import (
    from_epoch_ms,
    is_e164,
    is_phone_key,
    parse_number,
    require_time_zone,
)
from app.services.tenants import get_skill_queue

MAX_INT = 2**31 - 1  # the largest integer every database's INTEGER column holds
MAX_CLIENT_ID = 255
MAX_AGENT = 255

MAX_ITEMS = 500
MAX_KEY = 255
# A PostgreSQL b-tree entry holds at most about 2,700 bytes; the value is indexed.
MAX_VALUE_BYTES = 2000

SKILL_QUEUE_KEY = "SkillQueue"
TIME_ZONE_KEY = "ItemTimeZone"


class ItemInput(NamedTuple):
    """One data item as sent: key, value and an optional display order.

    A named tuple: bulk loads make millions of them.
    """

    key: str
    value: str
    display_order: int | None = None

    @property
    def number(self) -> float | None:
        return parse_number(self.value)


@dataclass(frozen=True)
class SpecialItems:
    """What the special keys of a task's data ask for."""

    skill_queue: SkillQueue | None
    time_zone: str | None


def _check_item(index: int, item: ItemInput) -> None:
    where = f"previewRecordData[{index}]"
    if not item.key.strip():
        raise InvalidInput(f"{where}.key must not be empty")
    if len(item.key) > MAX_KEY:
        raise InvalidInput(f"{where}.key must be at most {MAX_KEY} characters")
    if len(item.value) * 4 > MAX_VALUE_BYTES and len(item.value.encode()) > MAX_VALUE_BYTES:
        raise InvalidInput(f"{where}.value must be at most {MAX_VALUE_BYTES} bytes")
    if item.display_order is not None and item.display_order <= 0:
        raise InvalidInput(f"{where}.displayOrder must be greater than zero")
    if item.display_order is not None and item.display_order > MAX_INT:
        raise InvalidInput(f"{where}.displayOrder must be at most {MAX_INT}")
    # An empty phone value means the record has no such number; anything else must dial.
    if is_phone_key(item.key) and item.value and not is_e164(item.value):
        raise InvalidInput(
            f"{where}.value '{item.value}' of phone key '{item.key}' is not an E.164 number "
            "(a plus sign, the country code and digits, e.g. +14155550123)"
        )


QueueLookup = Callable[[str, str], SkillQueue]


def validate_items(
    tenant: Tenant | None,
    items: list[ItemInput],
    queues: QueueLookup | None = None,
) -> SpecialItems:
    """Check every item and resolve the SkillQueue and ItemTimeZone keys.

    `queues(name, field)` finds a skill queue of the tenant or raises InvalidInput; bulk
    loads pass one that reads from what they loaded up front (and then need no tenant).
    """
    queues = queues or (lambda name, field: get_skill_queue(tenant, name, field))
    if len(items) > MAX_ITEMS:
        raise InvalidInput(f"previewRecordData holds at most {MAX_ITEMS} items")
    seen: set[str] = set()
    queue, zone = None, None
    for index, item in enumerate(items):
        _check_item(index, item)
        if item.key in seen:
            raise InvalidInput(f"previewRecordData[{index}].key '{item.key}' is sent twice")
        seen.add(item.key)
        if item.key == SKILL_QUEUE_KEY:
            queue = queues(item.value, f"previewRecordData[{index}] SkillQueue")
        elif item.key == TIME_ZONE_KEY:
            zone = require_time_zone(item.value, f"previewRecordData[{index}] ItemTimeZone")
    return SpecialItems(queue, zone)


@dataclass(frozen=True)
class TaskPlan:
    """A validated add or update, ready to be written.

    `items` starts with the clientId item. None in the optional fields leaves the task's
    value as it is; a preferred agent of "" clears it.
    """

    client_id: str
    field_name: str
    items: list[ItemInput]
    skill_queue: SkillQueue | None
    time_zone: str | None
    preferred_agent: str | None
    next_work: datetime | None


def check_agent(agent: str | None) -> None:
    if agent is not None and len(agent) > MAX_AGENT:
        raise InvalidInput(f"preferredAgent must be at most {MAX_AGENT} characters")


def check_client_id(client_id: str | None) -> str:
    if client_id is None or not client_id.strip():
        raise InvalidClientId("clientId is required")
    if len(client_id) > MAX_CLIENT_ID:
        raise InvalidInput(f"clientId must be at most {MAX_CLIENT_ID} characters")
    return client_id


def plan_task(
    tenant: Tenant | None,
    client_id: str | None,
    items: list[ItemInput] | None,
    field_name: str,
    *,
    preferred_agent: str | None = None,
    next_earliest_ms: int | None = None,
    queues: QueueLookup | None = None,
) -> TaskPlan:
    """Apply every add/update rule to one task's input, without touching the database.

    The spec's own statuses come first: INVALIDCLIENTID, then INVALIDRECORDDATAKEY, then
    every other refusal (FAILED).
    """
    client_id = check_client_id(client_id)
    if items is None:
        raise InvalidInput("previewRecordData is required")
    for index, item in enumerate(items):
        if item.key == field_name:
            raise InvalidDataKey(
                f"previewRecordData[{index}].key '{item.key}' is the clientId field name; "
                "send the id as clientId"
            )
    if len(field_name) > 255:
        raise InvalidInput("clientIdFieldName must be at most 255 characters")
    check_agent(preferred_agent)
    next_work = None
    if next_earliest_ms is not None:
        next_work = from_epoch_ms(next_earliest_ms, "nextEarliestWorkTimeUTC")
    specials = validate_items(tenant, items, queues)
    return TaskPlan(
        client_id,
        field_name,
        [ItemInput(field_name, client_id), *items],
        specials.skill_queue,
        specials.time_zone,
        preferred_agent,
        next_work,
    )
