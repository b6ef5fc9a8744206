"""A tenant's regional calling rules: adding, listing and removing them.

A rule is for one region (ISO 3166-2, `US-FL`) and says at least one of: the hours calls
may be placed in the customer's local time (`08:00-20:00`, optionally only on some weekdays:
`--days mon-sat`), weekdays without calls (`sun`), no calls on the region's public holidays
(the `holidays` library's calendar of that subdivision), and a contact limit of the
region's tasks (`--max 3 --within 24h --per person`), which is a contact limit like any
other, counting only the tasks in the region. Bad input is refused whole, naming the field;
every change leaves its audit record and event (`calling_rule.added`,
`calling_rule.removed`) in the caller's transaction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select

from app.extensions import db
from app.models import CallingRule, Campaign, Task, Tenant
from app.services import regions
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.calling_rules import clock
from app.services.contact_limits import limits as contact_limits
from app.services.errors import InvalidInput, NotFound
from app.services.fields import (
    CALLING_RULE_DAYS,
    CALLING_RULE_HOURS,
    CALLING_RULE_ID,
    CALLING_RULE_NO_CALLS_ON,
    CALLING_RULE_PER,
    CALLING_RULE_REGION,
    CALLING_RULE_SOURCE,
)
from app.services.schedules.window_clock import Window, parse_window
from app.services.values import unwrapped

REGIONAL_PERS = ("person", "number")
MAX_SOURCE = 255
_DAY_RANGE = re.compile(r"^([a-z]{3})(?:-([a-z]{3}))?$")


@dataclass(frozen=True)
class NewRule:
    """A rule as typed (the CLI's options, the page's form, a pack's row)."""

    region: str
    hours: str | None = None
    days: str | None = None
    no_calls_on: str | None = None
    holidays: bool = False
    max: str | int | None = None
    within: str | None = None
    per: str | None = None
    source: str = ""


def parse_days(text: str | None, field) -> frozenset[int]:
    """`sun`, `sat,sun`, `mon-fri` as weekday numbers (0 = Monday); none for empty."""
    found: set[int] = set()
    for part in (text or "").lower().replace(" ", "").split(","):
        if not part:
            continue
        matched = _DAY_RANGE.match(part)
        names = matched.groups() if matched else ()
        if not matched or any(n is not None and n not in clock.WEEKDAYS for n in names):
            raise InvalidInput(
                f"'{part}' is not a weekday or a range of them (mon, sat,sun, mon-fri)",
                field=field,
            )
        first = clock.WEEKDAYS.index(names[0])
        last = clock.WEEKDAYS.index(names[1]) if names[1] else first
        found.update(
            range(first, last + 1) if first <= last else [*range(first, 7), *range(last + 1)]
        )
    return frozenset(found)


def days_text(days: frozenset[int] | set[int]) -> str:
    return ",".join(clock.WEEKDAYS[day] for day in sorted(days))


def _hours(text: str) -> Window:
    try:
        opens, closes = parse_window(text)
    except InvalidInput as refused:
        message = refused.message.replace("calling window", "hours")
        raise InvalidInput(message, field=CALLING_RULE_HOURS) from None
    if opens == closes:
        raise InvalidInput(f"hours '{text}' open and close at once", field=CALLING_RULE_HOURS)
    return Window(opens, closes)


def check_region(text: str) -> str:
    region = (text or "").strip().upper()
    if not regions.is_region(region):
        raise InvalidInput(
            f"region '{text}' is not an ISO 3166-2 region (US-FL, CA-ON)",
            field=CALLING_RULE_REGION.said_as("region"),
        )
    return region


@dataclass(frozen=True)
class Checked:
    """A new rule checked whole: what it will store."""

    region: str
    window: Window | None
    days: str
    no_calls_on: str
    holidays: bool
    limit: tuple[int, int, str] | None  # (max, within minutes, per)
    source: str

    @property
    def key(self) -> tuple:
        """What makes two rules the same rule (the source aside)."""
        opens, closes = (self.window.opens, self.window.closes) if self.window else (None, None)
        return (self.region, opens, closes, self.days, self.no_calls_on, self.holidays,
                self.limit)  # fmt: skip


def check_rule(new: NewRule) -> Checked:
    """The rule as it will be stored; InvalidInput naming the field at fault."""
    region = check_region(new.region)
    window = _hours(new.hours) if new.hours else None
    days = parse_days(new.days, CALLING_RULE_DAYS)
    if days and window is None:
        raise InvalidInput("days say when the hours hold: give the hours", field=CALLING_RULE_DAYS)
    no_calls = parse_days(new.no_calls_on, CALLING_RULE_NO_CALLS_ON)
    limit = None
    if any(v not in (None, "") for v in (new.max, new.within, new.per)):
        if (new.per or "") not in REGIONAL_PERS:
            raise InvalidInput(
                f"per '{new.per or ''}' is not person or number", field=CALLING_RULE_PER
            )
        limit = (contact_limits.parse_count(new.max), contact_limits.parse_duration(new.within),
                 new.per)  # fmt: skip
    if window is None and not no_calls and not new.holidays and limit is None:
        raise InvalidInput(
            "say what the rule allows: hours, days without calls, holidays or a limit",
            field=CALLING_RULE_HOURS,
        )
    source = (new.source or "").strip()
    if len(source) > MAX_SOURCE:
        raise InvalidInput(
            f"source is longer than {MAX_SOURCE} characters", field=CALLING_RULE_SOURCE
        )
    return Checked(region, window, days_text(days), days_text(no_calls), bool(new.holidays),
                   limit, source)  # fmt: skip


def key_of(rule: CallingRule) -> tuple:
    """A stored rule's `Checked.key`."""
    limit = rule.limit
    limited = (limit.max_count, limit.within_minutes, limit.per) if limit is not None else None
    return (rule.region, rule.opens_at, rule.closes_at, rule.days, rule.no_calls_on,
            rule.holidays, limited)  # fmt: skip


def add_rule(tenant: Tenant, new: NewRule | Checked, *, actor: Actor) -> CallingRule:
    """Add the rule (checked whole: a refusal adds nothing), with its limit if it has one."""
    checked = new if isinstance(new, Checked) else check_rule(new)
    window = checked.window
    rule = CallingRule(
        tenant_id=tenant.id,
        region=checked.region,
        opens_at=window.opens if window else None,
        closes_at=window.closes if window else None,
        days=checked.days,
        no_calls_on=checked.no_calls_on,
        holidays=checked.holidays,
        source=checked.source,
    )
    if checked.limit is not None:
        rule.limit = _same_limit(tenant, checked) or _new_limit(tenant, checked, actor)
    db.session.add(rule)
    db.session.flush()
    record(actor, _change("calling_rule.added", tenant, rule, after=facts(rule)))
    return rule


def _same_limit(tenant: Tenant, checked: Checked):
    """The tenant's regional limit that is this rule's limit already (another rule of the
    region has it): shared, not refused as a duplicate."""
    return next(
        (
            limit
            for limit in contact_limits.list_limits(tenant)
            if limit.region == checked.region
            and limit.campaign_id is None
            and limit.counting == "calls"
            and (limit.max_count, limit.within_minutes, limit.per) == checked.limit
        ),
        None,
    )


def _new_limit(tenant: Tenant, checked: Checked, actor: Actor):
    count, minutes, per = checked.limit
    new = contact_limits.NewLimit(count, f"{minutes}m", per, region=checked.region)
    return contact_limits.add_limit(tenant, new, actor=actor)


def list_rules(tenant: Tenant) -> list[CallingRule]:
    """The tenant's rules by region, then oldest first."""
    return list(
        db.session.scalars(
            select(CallingRule)
            .where(CallingRule.tenant_id == tenant.id)
            .order_by(CallingRule.region, CallingRule.id)
        )
    )


def find_rule(tenant: Tenant, rule_id: int | str) -> CallingRule:
    text = str(rule_id).strip()
    rule = db.session.get(CallingRule, int(text)) if text.isdigit() else None
    if rule is None or rule.tenant_id != tenant.id:
        raise NotFound(f"{tenant.label} has no calling rule {text[:20]}", field=CALLING_RULE_ID)
    return rule


def remove_rule(tenant: Tenant, rule_id: int | str, *, actor: Actor) -> CallingRule:
    """Remove the rule and its limit (unless another rule shares it): calls it held back
    may be placed at once."""
    rule = find_rule(tenant, rule_id)
    before = facts(rule)
    limit = rule.limit
    shared = limit is not None and any(
        other.limit_id == limit.id for other in list_rules(tenant) if other.id != rule.id
    )
    if limit is not None and not shared:
        contact_limits.remove_limit(tenant, limit.id, actor=actor)
    db.session.delete(rule)
    db.session.flush()
    record(actor, _change("calling_rule.removed", tenant, rule, before=before))
    return rule


def clock_rule(rule: CallingRule) -> clock.Rule:
    window = None if rule.opens_at is None else Window(rule.opens_at, rule.closes_at)
    return clock.Rule(
        rule.region,
        window,
        parse_days(rule.days, CALLING_RULE_DAYS),
        parse_days(rule.no_calls_on, CALLING_RULE_NO_CALLS_ON),
        rule.holidays,
    )


def rule_words(rule: CallingRule) -> str:
    """`US-FL: calls 08:00-20:00, none on sun, none on public holidays, at most 3 calls…`."""
    parts = []
    if rule.opens_at is not None:
        on = f" on {rule.days}" if rule.days else ""
        parts.append(f"calls {Window(rule.opens_at, rule.closes_at)}{on}")
    if rule.no_calls_on:
        parts.append(f"none on {rule.no_calls_on}")
    if rule.holidays:
        parts.append("none on public holidays")
    if rule.limit is not None:
        parts.append(contact_limits.limit_words(rule.limit).split(", ")[0])
    return f"{rule.region}: {', '.join(parts)}"


def facts(rule: CallingRule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "region": rule.region,
        "hours": None if rule.opens_at is None else str(Window(rule.opens_at, rule.closes_at)),
        "days": rule.days or None,
        "noCallsOn": rule.no_calls_on or None,
        "holidays": rule.holidays,
        "limitId": rule.limit.id if rule.limit is not None else None,
        "source": rule.source,
        "words": rule_words(rule),
    }


def _change(action: str, tenant: Tenant, rule: CallingRule, **sides) -> Change:
    facts_ = sides.get("after") or sides.get("before")
    return Change(action, "calling_rule", str(rule.id), tenant.id, event_type=action,
                  event_data={"rule": facts_}, **sides)  # fmt: skip


@dataclass(frozen=True)
class Standing:
    """What a rule does now: the zones of the tenant's open tasks in its region, and those
    in which it holds calls back."""

    zones: list[str]
    holding: list[str]

    def words(self) -> str:
        if not self.zones:
            return "no open task in its region"
        if not self.holding:
            return "allows calls now"
        return "holds calls back now in " + ", ".join(self.holding)


# Zones a rule's standing names at most.
SHOWN_ZONES = 20


def standings(tenant: Tenant, rules: list[CallingRule], now: datetime) -> dict[int, Standing]:
    """Whether each rule holds calls back now, in the zones its region's open tasks are in
    (every zone of a task whose numbers span several): rule id → standing. One read of the
    tenant's open tasks for every rule."""
    if not rules:
        return {}
    places = db.session.execute(
        select(Task.time_zone, Task.zones, Task.regions)
        .join(Campaign, Campaign.id == Task.campaign_id)
        .where(
            Campaign.tenant_id == tenant.id,
            Task.worked_state.in_(("NOTWORKED", "WORKED")),
            Task.regions != "",
        )
        .distinct()
    ).all()
    zones_in: dict[str, set[str]] = {}
    for zone, spanning, regions_text in places:
        for region in unwrapped(regions_text):
            zones_in.setdefault(region, set()).update(unwrapped(spanning) or [zone])
    found = {}
    for rule in rules:
        zones = sorted(zones_in.get(rule.region, ()))[:SHOWN_ZONES]
        clocked = clock_rule(rule)
        held = [z for z in zones if not clocked.allows(now.astimezone(ZoneInfo(z)))]
        found[rule.id] = Standing(zones, held)
    return found
