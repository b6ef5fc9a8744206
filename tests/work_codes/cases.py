"""The closing rules as one table, run through every door (service, Desk API, desk page).

Queue Sales offers two groups: Result (required, single choice) and Topics (optional,
multiple choice). Elsewhere is a group of the tenant that Sales does not offer. Support
offers no group: its codes are free labels.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import pytest

from app.extensions import db
from app.models import Tenant, WorkCodeGroup
from app.services.work_codes import groups as work_codes
from app.services.work_codes.groups import CodeSettings
from tests.conftest import SETUP

# An explicit next attempt: 09:30 on 2 January 2030 in New York (Renewals' zone) is 14:30 UTC.
LATER = datetime(2030, 1, 2, 14, 30, tzinfo=UTC)
LATER_LOCAL = "2030-01-02T09:30"


def make_groups(tenant: Tenant) -> dict[str, WorkCodeGroup]:
    """The groups of this module's docstring, committed."""
    result = work_codes.create_group(tenant, "Result", required=True, actor=SETUP)
    topics = work_codes.create_group(tenant, "Topics", multiple=True, actor=SETUP)
    elsewhere = work_codes.create_group(tenant, "Elsewhere", actor=SETUP)
    for group, name, settings in (
        (result, "Sale", CodeSettings("The customer bought.", 1, "COMPLETE")),
        (result, "No answer", CodeSettings("Nobody picked up.", 2, "RESCHEDULE", 60)),
        (result, "Callback", CodeSettings("A time agreed with the customer.", 3, "RESCHEDULE")),
        (result, "Left message", CodeSettings("", 4)),
        (result, "Wrong number", CodeSettings("", 5, "REMOVE")),
        (result, "Do not call", CodeSettings("Asked never to be called.", 6, "REMOVE", None, True)),
        (result, "Old", CodeSettings("", 7, "COMPLETE")),
        (topics, "Price", CodeSettings()),
        (topics, "Resolved", CodeSettings("", 1, "COMPLETE")),
        (topics, "Later", CodeSettings("", 2, "RESCHEDULE", 1440)),
        (elsewhere, "Thing", CodeSettings()),
    ):
        work_codes.add_code(group, name, settings, actor=SETUP)
    work_codes.set_code_enabled(work_codes.get_code(result, "Old"), False, actor=SETUP)
    work_codes.set_queue_groups(tenant, "Sales", ["Result", "Topics"], actor=SETUP)
    db.session.commit()
    return {"Result": result, "Topics": topics, "Elsewhere": elsewhere}


@dataclass(frozen=True)
class Case:
    """One closing: what is sent, and what follows (a state, or a refusal's words)."""

    codes: tuple[tuple[str, str], ...]
    outcome: str | None = None
    later: bool = False  # send LATER as the next attempt
    state: str | None = None  # None: refused
    words: tuple[str, ...] = ()  # the refusal names these
    delay: int | None = None  # WORKED: minutes from now to the next attempt (None: LATER)
    # The desk page's refusal, in the agent's words, and beside which field
    # (app/desk/refusals.py: next_time, outcome, wc:<group>, form).
    desk: tuple[str, str] | None = None


SALE = ("Result", "Sale")
CHOOSE_RESULT = ("Choose one of the Result codes.", "wc:Result")
NO_DELAY = ("Choose a time for the next attempt: the codes you ticked set no delay.", "next_time")
NO_ANSWER = ("Result", "No answer")
CASES = {
    # A code of every required group, codes of the queue only, enabled ones, one per single.
    "required-group-missing": Case(
        (), "COMPLETE", words=("'Result' is required", "Sale"), desk=CHOOSE_RESULT
    ),
    "only-an-optional-group": Case(
        (("Topics", "Price"),), "COMPLETE", words=("'Result'",), desk=CHOOSE_RESULT
    ),
    "group-not-of-the-queue": Case(
        (SALE, ("Elsewhere", "Thing")),
        "COMPLETE",
        words=("'Elsewhere'", "'Sales'"),
        desk=("The Elsewhere codes are no longer offered for this task", "form"),
    ),
    "unknown-group": Case(
        (SALE, ("Mood", "Happy")),
        "COMPLETE",
        words=("'Mood'",),
        desk=("The Mood codes are no longer offered for this task", "form"),
    ),
    "code-not-of-the-group": Case(
        (("Result", "Price"),),
        "COMPLETE",
        words=("'Price'", "'Result'"),
        desk=("Price is no longer one of the Result codes: choose another.", "wc:Result"),
    ),
    "disabled-code": Case(
        (("Result", "Old"),),
        "COMPLETE",
        words=("'Old'", "disabled"),
        desk=("Old is no longer one of the Result codes: choose another.", "wc:Result"),
    ),
    "two-codes-in-a-single-group": Case(
        (SALE, ("Result", "Wrong number")),
        "COMPLETE",
        words=("'Result' takes one code",),
        desk=("Choose only one of the Result codes.", "wc:Result"),
    ),
    "a-code-twice": Case(
        (SALE, ("Topics", "Price"), ("Topics", "Price")),
        "COMPLETE",
        words=("twice", "'Price'"),
        desk=("Price is ticked twice: tick it once.", "wc:Topics"),
    ),
    "several-in-a-multiple-group": Case(
        (SALE, ("Topics", "Price"), ("Topics", "Resolved")), state="COMPLETED"
    ),
    # No outcome: the codes' strongest (REMOVE > COMPLETE > RESCHEDULE).
    "derived-complete": Case((SALE,), state="COMPLETED"),
    "derived-remove-over-complete": Case(
        (("Result", "Wrong number"), ("Topics", "Resolved")), state="REMOVED"
    ),
    "derived-remove-over-reschedule": Case(
        (("Result", "Wrong number"), ("Topics", "Later")), state="REMOVED"
    ),
    "derived-complete-over-reschedule": Case((SALE, ("Topics", "Later")), state="COMPLETED"),
    "derived-complete-from-an-optional-group": Case(
        (("Result", "Left message"), ("Topics", "Resolved")), state="COMPLETED"
    ),
    "derived-reschedule-takes-the-codes-delay": Case((NO_ANSWER,), state="WORKED", delay=60),
    "the-longest-delay-of-the-codes": Case(
        (NO_ANSWER, ("Topics", "Later")), state="WORKED", delay=1440
    ),
    "a-time-sent-beats-the-delay": Case((NO_ANSWER,), later=True, state="WORKED"),
    "a-time-alone-reschedules-over-a-complete-code": Case((SALE,), later=True, state="WORKED"),
    "reschedule-code-without-delay-needs-a-time": Case(
        (("Result", "Callback"),), words=("nextEarliestWorkTimeUTC is required",), desk=NO_DELAY
    ),
    "reschedule-code-without-delay-and-a-time": Case(
        (("Result", "Callback"),), later=True, state="WORKED"
    ),
    "label-codes-imply-no-outcome": Case(
        (("Result", "Left message"),),
        words=("outcome is required",),
        desk=("none of the codes you ticked decides the outcome", "outcome"),
    ),
    # An outcome the agent names wins over the codes.
    "explicit-complete-over-a-reschedule-code": Case((NO_ANSWER,), "COMPLETE", state="COMPLETED"),
    "explicit-remove-over-a-complete-code": Case((SALE,), "REMOVE", state="REMOVED"),
    "explicit-reschedule-over-a-complete-code": Case(
        (SALE,), "RESCHEDULE", later=True, state="WORKED"
    ),
    "explicit-reschedule-takes-the-codes-delay": Case(
        (NO_ANSWER,), "RESCHEDULE", state="WORKED", delay=60
    ),
    "explicit-reschedule-without-time-or-delay": Case(
        (SALE,), "RESCHEDULE", words=("nextEarliestWorkTimeUTC is required",), desk=NO_DELAY
    ),
}


def closing_cases():
    """The table as pytest parameters, named by their keys."""
    return pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))


def ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)
