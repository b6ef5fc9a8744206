"""Why tasks are kept back: one count per rule of when and whom, for the Progress panel.

A task is kept back when it is open, free, due and unheld, yet a rule of ELIGIBILITY that
holds for any agent of its queue refuses it now: a paused campaign, the queue's hours of
operation, the campaign's calling window, the do-not-call list, or whatever rule delivery
gains later.
Each such rule is counted with the very condition delivery applies (`rule(seat)`), so the
panel's reasons and the desk's deliveries never disagree. A task refused by two rules is
counted under both.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, and_, case, true

from app.services.campaigns import life_cycle as campaign_status
from app.services.contactability.seat import Seat
from app.services.delivery import rules
from app.services.dnc import numbers as dnc
from app.services.schedules import calling_windows, queue_hours

# The rules that say nothing of when and whom: a task they refuse is not "kept back" but
# closed, waiting for its time, or in work.
TASK_STATE = (rules.in_open_state, rules.is_due, rules.is_unreserved)
# How the panel names the rules it knows, and the short name its links filter by.
NAMES: dict[rules.Rule, tuple[str, str]] = {
    campaign_status.campaign_delivers: ("paused", "campaign paused or archived"),
    queue_hours.queue_is_open: ("hours", "queue closed (hours of operation)"),
    calling_windows.in_calling_window: ("window", "outside the calling window"),
    dnc.has_callable_number: ("dnc", "every number on the do-not-call list"),
}


@dataclass(frozen=True)
class Reason:
    """One rule that keeps tasks back: the name its link filters by, its label, the rule."""

    key: str
    label: str
    rule: rules.Rule


@dataclass(frozen=True)
class KeptBack:
    """How many kept-back tasks one rule refuses now."""

    key: str
    label: str
    count: int


def reasons(per_agent: tuple[rules.Rule, ...]) -> list[Reason]:
    """The rules of ELIGIBILITY that may keep a task back for any agent (not those of
    `per_agent`, which depend on who asks), in the order delivery applies them."""
    found = []
    for number, rule in enumerate(rules.ELIGIBILITY):
        if rule in per_agent or rule in TASK_STATE:
            continue
        key, label = NAMES.get(rule, (f"rule-{number}", _label(rule)))
        found.append(Reason(key, label, rule))
    return found


def _label(rule: rules.Rule) -> str:
    doc = (rule.__doc__ or "").strip().splitlines()
    return doc[0].rstrip(".") if doc else "another rule of delivery"


def refuses(condition: ColumnElement[bool]) -> ColumnElement[bool]:
    """The condition does not hold (false, or NULL: delivery takes neither)."""
    return case((condition, 0), else_=1) == 1


def refused_by(
    seat: Seat, kept_back: ColumnElement[bool], per_agent: tuple[rules.Rule, ...]
) -> list[tuple[Reason, ColumnElement[bool] | None]]:
    """Each reason with the condition picking the kept-back tasks its rule refuses now;
    None when the rule refuses nothing now (it sets no condition at all)."""
    found = []
    for reason in reasons(per_agent):
        condition = reason.rule(seat)
        refused = None if condition.compare(true()) else and_(kept_back, refuses(condition))
        found.append((reason, refused))
    return found
