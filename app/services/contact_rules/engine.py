"""The contact rules: may a task be called now, and if not, which rule holds it back and
until when.

Every rule has a stable name and one definition. A **task rule** holds back the whole task:
its `condition(seat)` is the SQL condition on `tasks` a callable task meets (delivery filters
by it, the progress panel counts the tasks it refuses), and its `explain` says why for one
task the condition refuses (a message, and the moment it ends: None when the clock never
ends it). A **number rule** holds back one phone item: its `blocked(seat)` is the SQL
condition on `task_items` an item it holds back meets (None while it holds nothing back),
and its `explain` says why for that item. A task none of whose numbers may be called is held
back by the number rules holding its numbers; a task without any phone item is held back by
the task rules only (the person and task contact limits among them).

Whether a rule holds a task back is always asked of its SQL condition, also for one task
(`explain` runs the conditions against that task's row): delivery, startCall, the progress
panel and the explanation can never disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from sqlalchemy import (
    ColumnElement,
    String,
    and_,
    case,
    cast,
    exists,
    func,
    literal,
    or_,
    select,
)
from sqlalchemy import true as sql_true

from app.extensions import db
from app.models import CallingRule, Campaign, CampaignStatus, Task, TaskItem
from app.services import regions
from app.services.calling_rules import clock as calling_clock
from app.services.calling_rules import rules as calling_rules
from app.services.calls import ledger
from app.services.campaigns import life_cycle
from app.services.consent import ledger as consent
from app.services.consent import requirements as consent_required
from app.services.contact_limits import counts
from app.services.contactability.seat import Blocked, OtherRules, Seat
from app.services.dnc import numbers as dnc
from app.services.errors import NotAvailable, TaskNotFound
from app.services.schedules import calling_windows, queue_hours
from app.services.tasks import lookups
from app.services.tasks.display import agent_view_of
from app.services.values import moment_text, unwrapped

STATE = "STATE"
NEXT_EARLIEST_TIME = "NEXT_EARLIEST_TIME"
CAMPAIGN_PAUSED = "CAMPAIGN_PAUSED"
QUEUE_CLOSED = "QUEUE_CLOSED"
CALLING_WINDOW = "CALLING_WINDOW"
REGION_HOURS = "REGION_HOURS"
REGION_DAY = "REGION_DAY"
REGION_HOLIDAY = "REGION_HOLIDAY"
DO_NOT_CALL = "DO_NOT_CALL"
NO_CONSENT = "NO_CONSENT"
INVALID_NUMBER = "INVALID_NUMBER"
CONTACT_LIMIT = "CONTACT_LIMIT"
ATTEMPT_LIMIT = "ATTEMPT_LIMIT"
NAMES = (
    STATE,
    NEXT_EARLIEST_TIME,
    CAMPAIGN_PAUSED,
    QUEUE_CLOSED,
    CALLING_WINDOW,
    REGION_HOURS,
    REGION_DAY,
    REGION_HOLIDAY,
    DO_NOT_CALL,
    NO_CONSENT,
    INVALID_NUMBER,
    CONTACT_LIMIT,
    ATTEMPT_LIMIT,
)
OPEN_STATES = ("NOTWORKED", "WORKED")
# The phone items of the agent's view: dialable, or shown as listed.
PHONE_KINDS = ("phone", "blocked")
# How many kept-back tasks "nothing to do" explains to find when the first may be called.
LOOK_PAST = 20
CONTACT_LIMITS = "contact limits hold back the remaining tasks"
NO_NUMBER = (
    "no number of the remaining tasks may be called (do-not-call list, consent, wrong numbers)"
)


@dataclass(frozen=True)
class Reason:
    """One rule holding a task (or one of its numbers) back: its name, why, until when
    (None: not by the clock)."""

    rule: str
    message: str
    until: datetime | None = None


class HeldBack(NotAvailable):
    """A call the contact rules hold back: the rule's name, and when the call may be placed
    (None: not by the clock)."""

    def __init__(self, message: str, *, rule: str, until: datetime | None) -> None:
        super().__init__(message)
        self.rule, self.until = rule, until


class LimitHeldBack(counts.ContactLimitReached):
    """A call a contact limit holds back (the rule CONTACT_LIMIT), until `until`."""

    rule = CONTACT_LIMIT


def held_back(message: str, rule: str, until: datetime | None) -> NotAvailable:
    """The refusal of a call the rule `rule` holds back."""
    if rule == CONTACT_LIMIT and until is not None:
        return LimitHeldBack(message, until=until)
    return HeldBack(message, rule=rule, until=until)


def _latest(reasons: list[Reason]) -> datetime | None:
    """When every reason has ended (None: one never ends by the clock, or there is none)."""
    if not reasons or any(reason.until is None for reason in reasons):
        return None
    return max(reason.until for reason in reasons if reason.until is not None)


@dataclass(frozen=True)
class NumberVerdict:
    """One phone item: its key and number, and what holds it back (nothing: callable)."""

    key: str
    number: str
    reasons: list[Reason] = field(default_factory=list)

    @property
    def callable(self) -> bool:
        return not self.reasons

    @property
    def until(self) -> datetime | None:
        return _latest(self.reasons)

    def sentence(self) -> str | None:
        """`DO_NOT_CALL: +1415… is on the do-not-call list`; None when callable."""
        if self.callable:
            return None
        return "; ".join(f"{reason.rule}: {reason.message}" for reason in self.reasons)


@dataclass(frozen=True)
class Explanation:
    """Whether the task may be called now (whoever holds it, whichever agents are signed
    in), and every rule holding it back."""

    task: Task
    now: datetime
    reasons: list[Reason]
    numbers: list[NumberVerdict]
    # The seat the rules were read at: what they read once (the tenant's limits, calling
    # rules) is there for the call they let through (its marks, its evidence).
    seat: Seat = field(compare=False, repr=False)

    @property
    def callable_numbers(self) -> list[NumberVerdict]:
        return [number for number in self.numbers if number.callable]

    @property
    def numbers_held(self) -> bool:
        """It has phone items and none may be called."""
        return bool(self.numbers) and not self.callable_numbers

    @property
    def callable_now(self) -> bool:
        return not self.reasons and not self.numbers_held

    @property
    def rules(self) -> list[str]:
        """The names of the rules holding the task back, in the engine's order."""
        held = {reason.rule for reason in self.reasons}
        if self.numbers_held:
            held |= {reason.rule for number in self.numbers for reason in number.reasons}
        return [name for name in NAMES if name in held]

    @property
    def next_callable_at(self) -> datetime | None:
        """When it may be called: None now, or when a rule holding it back never ends by
        the clock."""
        if self.callable_now:
            return None
        ends = list(self.reasons)
        if self.numbers_held:
            # The first number the clock frees (one the clock never frees waits for none).
            firsts = [number.until for number in self.numbers if number.until is not None]
            if not firsts:
                return None
            ends.append(Reason("", "", min(firsts)))
        return _latest(ends)

    def message(self, zone: str = "UTC") -> str:
        if self.callable_now:
            return "Can be called now"
        parts = [reason.message for reason in self.reasons]
        if self.numbers_held:
            parts += [f"{n.key}: {n.sentence()}" for n in self.numbers]
        return "; ".join(parts)


# --- the rules ---------------------------------------------------------------------------


TaskExplainer = Callable[[Task, Seat], list[Reason]]
NumberExplainer = Callable[[Task, str, str, Seat], list[Reason]]


@dataclass(frozen=True)
class TaskRule:
    name: str
    condition: Callable[[Seat], ColumnElement[bool]]
    explain: TaskExplainer


@dataclass(frozen=True)
class NumberRule:
    name: str
    blocked: Callable[[Seat], ColumnElement[bool] | None]
    explain: NumberExplainer


def in_open_state(_seat: Seat | None = None) -> ColumnElement[bool]:
    """NOTWORKED or WORKED: completed and removed tasks are never delivered."""
    return Task.worked_state.in_(OPEN_STATES)


def is_due(seat: Seat) -> ColumnElement[bool]:
    """No next earliest time, or it has passed."""
    return or_(Task.next_earliest_work_at.is_(None), Task.next_earliest_work_at <= seat.now)


def _state(task: Task, _seat: Seat) -> list[Reason]:
    return [Reason(STATE, f"the task is {task.worked_state}, not open")]


def _due(task: Task, seat: Seat) -> list[Reason]:
    due = task.next_earliest_work_at
    return [Reason(NEXT_EARLIEST_TIME, f"the task is due at {seat.local(due)}", due)]


def _paused(task: Task, _seat: Seat) -> list[Reason]:
    campaign = task.campaign
    return [Reason(CAMPAIGN_PAUSED, life_cycle.stopped_reason([(campaign.name, campaign.status)]))]


def _queue_closed(task: Task, seat: Seat) -> list[Reason]:
    blocked = queue_hours.closed_queues(seat, Task.id == task.id, list)
    if blocked is None:
        return [Reason(QUEUE_CLOSED, "the task's queue is closed")]
    return [Reason(QUEUE_CLOSED, blocked.reason, blocked.until)]


def _outside_window(task: Task, seat: Seat) -> list[Reason]:
    campaign = task.campaign
    window = calling_windows.window_of(campaign)
    zones = calling_windows.zones_of(task)
    opens = calling_windows.next_opening_in_all(campaign, zones, seat.now)
    when = (
        f"the task can be called from {seat.local(opens)}"
        if opens is not None
        else "its zones' windows never meet"
    )
    return [
        Reason(
            CALLING_WINDOW,
            f"outside the campaign's calling window ({window} {' and '.join(zones)}): {when}",
            opens,
        )
    ]


# Regional calling rules: each kind (hours, days without calls, holidays) a task rule of
# its own. A rule holds back the tasks in its region whose zone its clock holds back now.


def _calling_rules(seat: Seat) -> list[tuple[int, calling_clock.Rule, CallingRule]]:
    """The seat's tenant's calling rules (every tenant's for none) of the regions an open
    task is in, read once per seat: a rule of a region no open task is in holds nothing
    back (and is not read at all while no open task has a region)."""

    def read() -> list[tuple[int, calling_clock.Rule, CallingRule]]:
        present = _present_regions(seat)
        if not present:
            return []
        query = (
            select(CallingRule)
            .where(CallingRule.region.in_(sorted(present)))
            .order_by(CallingRule.id)
        )
        if seat.tenant_id:
            query = query.where(CallingRule.tenant_id == seat.tenant_id)
        return [(r.tenant_id, calling_rules.clock_rule(r), r) for r in db.session.scalars(query)]

    return seat.remembered("calling rules", read)


def _campaign_ids(seat: Seat) -> list[int]:
    """The seat's tenant's campaigns that are not archived (an archived one has no task to
    deliver or to count)."""

    def read() -> list[int]:
        query = select(Campaign.id).where(Campaign.status != CampaignStatus.ARCHIVED)
        if seat.tenant_id:
            query = query.where(Campaign.tenant_id == seat.tenant_id)
        return list(db.session.scalars(query))

    return seat.remembered("campaign ids", read)


def _spanning_sets(seat: Seat) -> list[str]:
    """The zone sets of the open tasks spanning several zones, in the seat's tenant's
    campaigns (every tenant's for none), read once per seat."""

    def read() -> list[str]:
        found = {s for c in _campaign_ids(seat) for s in calling_windows.zone_sets_of(seat, c)}
        return sorted(found)

    return seat.remembered("spanning zone sets", read)


def _present_zones(seat: Seat) -> frozenset[str]:
    """Every zone an open task of the seat's tenant is in (one index probe per zone and
    campaign): a regional rule lists only those it holds back, not every zone on Earth."""

    def read() -> frozenset[str]:
        found = {z for c in _campaign_ids(seat) for z in calling_windows.zones_present(c)}
        found |= {z for s in _spanning_sets(seat) for z in unwrapped(s)}
        return frozenset(found)

    return seat.remembered("present zones", read)


def _zones_in(zones: tuple[str, ...], seat: Seat) -> ColumnElement[bool]:
    """SQL: one of the task's zones is among `zones`."""
    single = calling_windows.written_in(Task.time_zone, list(zones))
    held = set(zones)
    touched = [s for s in _spanning_sets(seat) if held & set(unwrapped(s))]
    if not touched:
        return single
    return or_(and_(Task.zones == "", single), calling_windows.written_in(Task.zones, touched))


def _present_regions(seat: Seat) -> frozenset[str]:
    """Every region an open task of the seat's tenant is in (one index probe per set of
    regions and campaign): a regional rule of a region no open task is in holds nothing back."""

    def read() -> frozenset[str]:
        return frozenset(r for c in _campaign_ids(seat) for r in regions.regions_present(c))

    return seat.remembered("present regions", read)


def _regional_condition(kind: str) -> Callable[[Seat], ColumnElement[bool]]:
    def condition(seat: Seat) -> ColumnElement[bool]:
        # The regions each set of zones is held back in, per tenant: one condition each.
        held_in: dict[tuple[int, tuple[str, ...]], set[str]] = {}
        for tenant_id, rule, _row in _calling_rules(seat):
            present = _present_zones(seat)
            zones = tuple(z for z in calling_clock.held_zones(rule, kind, seat.now) if z in present)
            if zones:
                held_in.setdefault((tenant_id, zones), set()).add(rule.region)
        held = []
        for (tenant_id, zones), where in held_in.items():
            in_any = or_(*(regions.in_region(region) for region in sorted(where)))
            part = and_(_zones_in(zones, seat), in_any)
            if not seat.tenant_id:
                tenants = select(Campaign.id).where(Campaign.tenant_id == tenant_id)
                part = and_(part, Task.campaign_id.in_(tenants))
            held.append(part)
        return ~or_(*held) if held else sql_true()

    condition.__doc__ = f"No regional calling rule of the task's regions holds it back ({kind})."
    return condition


region_hours_allow = _regional_condition(calling_clock.HOURS)
region_day_allows = _regional_condition(calling_clock.DAY)
region_holiday_allows = _regional_condition(calling_clock.HOLIDAY)


def _held_words(kind: str, rule: calling_clock.Rule, row: CallingRule, local: datetime) -> str:
    said = f"{local:%a %H:%M} in {local.tzinfo}"
    if kind == calling_clock.HOURS:
        on = f" on {row.days}" if row.days else ""
        return f"{row.region} allows calls {rule.window}{on} in the customer's time ({said})"
    if kind == calling_clock.DAY:
        return f"{row.region} allows no calls on {row.no_calls_on} ({said})"
    return f"{row.region} allows no calls on {rule.holiday(local.date())} ({local:%Y-%m-%d})"


def _regional_reasons(kind: str, name: str) -> TaskExplainer:
    def explain(task: Task, seat: Seat) -> list[Reason]:
        where = unwrapped(task.regions)
        tenant_id = task.campaign.tenant_id
        mine = [
            (r, row) for t, r, row in _calling_rules(seat) if t == tenant_id and r.region in where
        ]
        zones = calling_windows.zones_of(task)
        locals_ = [seat.now.astimezone(ZoneInfo(zone)) for zone in zones]
        held = [
            (rule, row, local)
            for rule, row in mine
            if (local := next((t for t in locals_ if rule.holds_back(kind, t)), None))
        ]
        if not held:
            return []
        # One moment for every regional rule of the task (hours, day and holiday alike).
        until = seat.remembered(
            f"regional until {task.id} at {seat.now.isoformat()}",
            lambda: calling_clock.next_allowed([r for r, _row in mine], zones, seat.now),
        )
        when = f"the call may be placed from {seat.local(until)}" if until else "no call soon"
        return [
            Reason(name, f"{_held_words(kind, rule, row, local)}: {when}", until)
            for rule, row, local in held
        ]

    return explain


def _attempt_limits(seat: Seat) -> dict[int, int]:
    """The seat's tenant's campaigns with an attempt limit: id → limit, read once."""

    def read() -> dict[int, int]:
        query = select(Campaign.id, Campaign.max_attempts).where(
            Campaign.max_attempts.is_not(None), Campaign.max_attempts > 0
        )
        if seat.tenant_id:
            query = query.where(Campaign.tenant_id == seat.tenant_id)
        return {row.id: row.max_attempts for row in db.session.execute(query)}

    return seat.remembered("attempt limits", read)


def attempts_left(seat: Seat) -> ColumnElement[bool]:
    """Fewer attempts than the campaign's limit (no condition while no campaign has one)."""
    limited = _attempt_limits(seat)
    if not limited:
        return sql_true()
    return or_(
        Task.campaign_id.not_in(list(limited)),
        *(
            and_(Task.campaign_id == campaign, Task.work_attempts < limit)
            for campaign, limit in limited.items()
        ),
    )


def _attempts(task: Task, _seat: Seat) -> list[Reason]:
    limit = task.campaign.max_attempts
    return [
        Reason(
            ATTEMPT_LIMIT,
            f"attempt limit reached ({task.work_attempts} of {limit} attempts)",
        )
    ]


# Contact limits: those per person and per task hold back the task, those per number a
# phone item. The SQL asks `counts.held_condition`, the explanation `counts.holds_for`:
# both read the same marks in the same windows.


def _limits(seat: Seat) -> list:
    if not seat.tenant_id:
        return []
    return seat.remembered("contact limits", lambda: counts.tenant_limits(seat.tenant_id))


def _person_key(seat: Seat) -> str | None:
    return seat.remembered("person key", lambda: counts.person_key_of(seat.tenant_id))


def _person_expression(person_key: str | None) -> ColumnElement[str]:
    """SQL: the task's person scope (`person:` its item named by the person key, else its
    clientId), as `counts.person_of` says it."""
    person: ColumnElement[str] = Task.client_id
    if person_key:
        item = TaskItem.__table__.alias("person_item")
        value = (
            select(func.trim(item.c.value))
            .where(
                item.c.task_id == Task.id,
                item.c.key == person_key,
                func.trim(item.c.value) != "",
            )
            .limit(1)
            .correlate(Task)  # the task of the outermost query, two subqueries up
            .scalar_subquery()
        )
        person = func.coalesce(value, Task.client_id)
    return literal("person:") + person


def limits_allow(seat: Seat) -> ColumnElement[bool]:
    """No limit per person or per task has been reached for the task."""
    scopes = {
        "person": lambda: _person_expression(_person_key(seat)),
        "task": lambda: literal("task:") + cast(Task.id, String),
    }
    held = [
        counts.held_condition(seat.tenant_id, limit, scopes[limit.per](), seat.now)
        for limit in _limits(seat)
        if limit.per in scopes
    ]
    return ~or_(*held) if held else sql_true()


def _limit_reasons(holds: list, seat: Seat) -> list[Reason]:
    return [
        Reason(
            CONTACT_LIMIT,
            f"{hold.message}: the call may be placed from {seat.local(hold.until)}",
            hold.until,
        )
        for hold in holds
    ]


def _task_limits(task: Task, seat: Seat) -> list[Reason]:
    holds = [h for h in counts.holds_for(task, None, seat.now) if h.limit.per != "number"]
    return _limit_reasons(holds, seat)


def number_limited(seat: Seat) -> ColumnElement[bool] | None:
    scope = literal("number:") + TaskItem.value
    held = [
        counts.held_condition(seat.tenant_id, limit, scope, seat.now)
        for limit in _limits(seat)
        if limit.per == "number"
    ]
    return or_(*held) if held else None


def _number_limits(task: Task, _key: str, number: str, seat: Seat) -> list[Reason]:
    holds = [h for h in counts.holds_for(task, number, seat.now) if h.limit.per == "number"]
    return _limit_reasons(holds, seat)


def listed(seat: Seat) -> ColumnElement[bool] | None:
    return dnc.listed_condition(seat.tenant_id)


def _listed(_task: Task, _key: str, number: str, _seat: Seat) -> list[Reason]:
    return [Reason(DO_NOT_CALL, f"{number} is on the do-not-call list")]


def no_consent(seat: Seat) -> ColumnElement[bool] | None:
    """The item's campaign requires consent for its key and none is in force now."""
    required = seat.remembered("consent", lambda: consent_required.requiring(seat.tenant_id))
    needs = consent_required.required_condition(required)
    if needs is None:
        return None
    tenant: ColumnElement[int] | int = seat.tenant_id
    if not seat.tenant_id:
        tenant = (
            select(Campaign.tenant_id)
            .where(Campaign.id == TaskItem.campaign_id)
            .correlate(TaskItem)
            .scalar_subquery()
        )
    in_force = consent.in_force_condition(tenant, TaskItem.value, TaskItem.campaign_id, seat.now)
    return and_(needs, ~in_force)


def _no_consent(task: Task, key: str, number: str, seat: Seat) -> list[Reason]:
    revoked = consent.last_revocation(task.campaign.tenant_id, number, seat.now)
    if revoked is not None:
        how = f" ({revoked.source})" if revoked.source else ""
        said = f"consent to call {number} was revoked at {seat.local(revoked.at)}{how}"
    else:
        said = f"no consent to call {number} is on record"
    return [Reason(NO_CONSENT, f"{said}; the campaign requires consent for its {key}")]


def invalid(_seat: Seat) -> ColumnElement[bool] | None:
    """The item's value is no number that exists, or a call to it ended INVALID_NUMBER."""
    return or_(TaskItem.valid_number.is_(False), ledger.invalid_number_condition())


def _invalid(task: Task, key: str, number: str, seat: Seat) -> list[Reason]:
    # As stored with the item (what the SQL condition read), not asked again.
    if any(item.key == key and item.valid_number is False for item in task.items):
        return [Reason(INVALID_NUMBER, f"{number} is not a valid phone number: never dialled")]
    ended = ledger.invalid_numbers(task).get((key, number))
    when = f" at {seat.local(ended)}" if ended else ""
    return [
        Reason(
            INVALID_NUMBER,
            f"a call to {number} ended INVALID_NUMBER{when}: not dialled again until the "
            f"task's {key} changes",
        )
    ]


TASK_RULES: list[TaskRule] = [
    TaskRule(STATE, in_open_state, _state),
    TaskRule(NEXT_EARLIEST_TIME, is_due, _due),
    TaskRule(CAMPAIGN_PAUSED, life_cycle.campaign_delivers, _paused),
    TaskRule(QUEUE_CLOSED, queue_hours.queue_is_open, _queue_closed),
    TaskRule(CALLING_WINDOW, calling_windows.in_calling_window, _outside_window),
    TaskRule(
        REGION_HOURS, region_hours_allow, _regional_reasons(calling_clock.HOURS, REGION_HOURS)
    ),
    TaskRule(REGION_DAY, region_day_allows, _regional_reasons(calling_clock.DAY, REGION_DAY)),
    TaskRule(
        REGION_HOLIDAY,
        region_holiday_allows,
        _regional_reasons(calling_clock.HOLIDAY, REGION_HOLIDAY),
    ),
    TaskRule(CONTACT_LIMIT, limits_allow, _task_limits),
    TaskRule(ATTEMPT_LIMIT, attempts_left, _attempts),
]
NUMBER_RULES: list[NumberRule] = [
    NumberRule(DO_NOT_CALL, listed, _listed),
    NumberRule(NO_CONSENT, no_consent, _no_consent),
    NumberRule(INVALID_NUMBER, invalid, _invalid),
    NumberRule(CONTACT_LIMIT, number_limited, _number_limits),
]


def phone_items() -> ColumnElement[bool]:
    """The task's items that hold a number (delivery's phone items)."""
    return and_(TaskItem.task_id == Task.id, TaskItem.key.ilike("%phone%"), TaskItem.value != "")


def number_holds(seat: Seat) -> list[tuple[str, ColumnElement[bool]]]:
    """Each number rule holding any number back at the seat, with its SQL condition on a
    phone item (`task_items` with its task). A task none of whose numbers may be called is
    held back by every rule holding one of them, as `holding_back` asks."""
    return [(rule.name, c) for rule in NUMBER_RULES if (c := rule.blocked(seat)) is not None]


def _number_blocked(seat: Seat, rules: list[NumberRule]) -> ColumnElement[bool] | None:
    found = [c for rule in rules if (c := rule.blocked(seat)) is not None]
    return or_(*found) if found else None


def has_callable_number(seat: Seat) -> ColumnElement[bool]:
    """No phone item, or one no number rule holds back.

    One correlated scalar subquery over the task's phone items: 1 when an item may be
    called, the greatest wins, none at all counts as 1 (a LIMIT 1 pick stays a few index
    probes per candidate)."""
    blocked = _number_blocked(seat, NUMBER_RULES)
    if blocked is None:
        return sql_true()
    best = (
        select(func.max(case((blocked, 0), else_=1)))
        .select_from(TaskItem)
        .where(phone_items())
        .scalar_subquery()
    )
    return func.coalesce(best, 1) == 1


def refuses(condition: ColumnElement[bool]) -> ColumnElement[bool]:
    """The condition does not hold (false, or NULL: delivery takes neither)."""
    return case((condition, 0), else_=1) == 1


def holding_back(name: str, seat: Seat) -> ColumnElement[bool] | None:
    """SQL: the rule `name` holds the task back (a task rule refuses it, or no number may be
    called and the rule holds one of them); None when it holds nothing back now."""
    parts = []
    for rule in TASK_RULES:
        if rule.name == name:
            condition = rule.condition(seat)
            if not condition.compare(sql_true()):
                parts.append(refuses(condition))
    numbered = [rule for rule in NUMBER_RULES if rule.name == name]
    blocked = _number_blocked(seat, numbered) if numbered else None
    if blocked is not None:
        one = exists(select(TaskItem.task_id).where(phone_items(), blocked))
        parts.append(and_(~has_callable_number(seat), one))
    if not parts:
        return None
    return or_(*parts)


# What delivery asks of a task besides its own state and time and the agent's: the rules
# of when and whom, each a condition on `tasks`, in the order they are said.
WORK_RULES: list[Callable[[Seat], ColumnElement[bool]]] = [
    life_cycle.campaign_delivers,
    queue_hours.queue_is_open,
    calling_windows.in_calling_window,
    region_hours_allow,
    region_day_allows,
    region_holiday_allows,
    has_callable_number,
    limits_allow,
    attempts_left,
]


# --- one task ------------------------------------------------------------------------------


def seat_for(task: Task, now: datetime, zone: str = "UTC") -> Seat:
    """Any agent at `now` (no queues: every queue; no login: no hold for it), times said
    in `zone`."""
    return Seat(0, "", (), now, task.campaign.tenant_id, zone)


def explain(task: Task, now: datetime, zone: str = "UTC") -> Explanation:
    """Every rule holding the task back at `now`, and each phone item's (in display order)."""
    seat = seat_for(task, now, zone)
    conditions = [rule.condition(seat) for rule in TASK_RULES]
    row = db.session.execute(
        select(*(case((c, 1), else_=0) for c in conditions)).where(Task.id == task.id)
    ).one()
    reasons: list[Reason] = []
    for rule, holds in zip(TASK_RULES, row, strict=True):
        if not holds:
            reasons += rule.explain(task, seat)
    return Explanation(task, now, reasons, _numbers(task, seat), seat)


def number_verdicts(task: Task, now: datetime, zone: str = "UTC") -> list[NumberVerdict]:
    """Each phone item of the task (in display order) and what holds it back at `now`."""
    return _numbers(task, seat_for(task, now, zone))


def _numbers(task: Task, seat: Seat) -> list[NumberVerdict]:
    phones = [d for d in agent_view_of(task).details if d.kind in PHONE_KINDS]
    if not phones:
        return []
    active = [(rule, c) for rule in NUMBER_RULES if (c := rule.blocked(seat)) is not None]
    held: dict[str, list[NumberRule]] = {}
    if active:
        rows = db.session.execute(
            select(TaskItem.key, *(case((c, 1), else_=0) for _rule, c in active))
            .select_from(TaskItem)
            .join(Task, Task.id == TaskItem.task_id)
            .where(TaskItem.task_id == task.id)
        )
        for key, *flags in rows:
            held[key] = [rule for (rule, _c), flag in zip(active, flags, strict=True) if flag]
    verdicts = []
    for phone in phones:
        reasons: list[Reason] = []
        for rule in held.get(phone.key, []):
            reasons += rule.explain(task, phone.key, phone.value, seat)
        verdicts.append(NumberVerdict(phone.key, phone.value, reasons))
    return verdicts


def check_call(found: Explanation, phone_key: str | None) -> tuple | None:
    """(key, number) the call may be placed to, by the task's explanation `found` (now):
    `phone_key`'s item, else the first callable one; HeldBack naming the first rule holding
    it back (the task's, else the number's) with when the call may be placed. `phone_key`
    must be a phone item's."""
    if found.reasons:
        first = found.reasons[0]
        raise held_back(_refusal(first, found.next_callable_at), first.rule, found.next_callable_at)
    chosen = next((n for n in found.numbers if n.key == phone_key), None)
    if chosen is None:
        chosen = next(iter(found.callable_numbers), found.numbers[0] if found.numbers else None)
    if chosen is None:
        return None
    if not chosen.callable:
        first = chosen.reasons[0]
        raise held_back(_refusal(first, chosen.until), first.rule, chosen.until)
    return chosen.key, chosen.number


def tenant_limits(seat: Seat) -> list:
    """The seat's tenant's contact limits, read once per seat."""
    return _limits(seat)


def regional_rules(seat: Seat) -> list[CallingRule]:
    """The seat's tenant's calling rules of the regions its open tasks are in (those of an
    open task's regions among them), oldest first, read once per seat."""
    return [row for _tenant, _rule, row in _calling_rules(seat)]


def _refusal(reason: Reason, until: datetime | None) -> str:
    said = reason.message
    if until is not None and until != reason.until:
        said += f" (the call may be placed from {moment_text(until)} UTC)"
    return said


# --- nothing to do: which rule, until when ---------------------------------------------------


def _explained(
    seat: Seat, ready: ColumnElement[bool], others: OtherRules, refused: ColumnElement[bool]
) -> list[Explanation]:
    """The first kept-back tasks (at most LOOK_PAST) that only `refused` holds back."""
    tasks = db.session.scalars(
        select(Task).where(ready, *others(), refused).order_by(Task.id).limit(LOOK_PAST)
    ).all()
    return [explain(task, seat.now, seat.zone) for task in tasks]


def _first_callable(found: list[Explanation]) -> datetime | None:
    ends = [e.next_callable_at for e in found if e.next_callable_at is not None]
    return min(ends, default=None)


def _limits_said(seat: Seat, until: datetime | None) -> Blocked:
    if until is None:
        return Blocked(CONTACT_LIMITS)
    return Blocked(f"{CONTACT_LIMITS}: the first may be called from {seat.local(until)}", until)


def limits_reached(seat: Seat, ready: ColumnElement[bool], others: OtherRules) -> Blocked | None:
    """Ready tasks kept back only by person or task contact limits: until the first may be
    called."""
    condition = limits_allow(seat)
    if condition.compare(sql_true()):
        return None
    found = _explained(seat, ready, others, refuses(condition))
    return _limits_said(seat, _first_callable(found)) if found else None


def no_callable_number(
    seat: Seat, ready: ColumnElement[bool], others: OtherRules
) -> Blocked | None:
    """Ready tasks kept back only because none of their numbers may be called: the
    do-not-call list (never ends), wrong numbers (until the data changes), contact limits
    per number (until the first may be called)."""
    condition = has_callable_number(seat)
    if condition.compare(sql_true()):
        return None
    found = _explained(seat, ready, others, refuses(condition))
    if not found:
        return None
    held = {rule for e in found for n in e.numbers for rule in (r.rule for r in n.reasons)}
    if held == {DO_NOT_CALL}:
        return Blocked(dnc.ALL_LISTED)
    if CONTACT_LIMIT in held:
        return _limits_said(seat, _first_callable(found))
    return Blocked(NO_NUMBER)


def _regional_blocker(rule: Callable[[Seat], ColumnElement[bool]], words: str):
    def blocker(seat: Seat, ready: ColumnElement[bool], others: OtherRules) -> Blocked | None:
        """Ready tasks kept back only by a regional calling rule: until the first may be
        called."""
        condition = rule(seat)
        if condition.compare(sql_true()):
            return None
        found = _explained(seat, ready, others, refuses(condition))
        if not found:
            return None
        until = _first_callable(found)
        if until is None:
            return Blocked(words)
        return Blocked(f"{words}: the first may be called from {seat.local(until)}", until)

    return blocker


region_hours_block = _regional_blocker(
    region_hours_allow, "the regions' calling hours hold back the remaining tasks"
)
region_day_block = _regional_blocker(
    region_day_allows, "the regions' days without calls hold back the remaining tasks"
)
region_holiday_block = _regional_blocker(
    region_holiday_allows, "the regions' public holidays hold back the remaining tasks"
)


def attempts_used(seat: Seat, ready: ColumnElement[bool], others: OtherRules) -> Blocked | None:
    """Ready tasks kept back only by their campaign's attempt limit (the clock never ends it)."""
    condition = attempts_left(seat)
    if condition.compare(sql_true()):
        return None
    kept = select(Task.id).where(ready, *others(), refuses(condition)).limit(1)
    if db.session.scalar(kept) is None:
        return None
    return Blocked("the remaining tasks have reached their campaign's attempt limit")


# --- the explanation a door asks for -------------------------------------------------------


def task_contactability(tenant_id: int, campaign_name: str, record_id: str, now: datetime):
    """The explanation of the tenant's task `record_id` of `campaign_name` at `now`;
    NotFound for an unknown campaign, TaskNotFound for an unknown task."""
    campaign = lookups.campaign_named(tenant_id, campaign_name)
    task = db.session.scalar(
        select(Task).where(Task.campaign_id == campaign.id, Task.record_id == record_id)
    )
    if task is None:
        raise TaskNotFound(
            f"no task with previewRecordID '{record_id}' in campaign '{campaign_name}'"
        )
    return explain(task, now)
