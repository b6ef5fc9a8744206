"""The desk's personal callback: "I call back myself" with a time the contact rules refuse
comes back as typed, the first allowed time said beside the time field in the customer's
zone; a time they allow keeps the task for the agent."""

from __future__ import annotations

from app.extensions import db
from app.services.schedules import calling_windows
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
    calling_windows.set_calling_window(winback, 8 * 60, 21 * 60, actor=SETUP)
    db.session.commit()
    record_id = held(desk, winback)
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
