"""Work codes on the desk page: the close form offers the task's groups (radios, checkboxes,
descriptions, required marked, Enter never completes) and its POST applies the rules."""

from __future__ import annotations

from dataclasses import replace

import pytest
from werkzeug.datastructures import MultiDict

from app.extensions import db
from app.models import Task
from app.models.types import utcnow
from app.services.work_codes import groups as work_codes
from app.services.work_codes.groups import CodeSettings
from tests.admin.conftest import add_task, csrf_token, form_values, page, soup
from tests.admin.test_security import (
    CSRF_ON,
    assert_csrf_on_every_post_form,
    assert_no_inline_script_or_style,
)
from tests.conftest import SETUP
from tests.delivery.delivery_support import available, stored
from tests.desk.desk_support import desk_session, make_agent
from tests.desk.refusal_support import assert_refused
from tests.work_codes.cases import LATER_LOCAL, closing_cases
from tests.work_codes.test_closing import check_closed, check_refused


@pytest.fixture
def agent(acme, groups):
    return make_agent(acme, queues=("Sales", "Support"), password=None)


@pytest.fixture
def desk(client, agent):
    return desk_session(client, agent)


def held(desk, agent, campaign, client_id: str = "c1") -> Task:
    """A task of the campaign, delivered to the agent by the desk page."""
    add_task(campaign, client_id, {"Name": "Carla", "Phone": "+14155550100"})
    available(agent, utcnow())
    shown = page(desk, "/desk").find("article", class_="desk-task")
    assert shown is not None and shown["data-record-id"] == stored(client_id).record_id
    return stored(client_id)


def close_form(desk):
    """The close form of the task the desk page shows, when its queue offers work codes."""
    return page(desk, "/desk").find("form", class_="work-codes")


def notice(desk) -> str:
    return " ".join(p.get_text(" ", strip=True) for p in page(desk, "/desk").select(".notice"))


def post_close(desk, task: Task, outcome, codes, next_time=None, token=None, status=302):
    data = MultiDict([("outcome", outcome or ""), ("confirmed", "yes")])  # Remove asks first
    for key, value in codes:
        data.add(f"wc:{key}", value)
    if next_time:
        data.add("next_time", next_time)
    if token:
        data.add("csrf_token", token)
    response = desk.post(f"/desk/tasks/{task.record_id}/close", data=data)
    assert response.status_code == status
    return response


# --- the form -------------------------------------------------------------------------------


def test_a_single_choice_group_is_radios_and_a_required_one_is_marked(desk, agent, renewals):
    held(desk, agent, renewals)
    form = close_form(desk)
    result = form.find("fieldset", attrs={"data-group": "Result"})
    assert result["role"] == "radiogroup" and result["aria-required"] == "true"
    assert "required" in result.legend.get_text()
    radios = result.find_all("input")
    assert {r["type"] for r in radios} == {"radio"}
    assert {r["name"] for r in radios} == {"wc:Result"}
    assert all(r.has_attr("required") for r in radios)
    # In sort order, the disabled "Old" left out.
    assert [r["value"] for r in radios] == [
        "Sale", "No answer", "Callback", "Left message", "Wrong number", "Do not call",
    ]  # fmt: skip


def test_a_multiple_choice_group_is_checkboxes_none_required(desk, agent, renewals):
    held(desk, agent, renewals)
    form = close_form(desk)
    topics = form.find("fieldset", attrs={"data-group": "Topics"})
    boxes = topics.find_all("input")
    assert {b["type"] for b in boxes} == {"checkbox"}
    assert not any(b.has_attr("required") for b in boxes)
    assert not topics.has_attr("aria-required")
    assert "required" not in topics.legend.get_text()


def test_each_code_is_labelled_and_its_description_read_out(desk, agent, renewals):
    held(desk, agent, renewals)
    form = close_form(desk)
    for box in form.select("fieldset input"):
        label = form.find("label", attrs={"for": box["id"]})
        assert label is not None and box["value"] in label.get_text()
    sale = form.find("input", attrs={"value": "Sale"})
    about = form.find(id=sale["aria-describedby"])
    assert about.get_text(strip=True) == "The customer bought."
    no_answer = form.find("label", attrs={"for": form.find("input", value="No answer")["id"]})
    assert "reschedules in 1 hour" in no_answer.get_text(" ", strip=True)
    do_not_call = form.find("label", attrs={"for": form.find("input", value="Do not call")["id"]})
    assert "do-not-call" in do_not_call.get_text()


def test_enter_closes_by_the_codes_never_completes(desk, agent, renewals):
    """Enter submits with the first button: the codes' outcome (a time typed reschedules)."""
    held(desk, agent, renewals)
    form = close_form(desk)
    first = form.find("button")
    assert (first["name"], first["value"]) == ("outcome", "")
    assert form.find("input", attrs={"name": "next_time"}) is not None


def test_without_codes_implying_an_outcome_enter_reschedules(desk, agent, renewals, groups):
    for group in groups.values():
        for code in group.codes:
            work_codes.change_code(code, code.name, CodeSettings(), actor=SETUP)
    db.session.commit()
    held(desk, agent, renewals)
    form = close_form(desk)
    assert form.find("button")["value"] == "RESCHEDULE"


def test_names_are_shown_as_text(desk, agent, renewals, groups):
    work_codes.add_code(groups["Topics"], "<i>VIP</i>", CodeSettings("<b>x</b>"), actor=SETUP)
    db.session.commit()
    held(desk, agent, renewals)
    form = close_form(desk)
    assert form.find("i") is None and form.find("b") is None
    assert "<i>VIP</i>" in form.get_text() and "<b>x</b>" in form.get_text()


def test_a_queue_without_groups_keeps_the_plain_close_forms(desk, agent, winback):
    held(desk, agent, winback)
    shown = page(desk, "/desk")
    assert shown.find("form", class_="work-codes") is None
    assert shown.find("form", class_="reschedule") is not None


def test_a_queue_with_groups_has_one_close_form(desk, agent, renewals):
    held(desk, agent, renewals)
    shown = page(desk, "/desk")
    assert len(shown.find_all("form", class_="work-codes")) == 1
    assert shown.find("form", class_="reschedule") is None
    assert shown.find("form", class_="release") is not None


# --- closing --------------------------------------------------------------------------------


@closing_cases()
def test_closing_rules_through_the_desk_page(case, desk, agent, renewals):
    task = held(desk, agent, renewals)
    earliest = utcnow()
    later = LATER_LOCAL if case.later else None
    refused = case.state is None
    answer = post_close(desk, task, case.outcome, case.codes, later, status=422 if refused else 302)
    latest = utcnow()
    if refused:
        # The form again as sent (the codes it offers ticked), the refusal in the agent's
        # words beside its field.
        shown = soup(answer)
        offered = {(box["name"][3:], box["value"]) for box in shown.select("input[name^='wc:']")}
        kept = [(b["name"][3:], b["value"]) for b in shown.select("input[name^='wc:'][checked]")]
        assert kept == [code for code in dict.fromkeys(case.codes) if code in offered]
        assert_refused(shown, *case.desk)
        check_refused(replace(case, words=()), "", "c1", agent)
    else:
        check_closed(case, "c1", earliest, latest)
        assert notice(desk).startswith("Task closed:")


def test_the_form_as_a_browser_sends_it_closes_the_task(desk, agent, renewals):
    held(desk, agent, renewals)
    form = close_form(desk)
    values = form_values(form)
    values.setlist("wc:Result", ["Sale"])
    values.setlist("wc:Topics", ["Price", "Resolved"])
    values["outcome"] = ""
    desk.post(form["action"], data=values)
    shown = stored("c1")
    assert shown.worked_state == "COMPLETED"
    assert [(c.key, c.value) for c in shown.work_codes] == [
        ("Result", "Sale"), ("Topics", "Price"), ("Topics", "Resolved"),
    ]  # fmt: skip


def test_the_page_says_the_attempt_limit_completed_the_task(desk, agent, renewals):
    renewals.max_attempts = 1
    db.session.commit()
    task = held(desk, agent, renewals)
    post_close(desk, task, None, [("Result", "No answer")])
    assert stored("c1").worked_state == "COMPLETED"
    assert "attempt limit reached (1 attempt)" in notice(desk)


def test_a_reschedule_by_the_codes_tells_the_next_attempt(desk, agent, renewals):
    task = held(desk, agent, renewals)
    post_close(desk, task, None, [("Result", "No answer")])
    assert "rescheduled; next attempt" in notice(desk)


@CSRF_ON
def test_closing_needs_its_csrf_token(desk, agent, renewals):
    task = held(desk, agent, renewals)
    post_close(desk, task, None, [("Result", "Sale")], status=400)
    assert stored("c1").work_attempts == 0
    shown = page(desk, "/desk")
    assert_no_inline_script_or_style(shown)
    assert_csrf_on_every_post_form(shown)
    token = csrf_token(shown.find("form", class_="work-codes"))
    post_close(desk, task, None, [("Result", "Sale")], token=token)
    assert stored("c1").worked_state == "COMPLETED"
