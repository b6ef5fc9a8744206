"""Which tasks an agent may receive: the eligibility rules, each a small named function.

Every rule is a SQL condition on `tasks` for one agent at one moment (`Seat`), so the desk
(`offers.next_task`) and the supervisors' progress counts build their queries from the same
functions and can never disagree. A campaign's status, hours of operation, calling windows
and the do-not-call list live in their own services (`campaigns.life_cycle`,
`schedules.queue_hours`, `schedules.calling_windows`, `dnc.numbers`, `contact_limits`), are
named and defined once in `contact_rules.engine`, and plug in here, each rule with the
blocker that says when it keeps tasks back (`blocking`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy import ColumnElement, and_, or_, text

from app.models import Task, User
from app.models.agents import AgentState
from app.services.campaigns import life_cycle as campaign_status
from app.services.contact_rules import engine
from app.services.contactability.seat import Blocked, OtherRules, Seat
from app.services.schedules import calling_windows, queue_hours

# Literal SQL, so that PostgreSQL matches the partial indexes of migration 0009 whatever
# plan it caches (a bound parameter would not prove the index's predicate).
NOT_WORKED = text("tasks.worked_state = 'NOTWORKED'")
RESCHEDULED = text("tasks.worked_state = 'WORKED'")
OPEN_STATES = ("NOTWORKED", "WORKED")


def setting(name: str) -> float:
    """A delivery setting in seconds (AGENT_IDLE_SECONDS, OFFER_TIMEOUT_SECONDS, ...)."""
    return float(current_app.config[name])


def seconds(name: str) -> timedelta:
    return timedelta(seconds=setting(name))


# --- the agent -------------------------------------------------------------------------


def is_silent(agent: User, now: datetime) -> bool:
    """No heartbeat for AGENT_IDLE_SECONDS: the agent counts as offline."""
    seen = agent.last_seen_at
    return seen is None or seen <= now - seconds("AGENT_IDLE_SECONDS")


def effective_state(agent: User, now: datetime) -> str:
    """The agent's state as delivery sees it: a silent desk is OFFLINE."""
    if agent.desk_state != AgentState.OFFLINE and is_silent(agent, now):
        return AgentState.OFFLINE.value
    return agent.desk_state


# --- the task --------------------------------------------------------------------------


# The contact rules STATE and NEXT_EARLIEST_TIME (app/services/contact_rules).
in_open_state = engine.in_open_state
is_due = engine.is_due


def in_agent_queues(seat: Seat) -> ColumnElement[bool]:
    return Task.skill_queue_id.in_(seat.queue_ids)


def reservation_lapsed(now: datetime) -> ColumnElement[bool]:
    """A reservation without activity for OFFER_TIMEOUT_SECONDS no longer counts."""
    return Task.reserved_at <= now - seconds("OFFER_TIMEOUT_SECONDS")


def is_unreserved(seat: Seat) -> ColumnElement[bool]:
    """Not reserved for another agent (a lapsed reservation is none)."""
    return or_(Task.reserved_by_id.is_(None), reservation_lapsed(seat.now))


def hold_running(now: datetime) -> ColumnElement[bool]:
    """The preferred agent's hold has not ended (an ended hold is no hold, clock or not)."""
    return and_(Task.preferred_agent.is_not(None), Task.hold_until > now)


def hold_allows(seat: Seat) -> ColumnElement[bool]:
    """While the hold runs, only the preferred agent."""
    return or_(~hold_running(seat.now), Task.preferred_agent == seat.login)


def not_passed_over(seat: Seat) -> ColumnElement[bool]:
    """Not taken back from this agent by a supervisor lately: a supervisor's release means
    "not this agent now", so the task goes to another agent of its queue meanwhile."""
    return or_(
        Task.passed_over_agent.is_(None),
        Task.passed_over_agent != seat.login,
        Task.passed_over_until <= seat.now,
    )


def held_for_agent(seat: Seat) -> ColumnElement[bool]:
    """Held for this agent now: the first tier of the order."""
    return and_(Task.preferred_agent == seat.login, Task.hold_until > seat.now)


Rule = Callable[[Seat], ColumnElement[bool]]
# Every rule a deliverable task meets: the task's own state and time, the agent's queues,
# other agents' reservations and holds, a supervisor's release from this agent, then when
# and whom it may be worked: the contact rules of app/services/contact_rules (a campaign
# that delivers, the queue's hours of operation, the campaign's calling window in the
# customer's zone, a number that may be called, the contact limits, the attempt limit).
TASK_RULES: list[Rule] = [
    in_open_state,
    is_due,
    in_agent_queues,
    is_unreserved,
    hold_allows,
    not_passed_over,
]
WORK_RULES: list[Rule] = engine.WORK_RULES
ELIGIBILITY: list[Rule] = TASK_RULES + WORK_RULES
# The rules above that depend on the clock or a list rather than on the task's own state:
# when nothing is deliverable, each says whether it is what keeps tasks back, and until when.
# `ready` is the condition of TASK_RULES; a blocker finds whether its own rule is what keeps
# such tasks back, asking for the other work rules' conditions when it must tell them apart.
Blocker = Callable[[Seat, ColumnElement[bool], OtherRules], Blocked | None]
# A paused campaign is asked first: it is what a supervisor chose, and it outlasts the clock.
BLOCKERS: list[tuple[Rule, Blocker]] = [
    (campaign_status.campaign_delivers, campaign_status.stopped_campaigns),
    (queue_hours.queue_is_open, queue_hours.closed_queues),
    (calling_windows.in_calling_window, calling_windows.outside_window),
    (engine.region_hours_allow, engine.region_hours_block),
    (engine.region_day_allows, engine.region_day_block),
    (engine.region_holiday_allows, engine.region_holiday_block),
    (engine.has_callable_number, engine.no_callable_number),
    (engine.limits_allow, engine.limits_reached),
    (engine.attempts_left, engine.attempts_used),
]


def blocking(seat: Seat, ready: ColumnElement[bool]) -> Iterator[tuple[Blocker, Blocked]]:
    """Each rule of BLOCKERS that keeps `ready` tasks back from this seat, in order, with why
    and until when."""
    for rule, blocker in BLOCKERS:

        def others(rule: Rule = rule) -> list[ColumnElement[bool]]:
            return [other(seat) for other in WORK_RULES if other is not rule]

        if (blocked := blocker(seat, ready, others)) is not None:
            yield blocker, blocked


def ready(seat: Seat) -> ColumnElement[bool]:
    """The task's own rules: open, due, in the agent's queues, free, no hold against and
    not taken back from this agent."""
    return and_(*(rule(seat) for rule in TASK_RULES))


def deliverable(seat: Seat) -> ColumnElement[bool]:
    """All of ELIGIBILITY for this agent now."""
    return and_(*(rule(seat) for rule in ELIGIBILITY))
