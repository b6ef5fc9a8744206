"""Calling windows: a campaign's hours read in each task's own time zone; and the campaign's
limit on attempts, set beside it.

A campaign may set a window (`window_opens_at`, `window_closes_at`: minutes after local
midnight). A task is delivered only while the local time in its zone (`Task.time_zone`: its
ItemTimeZone, else the campaign's default) is inside: from the opening minute included to
the closing minute excluded. A window whose end is not after its start runs past midnight
(20:00-02:00). The clock's arithmetic is in `window_clock`.

Which tasks are inside depends only on the clock, so it is computed in Python (the zones
inside a window now, worked out once a minute) and SQL gets a plain `time_zone IN (...)`
per windowed campaign, its values written into the statement (a constant list PostgreSQL
looks up by hash, where a list of parameters is compared one by one); or no condition at
all when no campaign of the tenant has a window.

A task whose numbers span several zones (`Task.zones`, when its campaign takes zones from
numbers) is inside only while every one of its zones is: its campaign's condition then lists
the sets of zones present among its open tasks that are wholly inside now.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import ColumnElement, and_, bindparam, or_, select, text, true

from app.extensions import db
from app.models import Campaign, Task
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.contactability.seat import Blocked, OtherRules, Seat
from app.services.errors import InvalidInput
from app.services.fields import CAMPAIGN_CLOSES_AT, CAMPAIGN_MAX_ATTEMPTS, CAMPAIGN_OPENS_AT
from app.services.schedules.window_clock import DAY, Window, opening_in, parse_window, zones_inside
from app.services.values import unwrapped

__all__ = [
    "MAX_ATTEMPTS",
    "Window",
    "closed_campaigns",
    "in_calling_window",
    "next_window_opening",
    "outside_window",
    "parse_window",
    "set_calling_window",
    "set_max_attempts",
    "window_of",
    "window_text",
]

MAX_ATTEMPTS = 1000
REASON = "outside the calling window: the next task can be called from {}"


def window_of(campaign: Campaign) -> Window | None:
    if campaign.window_opens_at is None or campaign.window_closes_at is None:
        return None
    return Window(campaign.window_opens_at, campaign.window_closes_at)


def window_text(campaign: Campaign) -> str:
    """For display: `08:00-21:00`, `20:00-02:00 (past midnight)` or `any time`."""
    window = window_of(campaign)
    if window is None:
        return "any time"
    return f"{window} (past midnight)" if window.past_midnight else str(window)


def next_window_opening(campaign: Campaign, zone: str, after: datetime) -> datetime:
    """When a task of the campaign in `zone` may be called, at or after `after`: `after`
    itself when the campaign has no window or its window is open there then."""
    window = window_of(campaign)
    return after if window is None else opening_in(window, zone, after)


# Rounds of "the latest opening of the zones still outside" before giving up: two zones'
# windows always meet within a day or two.
ALL_INSIDE_ROUNDS = 8


def next_opening_in_all(campaign: Campaign, zones: list[str], after: datetime) -> datetime | None:
    """When the campaign's window is open in every one of the zones at once, at or after
    `after` (`after` itself when it has no window); None when their windows never meet."""
    window = window_of(campaign)
    if window is None:
        return after
    moment = after
    for _ in range(ALL_INSIDE_ROUNDS):
        inside = set(zones_inside(window, moment))
        outside = [zone for zone in zones if zone not in inside]
        if not outside:
            return moment
        moment = max(opening_in(window, zone, moment) for zone in outside)
    return None


def zones_of(task: Task) -> list[str]:
    """Every zone the task is in: its zones when its numbers span several, else its zone."""
    return unwrapped(task.zones) or [task.time_zone]


# --- settings --------------------------------------------------------------------------

OPENS = CAMPAIGN_OPENS_AT.said_as("opening time")
CLOSES = CAMPAIGN_CLOSES_AT.said_as("closing time")


def _check_window(opens: int | None, closes: int | None) -> None:
    if opens is None and closes is not None:
        raise InvalidInput(f"{OPENS} is required with a closing time", field=OPENS)
    if closes is None and opens is not None:
        raise InvalidInput(f"{CLOSES} is required with an opening time", field=CLOSES)
    if opens is None:
        return
    for field, minute in ((OPENS, opens), (CLOSES, closes)):
        if not 0 <= minute < DAY:
            raise InvalidInput(f"{field} must be 00:00 to 23:59", field=field)
    if opens == closes:
        raise InvalidInput(f"{CLOSES} must differ from the opening time", field=CLOSES)


def _said(window: Window | None) -> str | None:
    return None if window is None else str(window)


def _record(actor: Actor, campaign: Campaign, action: str, before: dict, after: dict) -> None:
    change = Change(action, "campaign", str(campaign.id), campaign.tenant_id, before, after)
    record(actor, change)


def set_calling_window(
    campaign: Campaign, opens_at_min: int | None, closes_at_min: int | None, *, actor: Actor
) -> Window | None:
    """Set the campaign's calling window (minutes after local midnight; both or neither:
    none means any time). A closing time not after the opening one runs past midnight;
    the same time for both is refused."""
    _check_window(opens_at_min, closes_at_min)
    before = {"callingWindow": _said(window_of(campaign))}
    campaign.window_opens_at, campaign.window_closes_at = opens_at_min, closes_at_min
    window = window_of(campaign)
    _record(actor, campaign, "campaign.window_set", before, {"callingWindow": _said(window)})
    return window


def set_max_attempts(campaign: Campaign, n: int | None, *, actor: Actor) -> int | None:
    """Set how many attempts a task of the campaign may have (1 to 1000; none: no limit)."""
    if n is not None and not 1 <= n <= MAX_ATTEMPTS:
        raise InvalidInput(
            f"maximum attempts must be 1 to {MAX_ATTEMPTS}, or none for no limit",
            field=CAMPAIGN_MAX_ATTEMPTS.said_as("maximum attempts"),
        )
    before = {"maxAttempts": campaign.max_attempts}
    campaign.max_attempts = n
    _record(actor, campaign, "campaign.max_attempts_set", before, {"maxAttempts": n})
    return n


# --- eligibility ----------------------------------------------------------------------------


def _windows(seat: Seat) -> dict[int, Window]:
    """The seat's tenant's campaigns that have a window (every tenant's when the seat names
    none), read once per seat."""
    return seat.remembered("calling windows", lambda: _read_windows(seat.tenant_id))


def _read_windows(tenant_id: int) -> dict[int, Window]:
    query = select(Campaign.id, Campaign.window_opens_at, Campaign.window_closes_at).where(
        Campaign.window_opens_at.is_not(None), Campaign.window_closes_at.is_not(None)
    )
    if tenant_id:
        query = query.where(Campaign.tenant_id == tenant_id)
    rows = db.session.execute(query)
    return {row.id: Window(row.window_opens_at, row.window_closes_at) for row in rows}


def written_in(column, values: Iterable, negate: bool = False) -> ColumnElement[bool]:
    """`column IN (...)` with the values written into the SQL (see the module's docstring:
    the planner then knows which zones, campaigns or sets it is asked about)."""
    values = bindparam(None, list(values), type_=column.type, expanding=True, literal_execute=True)
    return column.not_in(values) if negate else column.in_(values)


def in_calling_window(seat: Seat) -> ColumnElement[bool]:
    """Eligibility: now is inside the task's campaign's window, read in the task's zone (in
    every one of its zones, when it spans several)."""
    windows = _windows(seat)
    if not windows:
        return true()
    return or_(
        written_in(Task.campaign_id, windows, negate=True),
        *(_inside(seat, campaign, w) for campaign, w in windows.items()),
    )


def _inside(seat: Seat, campaign: int, window: Window) -> ColumnElement[bool]:
    inside = zones_inside(window, seat.now)
    single = written_in(Task.time_zone, inside)
    spanning = zone_sets_of(seat, campaign)
    if not spanning:
        return and_(Task.campaign_id == campaign, single)
    wholly = [s for s in spanning if set(unwrapped(s)) <= set(inside)]
    within = [and_(Task.zones == "", single)]
    if wholly:
        within.append(written_in(Task.zones, wholly))
    return and_(Task.campaign_id == campaign, or_(*within))


# The zones of a campaign's open tasks, one index probe per zone (a loose index scan): fast
# with an index on tasks (campaign_id, time_zone) of the open tasks.
ZONES_PRESENT = text(
    "WITH RECURSIVE present(zone) AS ("
    " SELECT (SELECT time_zone FROM tasks WHERE campaign_id = :campaign"
    "  AND worked_state IN ('NOTWORKED', 'WORKED') ORDER BY time_zone LIMIT 1)"
    " UNION ALL"
    " SELECT (SELECT time_zone FROM tasks WHERE campaign_id = :campaign"
    "  AND worked_state IN ('NOTWORKED', 'WORKED') AND time_zone > present.zone"
    "  ORDER BY time_zone LIMIT 1)"
    " FROM present WHERE present.zone IS NOT NULL"
    ") SELECT zone FROM present WHERE zone IS NOT NULL"
)


def zones_present(campaign_id: int) -> list[str]:
    """The time zones the campaign's open tasks are in, sorted."""
    return list(db.session.scalars(ZONES_PRESENT, {"campaign": campaign_id}))


# The sets of zones of a campaign's open tasks spanning several, one probe of the partial
# index `ix_tasks_campaign_zones` per set (none at all for a campaign without such tasks).
ZONE_SETS_PRESENT = text(
    "WITH RECURSIVE present(zones) AS ("
    " SELECT (SELECT zones FROM tasks WHERE campaign_id = :campaign"
    "  AND worked_state IN ('NOTWORKED', 'WORKED') AND zones != '' ORDER BY zones LIMIT 1)"
    " UNION ALL"
    " SELECT (SELECT zones FROM tasks WHERE campaign_id = :campaign"
    "  AND worked_state IN ('NOTWORKED', 'WORKED') AND zones != '' AND zones > present.zones"
    "  ORDER BY zones LIMIT 1)"
    " FROM present WHERE present.zones IS NOT NULL"
    ") SELECT zones FROM present WHERE zones IS NOT NULL"
)


def zone_sets_present(campaign_id: int) -> list[str]:
    """The stored zone sets (`,A,B,`) of the campaign's open tasks spanning several zones."""
    return list(db.session.scalars(ZONE_SETS_PRESENT, {"campaign": campaign_id}))


def zone_sets_of(seat: Seat, campaign_id: int) -> list[str]:
    """`zone_sets_present`, read once per seat."""
    return seat.remembered(f"zone sets {campaign_id}", lambda: zone_sets_present(campaign_id))


def closed_campaigns(seat: Seat) -> frozenset[int]:
    """The tenant's campaigns none of whose open tasks is inside its window now: delivery
    need not look into them at all (a campaign's first task inside is otherwise found by
    reading past every task outside)."""
    return frozenset(
        campaign
        for campaign, window in _windows(seat).items()
        if not set(zones_present(campaign)) & set(zones_inside(window, seat.now))
    )


# --- why nothing was delivered ---------------------------------------------------------------


def outside_window(seat: Seat, ready: ColumnElement[bool], others: OtherRules) -> Blocked | None:
    """When ready tasks wait only for their calling window: why, and until when.

    Kept back by the window alone: ready, meeting every other rule of delivery (queue open,
    a callable number), but outside the window now. The reason names the earliest moment
    one of them may be called, said in the agent's zone. The zones outside are tried in the
    order they open, so the first one holding such a task gives the answer.
    """
    windows = _windows(seat)
    if not windows:
        return None
    kept_by_others = others()
    waiting = sorted(
        (opening_in(window, zone, seat.now), campaign, zone)
        for campaign, window in windows.items()
        for zone in set(zones_present(campaign)) - set(zones_inside(window, seat.now))
    )
    for until, campaign, zone in waiting:
        kept = select(Task.id).where(
            Task.campaign_id == campaign, Task.time_zone == zone, ready, *kept_by_others
        )
        if db.session.scalar(kept.limit(1)) is not None:
            return Blocked(REASON.format(seat.local(until)), until)
    return None
