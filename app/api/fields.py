"""The spec's names of the fields a refusal can be about, and a refusal told with them.

The services name the field a refusal is about by a domain value (app/services/fields.py);
the Preview, Users and Reports APIs say it as the spec spells it: `previewRecordData[1].key`,
`nextEarliestWorkTimeUTC`, `loginUserId`. This table is the only place those spellings of a
refused field live.
"""

from __future__ import annotations

from app.services import fields as f
from app.services.errors import ServiceError
from app.services.tasks.validation import SPECIAL_KEYS

WIRE_NAMES: dict[f.Field, str] = {
    # The Preview API's requests.
    f.TASK_CLIENT_ID: "clientId",
    f.TASK_CLIENT_ID_FIELD_NAME: "clientIdFieldName",
    f.TASK_ITEMS: "previewRecordData",
    f.TASK_NEXT_EARLIEST: "nextEarliestWorkTimeUTC",
    f.TASK_PREFERRED_AGENT: "preferredAgent",
    f.TASK_SKILL_QUEUE: "skillQueue",
    f.TASK_TIME_ZONE: "timeZone",
    f.TASK_STATE: "previewRecordStateEnum",
    f.TASK_CAMPAIGN: "transferToCampaign",
    f.TASK_OUTCOME: "outcome",
    f.TASK_NOTE: "note",
    f.TASK_WORK_CODES: "workCodes",
    # The Users API.
    f.USER_LOGIN_USER_ID: "loginUserId",
    f.USER_FIRST_NAME: "firstName",
    f.USER_LAST_NAME: "lastName",
    f.USER_PRIMARY_EMAIL: "primaryEmailAddr",
    f.USER_SECONDARY_EMAIL: "secondaryEmailAddr",
    f.USER_TEMPLATE: "userTemplateName",
    # The Reports API.
    f.REPORT_START: "from",
    f.REPORT_END: "to",
    f.REPORT_CAMPAIGN: "campaignName",
    f.REPORT_QUEUE: "skillQueue",
    f.REPORT_AGENT: "agent",
    f.REPORT_ZONE: "timeZone",
    f.REPORT_INTERVAL: "intervalMinutes",
}

# The parts of a data item, as the spec names them.
ITEM_PARTS = {f.KEY: "key", f.VALUE: "value", f.DISPLAY_ORDER: "displayOrder"}


def named(field: f.Field) -> f.Field:
    """The field as a refusal the API raises itself names it (a time it converts)."""
    return field.said_as(WIRE_NAMES[field])


# The times the API converts itself, named once.
NEXT_EARLIEST = named(f.TASK_NEXT_EARLIEST)
REPORT_START = named(f.REPORT_START)
REPORT_END = named(f.REPORT_END)
REPORT_ZONE = named(f.REPORT_ZONE)


def wire_name(field: f.Field) -> str | None:
    """The spec's name of the field (`previewRecordData[1].displayOrder`), or None when the
    spec has none."""
    name = WIRE_NAMES.get(field.whole)
    if name is None or field.index is None:
        return name
    name += f"[{field.index}]"
    if field.part in SPECIAL_KEYS:  # the special key whose value is wrong
        return f"{name} {field.part}"
    return name + (f".{ITEM_PARTS[field.part]}" if field.part else "")


def refusal_message(error: ServiceError) -> str:
    """The refusal as the API says it: a refusal that names its field first, by the spec's
    name of that field; any other as the service worded it."""
    name = wire_name(error.field) if error.names_first else None
    return error.message if name is None else f"{name} {error.reason}".rstrip()
