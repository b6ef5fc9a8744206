"""How an agent sees a task: the rules of the special data-item keys.

`Name` is the banner; `Highlight` and `Hidden` (pipe lists) mark and hide items;
phone keys dial; `*_link` and `*_button` open http(s) URLs in a new window. The
`Highlight` and `Hidden` items and the system items `SkillQueue` and `ItemTimeZone` (which
route the task and set its zone) are never shown. A phone number
on the tenant's do-not-call list is shown but never dials: kind "blocked", no href.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlsplit

from app.models import Task
from app.services.dnc import numbers as dnc
from app.services.tasks.validation import SKILL_QUEUE_KEY, TIME_ZONE_KEY
from app.services.values import is_e164, is_phone_key

NAME_KEY = "Name"
HIGHLIGHT_KEY = "Highlight"
HIDDEN_KEY = "Hidden"
# The display's own keys, and the system items the contract gives the service, not the agent.
NEVER_SHOWN = frozenset({HIGHLIGHT_KEY, HIDDEN_KEY, SKILL_QUEUE_KEY, TIME_ZONE_KEY})
HIGHLIGHT_ALL = "ALL"


class Item(Protocol):
    key: str
    value: str
    display_order: int | None


@dataclass(frozen=True)
class Detail:
    """One line of the details section."""

    key: str
    label: str
    value: str
    kind: str  # "text", "phone", "blocked" (a listed phone number), "link" or "button"
    href: str | None  # never set for "blocked": no tel: link
    highlighted: bool


@dataclass(frozen=True)
class AgentView:
    banner: str | None
    details: list[Detail]


def web_url(value: str) -> str | None:
    """The value when it is an absolute http or https URL; anything else never becomes a link."""
    value = value.strip()
    try:
        parts = urlsplit(value)
    except ValueError:
        return None
    if parts.scheme.lower() in ("http", "https") and parts.netloc:
        return value
    return None


def _names(value: str | None) -> set[str]:
    return {name.strip() for name in (value or "").split("|") if name.strip()}


def _detail(item: Item, highlighted: bool, listed: Collection[str]) -> Detail:
    key, value = item.key, item.value
    for suffix, kind in (("_link", "link"), ("_button", "button")):
        if key.endswith(suffix) and len(key) > len(suffix):
            label = key[: -len(suffix)]
            href = web_url(value)
            return Detail(key, label, value, kind if href else "text", href, highlighted)
    if is_phone_key(key) and is_e164(value):
        if value in listed:
            return Detail(key, key, value, "blocked", None, highlighted)
        return Detail(key, key, value, "phone", f"tel:{value}", highlighted)
    return Detail(key, key, value, "text", None, highlighted)


def _ordered(items: list[Item]) -> list[Item]:
    """Items with a displayOrder first, by it; then the others in their stored order."""
    ranked = sorted(
        (i for i in items if i.display_order is not None), key=lambda i: i.display_order
    )
    return ranked + [i for i in items if i.display_order is None]


def agent_view(items: Iterable[Item], listed: Collection[str] = frozenset()) -> AgentView:
    """What the agent sees of a task with these data items; numbers in `listed` (the
    tenant's do-not-call entries) are shown as not callable."""
    items = list(items)
    values = {item.key: item.value for item in items}
    hidden = _names(values.get(HIDDEN_KEY))
    highlight = _names(values.get(HIGHLIGHT_KEY))
    everything = HIGHLIGHT_ALL in highlight
    details = [
        _detail(item, everything or item.key in highlight, listed)
        for item in _ordered(items)
        if item.key not in NEVER_SHOWN and item.key != NAME_KEY and item.key not in hidden
    ]
    return AgentView(values.get(NAME_KEY), details)


def agent_view_of(task: Task, items: Iterable[Item] | None = None) -> AgentView:
    """What the agent sees of the task (of `items` when given, e.g. rows already read),
    its numbers looked up on its tenant's do-not-call list (one query, none without one)."""
    items = list(task.items if items is None else items)
    listed = dnc.listed_numbers(task.campaign.tenant_id, dnc.task_numbers(items))
    return agent_view(items, listed)
