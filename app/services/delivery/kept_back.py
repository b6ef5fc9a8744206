"""Why tasks are kept back: one count per contact rule of when and whom, for the Progress
panel.

A task is kept back when it is open, free, due and unheld, yet a contact rule that holds
for any agent of its queue refuses it now: a paused campaign, the queue's hours of
operation, the campaign's calling window, no number that may be called (the do-not-call
list, no consent, a wrong number, a contact limit per number), a contact limit per person
or task, the attempt limit. Each is counted with the very condition delivery applies
(`contact_rules.engine.holding_back`), so the panel's reasons, the desk's deliveries and a
task's explanation never disagree. A task refused by two rules is counted under both.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, and_, true

from app.services.contact_rules import engine
from app.services.contact_rules.engine import refuses
from app.services.contactability.seat import Seat
from app.services.delivery import rules

__all__ = ["KeptBack", "Reason", "reasons", "refused_by", "refuses"]

# The rules the panel counts, the short name its links filter by, and its label. STATE and
# NEXT_EARLIEST_TIME are not among them: a task they refuse is closed or waiting for its time.
COUNTED: tuple[tuple[str, str, str], ...] = (
    (engine.CAMPAIGN_PAUSED, "paused", "campaign paused or archived"),
    (engine.QUEUE_CLOSED, "hours", "queue closed (hours of operation)"),
    (engine.CALLING_WINDOW, "window", "outside the calling window"),
    (engine.REGION_HOURS, "region-hours", "outside a region's calling hours"),
    (engine.REGION_DAY, "region-day", "a region's day without calls"),
    (engine.REGION_HOLIDAY, "region-holiday", "a region's public holiday"),
    (engine.DO_NOT_CALL, "dnc", "every number on the do-not-call list"),
    (engine.NO_CONSENT, "consent", "no consent in force (NO_CONSENT)"),
    (engine.INVALID_NUMBER, "invalid", "a wrong number (INVALID_NUMBER)"),
    (engine.CONTACT_LIMIT, "limits", "contact limits"),
    (engine.ATTEMPT_LIMIT, "attempts", "attempt limit reached"),
)


@dataclass(frozen=True)
class Reason:
    """One rule that keeps tasks back: the name its link filters by, its label, the rule's
    name in the contact rules."""

    key: str
    label: str
    # The contact rule's name; or a rule delivery applies beside the contact rules.
    rule: str | rules.Rule


@dataclass(frozen=True)
class KeptBack:
    """How many kept-back tasks one rule refuses now."""

    key: str
    label: str
    count: int
    rule: str = ""


# The rules of ELIGIBILITY that are none of the panel's: the task's own state and time, and
# the contact rules (counted by name above).
NOT_COUNTED = (rules.in_open_state, rules.is_due, rules.is_unreserved, *engine.WORK_RULES)


def reasons(per_agent: tuple = ()) -> list[Reason]:
    """The contact rules that may keep a task back for any agent, in the engine's order,
    then any other rule of ELIGIBILITY that does not depend on who asks (not `per_agent`)."""
    found = [Reason(key, label, rule) for rule, key, label in COUNTED]
    for number, rule in enumerate(rules.ELIGIBILITY):
        if rule not in per_agent and rule not in NOT_COUNTED:
            found.append(Reason(f"rule-{number}", _label(rule), rule))
    return found


def _label(rule: rules.Rule) -> str:
    doc = (rule.__doc__ or "").strip().splitlines()
    return doc[0].rstrip(".") if doc else "another rule of delivery"


def refused_by(
    seat: Seat, kept_back: ColumnElement[bool], per_agent: tuple = ()
) -> list[tuple[Reason, ColumnElement[bool] | None]]:
    """Each reason with the condition picking the kept-back tasks its rule refuses now;
    None when the rule refuses nothing now (it sets no condition at all)."""
    found = []
    for reason in reasons(per_agent):
        if isinstance(reason.rule, str):
            holding = engine.holding_back(reason.rule, seat)
        else:
            condition = reason.rule(seat)
            holding = None if condition.compare(true()) else refuses(condition)
        found.append((reason, None if holding is None else and_(kept_back, holding)))
    return found
