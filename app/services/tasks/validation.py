"""The rules a task's data items obey, whichever door they come in by."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple, TypeVar

from app.models import SkillQueue, Tenant
from app.services import phone_numbers
from app.services.errors import InvalidClientId, InvalidDataKey, InvalidInput, ServiceError
from app.services.fields import (
    DISPLAY_ORDER,
    KEY,
    TASK_CLIENT_ID,
    TASK_CLIENT_ID_FIELD_NAME,
    TASK_ITEMS,
    TASK_NEXT_EARLIEST,
    TASK_PREFERRED_AGENT,
    VALUE,
    Field,
)
from app.services.tenants.setup import get_skill_queue
from app.services.values import (
    SentTime,
    checked_time,
    is_e164,
    is_phone_key,
    parse_number,
    require_time_zone,
)

MAX_INT = 2**31 - 1  # the largest integer every database's INTEGER column holds
MAX_CLIENT_ID = 255
MAX_AGENT = 255

MAX_ITEMS = 500
MAX_KEY = 255
# A PostgreSQL b-tree entry holds at most about 2,700 bytes; the value is indexed.
MAX_VALUE_BYTES = 2000

T = TypeVar("T")

MAX_CRITERIA = 50  # search criteria in one search

SKILL_QUEUE_KEY = "SkillQueue"
TIME_ZONE_KEY = "ItemTimeZone"
SPECIAL_KEYS = frozenset({SKILL_QUEUE_KEY, TIME_ZONE_KEY})  # a refusal of one names its value

# The fields as this module's messages name them (the spec's names, but the data items'): the
# CLI and the bulk and intake reports show the messages whole; the API names a field first
# from its own table (api/fields.py), the pages by the form's label.
ITEMS = TASK_ITEMS.said_as("data items")
CLIENT_ID = TASK_CLIENT_ID.said_as("clientId")
CLIENT_ID_FIELD_NAME = TASK_CLIENT_ID_FIELD_NAME.said_as("clientIdFieldName")
PREFERRED_AGENT = TASK_PREFERRED_AGENT.said_as("preferredAgent")
NEXT_EARLIEST = TASK_NEXT_EARLIEST.said_as("nextEarliestWorkTimeUTC")


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

    @property
    def valid_number(self) -> bool | None:
        """A phone item's: whether its value is a number that exists; else None."""
        if not self.value or not is_phone_key(self.key):
            return None
        return phone_numbers.is_valid(self.value)


@dataclass(frozen=True)
class SpecialItems:
    """What the special keys of a task's data ask for."""

    skill_queue: SkillQueue | None
    time_zone: str | None


def _item_problem(item: ItemInput) -> tuple[str, str] | None:
    """What is wrong with one item, as (the part at fault, the reason), or None."""
    key, value, order = item
    if not key.strip():
        return KEY, "must not be empty"
    if len(key) > MAX_KEY:
        return KEY, f"must be at most {MAX_KEY} characters"
    # A UTF-8 character takes at most 4 bytes: only long values need encoding to measure.
    if len(value) * 4 > MAX_VALUE_BYTES and len(value.encode()) > MAX_VALUE_BYTES:
        return VALUE, f"must be at most {MAX_VALUE_BYTES} bytes"
    if order is not None and order <= 0:
        return DISPLAY_ORDER, "must be greater than zero"
    if order is not None and order > MAX_INT:
        return DISPLAY_ORDER, f"must be at most {MAX_INT}"
    # An empty phone value means the record has no such number; anything else must dial.
    if value and is_phone_key(key) and not is_e164(value):
        return VALUE, (
            f"'{value}' of phone key '{key}' is not an E.164 number "
            "(a plus sign, the country code and digits, e.g. +14155550123)"
        )
    return None


def item_refusal(
    index: int, part: str, reason: str, kind: type[ServiceError] = InvalidInput
) -> ServiceError:
    """A refusal of one part of one data item (`index`, from 0)."""
    return kind(
        f"{_item_words(index, part)} {reason}", field=ITEMS.item(index, part), reason=reason
    )


def _item_words(index: int, part: str | None = None) -> str:
    return f"data item {index + 1}" + (f" {part.replace('_', ' ')}" if part else "")


def _check_item(index: int, item: ItemInput) -> None:
    if problem := _item_problem(item):
        raise item_refusal(index, *problem)


def _special(index: int, item: ItemInput, check: Callable[[str, str], T]) -> T:
    """The value of a special item, checked; a refusal names the item and its key."""
    try:
        return check(item.value, ITEMS.said_as(f"{_item_words(index)} {item.key}"))
    except InvalidInput as error:
        error.field = ITEMS.item(index, item.key)  # its reason already leaves the name out
        raise


QueueLookup = Callable[[str, Field], SkillQueue]


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
        raise InvalidInput(f"{ITEMS} holds at most {MAX_ITEMS} items", field=ITEMS)
    seen: set[str] = set()
    queue, zone = None, None
    for index, item in enumerate(items):
        _check_item(index, item)
        if item.key in seen:
            raise item_refusal(index, KEY, f"'{item.key}' is sent twice")
        seen.add(item.key)
        if item.key == SKILL_QUEUE_KEY:
            queue = _special(index, item, queues)
        elif item.key == TIME_ZONE_KEY:
            zone = _special(index, item, require_time_zone)
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


def criterion_problem(key: str, value: str) -> str | None:
    """What is wrong with one search criterion's key or value, as `<field> <reason>`, or None.

    No stored key or value is longer, so a longer one could only ever match nothing.
    """
    if len(key) > MAX_KEY:
        return f"key must be at most {MAX_KEY} characters"
    if len(value) * 4 > MAX_VALUE_BYTES and len(value.encode()) > MAX_VALUE_BYTES:
        return f"value must be at most {MAX_VALUE_BYTES:,} bytes"
    return None


def check_agent(agent: str | None) -> None:
    if agent is not None and len(agent) > MAX_AGENT:
        raise InvalidInput(
            f"{PREFERRED_AGENT} must be at most {MAX_AGENT} characters", field=PREFERRED_AGENT
        )


def check_client_id(client_id: str | None) -> str:
    if client_id is None or not client_id.strip():
        raise InvalidClientId(f"{CLIENT_ID} is required", field=CLIENT_ID)
    if len(client_id) > MAX_CLIENT_ID:
        raise InvalidInput(
            f"{CLIENT_ID} must be at most {MAX_CLIENT_ID} characters", field=CLIENT_ID
        )
    return client_id


def check_client_id_key(items: list[ItemInput], field_name: str) -> None:
    """Refuse a data item under the key the clientId is stored under."""
    for index, item in enumerate(items):
        if item.key == field_name:
            raise item_refusal(
                index,
                KEY,
                f"'{item.key}' is the clientId field name; send the id as clientId",
                InvalidDataKey,
            )


def plan_task(
    tenant: Tenant | None,
    client_id: str | None,
    items: list[ItemInput] | None,
    field_name: str,
    *,
    preferred_agent: str | None = None,
    next_earliest: SentTime | None = None,
    queues: QueueLookup | None = None,
) -> TaskPlan:
    """Apply every add/update rule to one task's input, without touching the database.

    The spec's own statuses come first: INVALIDCLIENTID, then INVALIDRECORDDATAKEY, then
    every other refusal (FAILED).
    """
    client_id = check_client_id(client_id)
    if items is None:
        raise InvalidInput(f"{ITEMS} is required", field=ITEMS)
    check_client_id_key(items, field_name)
    if len(field_name) > 255:
        raise InvalidInput(
            f"{CLIENT_ID_FIELD_NAME} must be at most 255 characters", field=CLIENT_ID_FIELD_NAME
        )
    check_agent(preferred_agent)
    next_work = None
    if next_earliest is not None:
        next_work = checked_time(next_earliest, NEXT_EARLIEST)
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
