"""Delivery inside the calling window, each task read in its own zone, with a controlled clock;
and the "nothing to do" reason that says when the next window opens."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.extensions import db
from app.services.actors import Actor
from app.services.contactability.seat import Seat
from app.services.delivery import closing, offers
from app.services.delivery.progress import campaign_progress
from app.services.people import agents
from app.services.schedules import calling_windows
from app.services.tasks import changes as tasks
from app.services.tasks.changes import Locator, TaskChanges, add_or_update_task
from app.services.tasks.validation import ItemInput
from app.wire.times import sent_time
from tests.conftest import SETUP
from tests.delivery.delivery_support import (  # noqa: F401 - settings: short desk timings
    available,
    client_id,
    make_agent,
    offer,
    settings,
)

# Monday 2026-11-23 14:00 UTC: 09:00 in New York, 14:00 in London, 23:00 in Tokyo.
AFTERNOON = datetime(2026, 11, 23, 14, 0, tzinfo=UTC)
NY, LONDON, TOKYO = "America/New_York", "Europe/London", "Asia/Tokyo"
H = timedelta(hours=1)


def at(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


@pytest.fixture
def ann(acme):
    return make_agent(acme, "ann", ("Sales", "Support"))


def window(campaign, text: str | None) -> None:
    opens, closes = calling_windows.parse_window(text) if text else (None, None)
    calling_windows.set_calling_window(campaign, opens, closes, actor=SETUP)
    db.session.commit()


def add(campaign, client_id: str, zone: str | None = None):
    """A committed task of the campaign in `zone` (its ItemTimeZone; none: the default)."""
    items = [ItemInput("Name", client_id.title())]
    if zone:
        items.append(ItemInput("ItemTimeZone", zone))
    task, _ = add_or_update_task(campaign, client_id, items, actor=SETUP)
    db.session.commit()
    return task


def delivered(agent, now: datetime) -> list[str]:
    """Every task the agent is given at `now`, each completed before asking again."""
    available(agent, now)
    given = []
    while (found := offer(agent, now)).task is not None:
        given.append(found.task.client_id)
        closing.close_task(
            agent, found.task.record_id, "COMPLETE", actor=Actor.agent("ann"), now=now
        )
        db.session.commit()
    return given


@pytest.mark.parametrize(
    ("text", "now", "expected"),
    [
        # 08:00-21:00 at one instant: 09:00 in New York and 14:00 in London, 23:00 in Tokyo.
        ("08:00-21:00", AFTERNOON, ["ny", "london"]),
        # 02:00 UTC: 21:00 in New York, 02:00 in London, 11:00 in Tokyo.
        ("08:00-21:00", at(2026, 11, 23, 2, 0), ["tokyo"]),
        # Past midnight, 20:00-02:00, at 01:30 UTC: 20:30 New York, 01:30 London, 10:30 Tokyo.
        ("20:00-02:00", at(2026, 11, 23, 1, 30), ["ny", "london"]),
        # No window: any time.
        (None, at(2026, 11, 23, 2, 0), ["ny", "london", "tokyo"]),
    ],
)
def test_only_tasks_inside_the_window_in_their_own_zone_are_delivered(
    renewals, ann, text, now, expected
):
    window(renewals, text)
    add(renewals, "ny")  # the campaign's default zone, New York
    add(renewals, "london", LONDON)
    add(renewals, "tokyo", TOKYO)
    assert delivered(ann, now) == expected


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        (at(2026, 3, 7, 12, 59), []),  # 07:59 EST, the day before
        (at(2026, 3, 7, 13, 0), ["c1"]),  # 08:00 EST
        (at(2026, 3, 8, 11, 59), []),  # 07:59 EDT: the clocks went forward in the night
        (at(2026, 3, 8, 12, 0), ["c1"]),  # 08:00 EDT
        (at(2026, 3, 9, 0, 59), ["c1"]),  # 20:59 EDT
        (at(2026, 3, 9, 1, 0), []),  # 21:00 EDT
    ],
)
def test_the_window_follows_new_york_across_its_spring_change(renewals, ann, now, expected):
    window(renewals, "08:00-21:00")
    add(renewals, "c1")
    assert delivered(ann, now) == expected


def test_a_campaign_without_a_window_is_worked_while_another_ones_is_closed(renewals, winback, ann):
    window(renewals, "08:00-21:00")
    add(renewals, "closed")  # 21:00 in New York
    add(winback, "open")  # no window
    assert delivered(ann, at(2026, 11, 24, 2, 0)) == ["open"]


# --- the reason when nothing is delivered -----------------------------------------------------


@pytest.mark.parametrize(
    ("agent_zone", "said"),
    [
        (None, "2026-11-23 13:00 UTC"),
        (LONDON, "2026-11-23 13:00 Europe/London"),
        (NY, "2026-11-23 08:00 America/New_York"),
    ],
)
def test_the_reason_says_when_the_earliest_kept_back_task_can_be_called(
    renewals, ann, agent_zone, said
):
    """At 12:30 UTC: 07:30 in New York (opens at 13:00 UTC), 21:30 in Tokyo (23:00 UTC)."""
    agents.set_agent_zone(ann, agent_zone, actor=SETUP)
    window(renewals, "08:00-21:00")
    add(renewals, "tokyo", TOKYO)
    add(renewals, "ny")
    now = at(2026, 11, 23, 12, 30)
    available(ann, now)
    found = offer(ann, now)
    assert found.task is None
    assert found.reason == f"outside the calling window: the next task can be called from {said}"
    assert found.next_due == at(2026, 11, 23, 13, 0)
    assert client_id(offer(ann, found.next_due)) == "ny"


def test_the_reason_counts_only_tasks_that_could_otherwise_be_worked(renewals, ann):
    """Completed tasks and another agent's reservation are not waiting for the window."""
    window(renewals, "08:00-21:00")
    add(renewals, "done")
    now = at(2026, 11, 23, 14, 0)
    assert delivered(ann, now) == ["done"]
    night = at(2026, 11, 24, 3, 0)
    available(ann, night)
    assert offer(ann, night).reason == offers.NO_TASKS


def test_a_task_due_later_is_not_said_to_wait_for_the_window(renewals, ann):
    window(renewals, "08:00-21:00")
    due = at(2026, 11, 24, 15, 0)
    add_or_update_task(
        renewals, "later", [ItemInput("Name", "Later")], actor=SETUP,
        next_earliest=sent_time(int(due.timestamp() * 1000), "nextEarliestWorkTimeUTC"),
    )  # fmt: skip
    db.session.commit()
    now = at(2026, 11, 24, 3, 0)
    available(ann, now)
    found = offer(ann, now)
    assert found.reason == "the next task is due at 2026-11-24 15:00 UTC"


def test_the_supervisors_progress_counts_the_windows_tasks_as_kept_back(renewals):
    window(renewals, "08:00-21:00")
    add(renewals, "ny")
    add(renewals, "tokyo", TOKYO)
    night = campaign_progress(renewals, at(2026, 11, 24, 3, 0))  # 22:00 NY, 12:00 Tokyo
    assert (night.deliverable, night.kept_back) == (1, 1)
    day = campaign_progress(renewals, AFTERNOON)  # 09:00 NY, 23:00 Tokyo
    assert (day.deliverable, day.kept_back) == (1, 1)
    calling_windows.set_calling_window(renewals, None, None, actor=SETUP)
    anytime = campaign_progress(renewals, AFTERNOON)
    assert (anytime.deliverable, anytime.kept_back) == (2, 0)


def test_next_window_opening_for_the_supervisors(renewals):
    assert calling_windows.next_window_opening(renewals, TOKYO, AFTERNOON) == AFTERNOON
    window(renewals, "08:00-21:00")
    assert calling_windows.next_window_opening(renewals, TOKYO, AFTERNOON) == at(2026, 11, 23, 23)
    assert calling_windows.next_window_opening(renewals, NY, AFTERNOON) == AFTERNOON


# --- for the desk's order: campaigns it need not look into --------------------------------------


def test_zones_present_are_those_of_open_tasks(renewals, ann):
    add(renewals, "ny")
    add(renewals, "tokyo", TOKYO)
    add(renewals, "london", LONDON)
    assert calling_windows.zones_present(renewals.id) == [NY, TOKYO, LONDON]  # sorted
    tasks.change_status(
        renewals, Locator(client_id="london"), "COMPLETED", TaskChanges(), actor=SETUP
    )
    db.session.commit()
    assert calling_windows.zones_present(renewals.id) == [NY, TOKYO]


@pytest.mark.parametrize(
    ("now", "closed"),
    [
        (at(2026, 11, 23, 12, 30), True),  # 07:30 in New York, 21:30 in Tokyo
        (at(2026, 11, 23, 13, 0), False),  # 08:00 in New York
        (at(2026, 11, 23, 3, 0), False),  # 12:00 in Tokyo
    ],
)
def test_a_campaign_none_of_whose_tasks_is_inside_is_closed(renewals, winback, ann, now, closed):
    window(renewals, "08:00-21:00")
    add(renewals, "ny")
    add(renewals, "tokyo", TOKYO)
    add(winback, "any time")
    expected = {renewals.id} if closed else set()
    assert calling_windows.closed_campaigns(Seat.of(ann, now)) == expected


def test_the_supervisors_progress_says_when_the_window_opens_next(renewals):
    window(renewals, "08:00-21:00")
    add(renewals, "tokyo", TOKYO)
    progress = campaign_progress(renewals, AFTERNOON)  # 23:00 in Tokyo
    assert progress.kept_back == 1
    # 08:00 Tokyo is 23:00 UTC, said in the campaign's zone (New York).
    assert [(why.reason, why.until) for why in progress.kept_back_why] == [
        (
            "outside the calling window: the next task can be called from "
            "2026-11-23 18:00 America/New_York",
            at(2026, 11, 23, 23),
        )
    ]
    add(renewals, "ny")  # 09:00 in New York: deliverable, and the Tokyo task still waits
    assert campaign_progress(renewals, AFTERNOON).kept_back_why == progress.kept_back_why
    window(renewals, None)
    assert campaign_progress(renewals, AFTERNOON).kept_back_why == ()
