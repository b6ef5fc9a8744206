"""The desk's personal callback: "I call back myself" with a time the contact rules refuse
comes back as typed, the first allowed time said beside the time field in the customer's
zone; a time they allow keeps the task for the agent."""

from __future__ import annotations

from app.extensions import db
from app.services.people import agents
from app.services.schedules import calling_windows
from tests.admin.conftest import page
from tests.conftest import SETUP
from tests.desk.refusal_support import assert_refused
from tests.desk.test_close_forms import (  # noqa: F401 - fixtures
    agent,
    clock,
    close,
    held,
    soup,
    stored,
    typed,
    untouched,
)


def test_a_callback_the_window_refuses_says_the_first_allowed_time(desk, agent, winback, clock):  # noqa: F811
    record_id = held(desk, winback)  # delivered at the real now, before any window
    calling_windows.set_calling_window(winback, 8 * 60, 21 * 60, actor=SETUP)
    db.session.commit()
    late = ("outcome", "RESCHEDULE"), ("next_time", "2031-03-04T22:00"), ("personal_callback", "y")
    answer = close(desk, record_id, *late)
    assert answer.status_code == 422
    shown = soup(answer)
    assert typed(shown) == "2031-03-04T22:00"
    assert shown.find("input", attrs={"name": "personal_callback"}).has_attr("checked")
    assert_refused(
        shown,
        "The customer may not be called at that time. The first time they may is "
        "2031-03-05 08:00 (Europe/London): choose it or a later one.",
        "next_time",
    )
    untouched(record_id, agent)
    fine = ("outcome", "RESCHEDULE"), ("next_time", "2031-03-05T09:00"), ("personal_callback", "y")
    assert close(desk, record_id, *fine).status_code == 302
    task = stored(record_id)
    assert (task.worked_state, task.preferred_agent) == ("WORKED", agent.login_user_id)


def test_a_refused_callback_offers_the_first_allowed_time(desk, agent, winback, clock):  # noqa: F811
    record_id = held(desk, winback)  # delivered at the real now, before any window
    calling_windows.set_calling_window(winback, 8 * 60, 21 * 60, actor=SETUP)
    db.session.commit()
    late = ("outcome", "RESCHEDULE"), ("next_time", "2031-03-04T22:00"), ("personal_callback", "y")
    offer = soup(close(desk, record_id, *late)).find("button", attrs={"name": "offered_time"})
    assert (offer["value"], offer.get_text(strip=True)) == (
        "2031-03-05T08:00", "Call back at 2031-03-05 08:00",
    )  # fmt: skip
    # The button sends the form as it was (time typed, callback ticked) with the offer.
    taken = ("next_time", "2031-03-04T22:00"), ("personal_callback", "y")
    taken += (("offered_time", offer["value"]),)
    assert close(desk, record_id, *taken).status_code == 302
    task = stored(record_id)
    assert (task.worked_state, task.preferred_agent) == ("WORKED", agent.login_user_id)
    at = task.next_earliest_work_at.replace(tzinfo=None)
    assert at.isoformat() == "2031-03-05T08:00:00"  # London is on GMT in March


def test_the_desk_lists_the_agent_s_callbacks_in_both_zones(desk, agent, winback, clock):  # noqa: F811
    agents.set_agent_zone(agent, "America/New_York", actor=SETUP)
    db.session.commit()
    record_id = held(desk, winback)
    assert page(desk, "/desk").find("section", class_="desk-callbacks") is None
    kept = ("outcome", "RESCHEDULE"), ("next_time", "2031-03-05T09:00"), ("personal_callback", "y")
    assert close(desk, record_id, *kept).status_code == 302
    section = page(desk, "/desk").find("section", class_="desk-callbacks")
    [row] = [[td.get_text(" ", strip=True) for td in tr.find_all("td")]
             for tr in section.find("tbody").find_all("tr")]  # fmt: skip
    # The time field reads in the customer's zone (Winback's: London); the list says the
    # agent's own (New York) beside the customer's.
    assert row == [
        "2031-03-05 04:00 EST",
        "Carla Diaz (Winback)",
        "2031-03-05 09:00 GMT",
        "2031-03-05 04:30 EST",
    ]
