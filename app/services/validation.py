"""The rules a task's data items obey, whichever door they come in by."""

from __future__ import annotations

from dataclasses import dataclass

from app.models import SkillQueue, Tenant
from app.services.errors import InvalidDataKey, InvalidInput
from app.services.rules import is_e164, is_phone_key, parse_number, require_time_zone
from app.services.tenants import get_skill_queue

MAX_ITEMS = 500
MAX_KEY = 255
# A PostgreSQL b-tree entry holds at most about 2,700 bytes; the value is indexed.
MAX_VALUE_BYTES = 2000

SKILL_QUEUE_KEY = "SkillQueue"
TIME_ZONE_KEY = "ItemTimeZone"


@dataclass(frozen=True)
class ItemInput:
    """One data item as sent: key, value and an optional display order."""

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


def _check_item(index: int, item: ItemInput, client_id_field: str) -> None:
    where = f"previewRecordData[{index}]"
    if not item.key.strip():
        raise InvalidInput(f"{where}.key must not be empty")
    if len(item.key) > MAX_KEY:
        raise InvalidInput(f"{where}.key must be at most {MAX_KEY} characters")
    if item.key == client_id_field:
        raise InvalidDataKey(
            f"{where}.key '{item.key}' is the clientId field name; send the id as clientId"
        )
    if len(item.value.encode()) > MAX_VALUE_BYTES:
        raise InvalidInput(f"{where}.value must be at most {MAX_VALUE_BYTES} bytes")
    if item.display_order is not None and item.display_order <= 0:
        raise InvalidInput(f"{where}.displayOrder must be greater than zero")
    # An empty phone value means the record has no such number; anything else must dial.
    if is_phone_key(item.key) and item.value and not is_e164(item.value):
        raise InvalidInput(
            f"{where}.value '{item.value}' of phone key '{item.key}' is not an E.164 number "
            "(a plus sign, the country code and digits, e.g. +14155550123)"
        )


def validate_items(tenant: Tenant, items: list[ItemInput], client_id_field: str) -> SpecialItems:
    """Check every item and resolve the SkillQueue and ItemTimeZone keys."""
    if len(items) > MAX_ITEMS:
        raise InvalidInput(f"previewRecordData holds at most {MAX_ITEMS} items")
    seen: set[str] = set()
    queue, zone = None, None
    for index, item in enumerate(items):
        _check_item(index, item, client_id_field)
        if item.key in seen:
            raise InvalidInput(f"previewRecordData[{index}].key '{item.key}' is sent twice")
        seen.add(item.key)
        if item.key == SKILL_QUEUE_KEY:
            queue = get_skill_queue(tenant, item.value, f"previewRecordData[{index}] SkillQueue")
        elif item.key == TIME_ZONE_KEY:
            zone = require_time_zone(item.value, f"previewRecordData[{index}] ItemTimeZone")
    return SpecialItems(queue, zone)
