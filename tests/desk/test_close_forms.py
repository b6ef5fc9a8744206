"""The desk's close, reschedule and remove forms: a refusal shows the form again exactly as
sent (the codes ticked, the time typed), the refusal once, in the agent's words (times in
the picker's zone), beside its field and marked as an error, never an API field name; every
closing that removes asks once, and cancelling keeps every choice; Skip says what it did."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import select
from werkzeug.datastructures import MultiDict

from app.desk import pages
from app.extensions import db
from app.models import Task
from app.services.people import agents
from app.services.work_codes import groups as work_codes
from tests.admin.conftest import add_task, form_values, page, soup
from tests.conftest import SETUP
from tests.desk.desk_support import make_agent
from tests.desk.refusal_support import assert_no_api_names, assert_refused
from tests.work_codes.cases import make_groups

# Now, for the desk's clock: 18:37:42 UTC on 4 March 2031 is 18:37 in London (GMT), 13:37
# in New York (EST) and 19:37 in Paris; after every task's delivery in these tests.
NOW = datetime(2031, 3, 4, 18, 37, 42, tzinfo=UTC)


@pytest.fixture
def agent(acme):
    make_groups(acme)  # Sales (Renewals) closes with work codes; Support (Winback) without
    return make_agent(acme, queues=("Sales", "Support"))


@pytest.fixture
def clock(monkeypatch):
    """The close view's now (the one the rules check the time against) is NOW."""
    monkeypatch.setattr(pages, "utcnow", lambda: NOW)
    return NOW


def held(desk, campaign, **options) -> str:
    """A task of the campaign, delivered by the desk page; its record id."""
    add_task(campaign, "c1", {"Name": "Carla Diaz", "Phone": "+14155550100"}, **options)
    desk.post("/desk/state", data={"state": "AVAILABLE"})
    shown = page(desk, "/desk").find("article", class_="desk-task")
    return shown["data-record-id"]


def close(desk, record_id: str, *pairs: tuple[str, str]):
    return desk.post(f"/desk/tasks/{record_id}/close", data=MultiDict(pairs))


def stored(record_id: str) -> Task:
    db.session.expire_all()
    return db.session.scalar(select(Task).filter_by(record_id=record_id))


def untouched(record_id: str, agent) -> None:
    task = stored(record_id)
    assert (task.worked_state, task.work_attempts, task.reserved_by_id) == (
        "NOTWORKED", 0, agent.id,
    )  # fmt: skip


def ticked(shown) -> list[tuple[str, str]]:
    return [
        (box["name"].removeprefix("wc:"), box["value"])
        for box in shown.select(".work-codes input[name^='wc:']")
        if box.has_attr("checked")
    ]


def typed(shown) -> str | None:
    return shown.find("input", attrs={"name": "next_time"}).get("value")


# --- refusals: the form as sent, the refusal beside its field -------------------------------


@pytest.mark.parametrize(
    ("zone", "words"),
    [
        ("Europe/London", "Choose a time after 18:37 (Europe/London)."),
        (
            "Europe/Paris",
            "Choose a time after 18:37 (Europe/London), 19:37 your time (Europe/Paris).",
        ),
    ],
)
def test_a_reschedule_in_the_past_comes_back_as_typed_with_the_time_to_beat(
    desk, agent, winback, clock, zone, words
):
    agents.set_agent_zone(agent, zone, actor=SETUP)
    db.session.commit()
    record_id = held(desk, winback)
    answer = close(desk, record_id, ("outcome", "RESCHEDULE"), ("next_time", "2031-03-04T18:00"))
    assert answer.status_code == 422
    shown = soup(answer)
    assert shown.find("article", class_="desk-task")["data-record-id"] == record_id
    assert typed(shown) == "2031-03-04T18:00"
    assert_refused(shown, words, "next_time")
    untouched(record_id, agent)


def test_a_past_day_is_said_with_todays_date(desk, agent, winback, clock):
    record_id = held(desk, winback)
    answer = close(desk, record_id, ("outcome", "RESCHEDULE"), ("next_time", "2031-03-03T20:00"))
    assert_refused(
        soup(answer), "Choose a time after 2031-03-04 18:37 (Europe/London)", "next_time"
    )


def test_a_call_back_code_without_a_time_keeps_the_codes_ticked(desk, agent, renewals):
    record_id = held(desk, renewals)
    answer = close(
        desk, record_id, ("outcome", ""), ("wc:Result", "Callback"), ("wc:Topics", "Price"),
        ("next_time", ""),
    )  # fmt: skip
    assert answer.status_code == 422
    shown = soup(answer)
    assert ticked(shown) == [("Result", "Callback"), ("Topics", "Price")]
    assert_refused(
        shown, "Choose a time for the next attempt: the codes you ticked set no delay.", "next_time"
    )
    untouched(record_id, agent)


def test_the_codes_shown_again_replace_the_ones_a_call_suggests(desk, agent, renewals):
    """Kept exactly as sent: a code the call suggested but the agent unticked stays unticked."""
    result = work_codes.find_group(agent.tenant, "Result")
    work_codes.get_code(result, "No answer").suggested_for = "NO_ANSWER"
    db.session.commit()
    record_id = held(desk, renewals)
    json = {"Accept": "application/json"}
    call = desk.post(f"/desk/tasks/{record_id}/call", headers=json, data={"phone_key": "Phone"})
    ended = {"call_id": call.get_json()["callId"], "event": "ENDED", "result": "NO_ANSWER"}
    desk.post(f"/desk/tasks/{record_id}/call-event", headers=json, data=ended)
    assert ticked(page(desk, "/desk")) == [("Result", "No answer")]  # the suggestion
    answer = close(desk, record_id, ("outcome", "COMPLETE"), ("wc:Topics", "Price"))
    shown = soup(answer)
    assert ticked(shown) == [("Topics", "Price")]
    assert_refused(shown, "Choose one of the Result codes.", "wc:Result")


def test_a_time_in_the_past_with_codes_keeps_both(desk, agent, renewals, clock):
    record_id = held(desk, renewals)
    answer = close(
        desk, record_id, ("outcome", "RESCHEDULE"), ("wc:Result", "Callback"),
        ("next_time", "2031-03-04T13:00"),
    )  # fmt: skip
    shown = soup(answer)
    assert (ticked(shown), typed(shown)) == ([("Result", "Callback")], "2031-03-04T13:00")
    assert_refused(shown, "Choose a time after 13:37 (America/New_York)", "next_time")
    # The form as the page now stands, sent as a browser would, is refused the same way.
    again = soup(desk.post(f"/desk/tasks/{record_id}/close", data=form_values(
        shown.find("form", class_="work-codes")
    )))  # fmt: skip
    assert_refused(again, "Choose a time after 13:37", "next_time")
    untouched(record_id, agent)


@pytest.mark.parametrize("outcome", ["SKIP", "complete"])
def test_an_outcome_the_page_never_sends_is_refused_beside_the_buttons(
    desk, agent, winback, outcome
):
    record_id = held(desk, winback)
    answer = close(desk, record_id, ("outcome", outcome))
    assert answer.status_code == 422
    assert_refused(soup(answer), "Choose Complete, Reschedule or Remove.", "outcome")
    untouched(record_id, agent)


def test_codes_that_decide_nothing_are_refused_beside_the_outcome(desk, agent, renewals):
    record_id = held(desk, renewals)
    shown = soup(close(desk, record_id, ("outcome", ""), ("wc:Result", "Left message")))
    assert ticked(shown) == [("Result", "Left message")]
    assert_refused(shown, "none of the codes you ticked decides the outcome", "outcome")


def test_a_refusal_is_said_once_and_a_reload_shows_the_plain_desk(desk, agent, winback, clock):
    record_id = held(desk, winback)
    close(desk, record_id, ("outcome", "RESCHEDULE"), ("next_time", "2031-03-04T18:00"))
    again = page(desk, "/desk")  # the refusal is the form's answer only, never a flash
    assert "Choose a time" not in again.get_text()
    assert not typed(again)
    # The refused page gives the script the desk's own address for the browser's history.
    shown = soup(
        close(desk, record_id, ("outcome", "RESCHEDULE"), ("next_time", "2031-03-04T18:00"))
    )
    assert shown.find(id="desk-presence")["data-desk-url"] == "/desk"
    assert page(desk, "/desk").find(id="desk-presence").get("data-desk-url") is None


def test_a_task_taken_meanwhile_is_an_error_saying_what_was_not_saved(desk, agent, winback):
    record_id = held(desk, winback)
    task = stored(record_id)
    task.reserved_by_id = None  # released by a supervisor meanwhile, then deleted
    db.session.delete(task)
    db.session.commit()
    answer = close(desk, record_id, ("outcome", "RESCHEDULE"), ("next_time", "2030-01-02T09:30"))
    assert answer.status_code == 302
    shown = page(desk, "/desk")
    alert = shown.select_one("main > .alert[role=alert]")
    assert "no longer yours" in alert.get_text()
    assert (
        "Not saved, so note it down: Reschedule; next attempt 2030-01-02 09:30" in alert.get_text()
    )
    assert not shown.select(".notice")
    assert_no_api_names(shown)


# --- removal asks once, whichever way it is chosen ------------------------------------------


def confirm_form(answer):
    shown = soup(answer)
    assert "never delivered again" in shown.get_text()
    return shown.find("form", class_="confirm-remove")


@pytest.mark.parametrize(
    "chosen",
    [
        [("outcome", "REMOVE"), ("wc:Result", "Sale"), ("wc:Topics", "Price"),
         ("next_time", "2030-01-02T09:30")],
        # "Close (outcome from the codes)" with a code whose outcome is Remove (a time typed
        # would make it a reschedule).
        [("outcome", ""), ("wc:Result", "Wrong number"), ("wc:Topics", "Price")],
    ],
    ids=["the-remove-button", "a-remove-code"],
)  # fmt: skip
def test_every_removal_asks_once_and_cancel_keeps_every_choice(desk, agent, renewals, chosen):
    record_id = held(desk, renewals)
    answer = close(desk, record_id, *chosen)
    assert answer.status_code == 200
    form = confirm_form(answer)
    untouched(record_id, agent)
    # Cancel: the desk shows the form as it was sent.
    back = form_values(form)
    back["confirmed"] = "no"
    cancelled = desk.post(form["action"], data=back)
    assert cancelled.status_code == 200
    shown = soup(cancelled)
    assert shown.find("article", class_="desk-task")["data-record-id"] == record_id
    assert ticked(shown) == [(k.removeprefix("wc:"), v) for k, v in chosen if k.startswith("wc:")]
    assert (typed(shown) or None) == dict(chosen).get("next_time")
    assert not shown.select(".field-error, .alert")
    untouched(record_id, agent)
    # Remove the task: once, no second question.
    again = form_values(confirm_form(close(desk, record_id, *chosen)))
    again["confirmed"] = "yes"
    assert desk.post(form["action"], data=again).status_code == 302
    assert stored(record_id).worked_state == "REMOVED"


def test_a_closing_that_does_not_remove_never_asks(desk, agent, renewals):
    record_id = held(desk, renewals)
    answer = close(desk, record_id, ("outcome", "COMPLETE"), ("wc:Result", "Wrong number"))
    assert answer.status_code == 302
    assert stored(record_id).worked_state == "COMPLETED"


def test_a_removal_the_rules_refuse_is_refused_before_it_asks(desk, agent, renewals):
    record_id = held(desk, renewals)
    answer = close(desk, record_id, ("outcome", "REMOVE"), ("wc:Topics", "Price"))
    assert answer.status_code == 422
    assert_refused(soup(answer), "Choose one of the Result codes.", "wc:Result")


def test_cancel_on_the_plain_form_keeps_the_time_typed(desk, agent, winback):
    record_id = held(desk, winback)
    form = confirm_form(close(desk, record_id, ("outcome", "REMOVE")))
    cancel = form.find("button", attrs={"value": "no"})
    assert cancel.get_text(strip=True) == "Cancel, back to the task"
    assert form.find("button", attrs={"value": "yes"}).get_text(strip=True) == "Remove the task"
    back = form_values(form)
    back["confirmed"] = "no"
    shown = soup(desk.post(form["action"], data=back))
    assert shown.find("form", class_="reschedule") is not None
    untouched(record_id, agent)


# --- Skip says what it did ------------------------------------------------------------------


def test_skip_says_the_task_went_back_to_its_queue_and_may_come_again(desk, agent, winback):
    record_id = held(desk, winback)
    desk.post(f"/desk/tasks/{record_id}/release")
    said = page(desk, "/desk").select_one(".notice").get_text(" ", strip=True)
    assert said == (
        "Skipped: Carla Diaz went back to the Support queue, no attempt counted. It may be "
        "offered again at once, to you or another agent of Support."
    )


def test_skip_of_a_task_held_for_the_agent_says_until_when(desk, agent, winback):
    record_id = held(desk, winback, preferred_agent=agent.login_user_id)
    hold = stored(record_id).hold_until
    desk.post(f"/desk/tasks/{record_id}/release")
    said = page(desk, "/desk").select_one(".notice").get_text(" ", strip=True)
    assert said == (
        f"Skipped: Carla Diaz went back to the Support queue, no attempt counted. It is held "
        f"for you until {hold:%Y-%m-%d %H:%M} UTC, so it may come back to you at once."
    )


def test_a_refused_skip_is_an_error(desk, agent, winback):
    record_id = held(desk, winback)
    winback.can_skip = False
    db.session.commit()
    desk.post(f"/desk/tasks/{record_id}/release")
    shown = page(desk, "/desk")
    assert "does not let agents skip" in shown.select_one(".alert[role=alert]").get_text()
    assert stored(record_id).reserved_by_id == agent.id
