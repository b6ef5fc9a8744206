"""The desk page places calls: Call records the start then shows the number to dial, a
result button records the end and ticks the work codes the result suggests; the script's
JSON answers; refusals; the preview countdown; Skip; the Contact Control Panel's policy."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Attempt, CallPlacement, InstanceKind, Task
from app.services.dialer.placing import COUNTDOWN_GRACE_SECONDS, countdown_seconds
from app.services.work_codes.groups import CodeSettings, add_code, create_group, set_queue_groups
from app.web.security import CONTENT_SECURITY_POLICY, web_origin
from tests.admin.conftest import add_task, csrf_token, page, soup
from tests.conftest import SETUP

PHONE = "+14155550100"
OTHER = "+14155550111"
JSON = {"Accept": "application/json"}
CCP_URL = "https://acme.my.connect.aws/ccp-v2/"


def _offered(desk, renewals, items: dict | None = None) -> str:
    add_task(renewals, "c1", items or {"Name": "Carla Diaz", "Phone": PHONE, "Mobile Phone": OTHER})
    token = csrf_token(page(desk, "/desk"))
    desk.post("/desk/state", data={"state": "AVAILABLE", "csrf_token": token})
    return page(desk, "/desk").find("article", class_="desk-task")["data-record-id"]


def _token(desk) -> str:
    return csrf_token(page(desk, "/desk"))


def _attempt(record_id: str) -> Attempt:
    db.session.rollback()
    task = db.session.scalar(select(Task).filter_by(record_id=record_id))
    return db.session.scalar(select(Attempt).where(Attempt.task_id == task.id))


@pytest.fixture
def busy_code(acme):
    """Queue Sales closes with group Outcome, whose code "Busy" a BUSY call suggests."""
    group = create_group(acme, "Outcome", actor=SETUP)
    add_code(group, "Spoke", actor=SETUP)
    busy = add_code(group, "Busy", CodeSettings(outcome="RESCHEDULE", reschedule_minutes=30),
                    actor=SETUP)  # fmt: skip
    busy.suggested_for = "BUSY"
    set_queue_groups(acme, "Sales", ["Outcome"], actor=SETUP)
    db.session.commit()
    return busy


def _ticked(shown) -> list[str]:
    return [box["value"] for box in shown.select(".work-codes input[checked]")]


def test_without_javascript_call_shows_the_number_and_a_result_ticks_its_code(
    desk, renewals, busy_code
):
    record_id = _offered(desk, renewals)
    shown = page(desk, "/desk")
    assert shown.select_one("[data-call]")["data-stage"] == "ready"
    assert shown.select_one("[data-panel=dialling]").has_attr("hidden")

    answer = desk.post(f"/desk/tasks/{record_id}/call",
                       data={"phone_key": "Phone", "csrf_token": _token(desk)})  # fmt: skip
    assert answer.status_code == 302 and answer.location == "/desk"
    attempt = _attempt(record_id)
    assert (attempt.phone_number, attempt.call_started_at is not None) == (PHONE, True)
    shown = page(desk, "/desk")
    assert shown.select_one("[data-call]")["data-stage"] == "dialling"
    assert shown.select_one("[data-panel=ready]").has_attr("hidden")
    assert shown.select_one("[data-dial-link]")["href"] == f"tel:{PHONE}"
    buttons = shown.select("[data-result-form] button[name=result]")
    assert [b.get_text(strip=True) for b in buttons] == [
        "Answered", "No answer", "Busy", "Voicemail", "Wrong number", "Failed"
    ]  # fmt: skip
    assert _ticked(shown) == []

    form = shown.select_one("[data-result-form]")
    sent = {field["name"]: field["value"] for field in form.select("input[type=hidden]")}
    first_call = attempt.call_id
    assert sent["call_id"] == first_call
    desk.post(f"/desk/tasks/{record_id}/call-event", data={**sent, "result": "BUSY"})
    assert _attempt(record_id).call_result == "BUSY"
    shown = page(desk, "/desk")
    assert shown.select_one("[data-call]")["data-stage"] == "ended"
    assert shown.select_one("[data-call-result]").get_text(strip=True) == "Busy"
    assert _ticked(shown) == ["Busy"]

    # Call again: a new call of the same attempt, at the number just called.
    again = shown.select_one(".call-again")
    assert again.find("input", attrs={"name": "phone_key"})["value"] == "Phone"
    desk.post(f"/desk/tasks/{record_id}/call", data={"phone_key": "Phone",
                                                     "csrf_token": csrf_token(shown)})  # fmt: skip
    redial = _attempt(record_id)
    assert redial.call_id != first_call and redial.call_result is None
    assert page(desk, "/desk").select_one("[data-call]")["data-stage"] == "dialling"


def test_the_script_gets_json_for_the_call_and_the_codes_its_result_suggests(
    desk, renewals, busy_code
):
    record_id = _offered(desk, renewals)
    token = _token(desk)
    started = desk.post(f"/desk/tasks/{record_id}/call", headers=JSON,
                        data={"phone_key": "Mobile Phone", "csrf_token": token})  # fmt: skip
    assert started.status_code == 200
    call = started.get_json()
    assert (call["phoneNumber"], call["key"], call["dial"]) == (
        OTHER,
        "Mobile Phone",
        f"tel:{OTHER}",
    )
    assert call["callId"] == _attempt(record_id).call_id

    event = {"call_id": call["callId"], "csrf_token": token}
    connected = desk.post(f"/desk/tasks/{record_id}/call-event", headers=JSON,
                          data={**event, "event": "CONNECTED", "contact_id": "c-1"})  # fmt: skip
    assert connected.get_json()["connected"] is True
    ended = desk.post(f"/desk/tasks/{record_id}/call-event", headers=JSON,
                      data={**event, "event": "ENDED", "result": "BUSY"})  # fmt: skip
    assert ended.get_json() == {
        "callId": call["callId"],
        "connected": True,
        "result": "BUSY",
        "suggested": [["Outcome", "Busy"]],
        "next": None,  # the call connected: no next number offered
    }
    stored = _attempt(record_id)
    assert (stored.contact_id, stored.call_result) == ("c-1", "BUSY")


def test_after_a_call_that_did_not_connect_the_desk_offers_the_next_number(desk, renewals):
    """Every number shows its state; Call dials the suggested one; a call that ended
    unanswered offers "Call next number" with the next callable one (in the script's answer
    and on the page), and an invalid number is shown as not callable now."""
    record_id = _offered(desk, renewals)
    shown = page(desk, "/desk")
    states = [d["data-number-state"] for d in shown.select(".agent-view [data-number-state]")]
    assert states == ["CALLABLE", "CALLABLE"]
    assert shown.select_one(".call-ready [name=phone_key]")["value"] == "Phone"
    token = _token(desk)
    call = desk.post(f"/desk/tasks/{record_id}/call", headers=JSON,
                     data={"csrf_token": token}).get_json()  # fmt: skip
    assert call["key"] == "Phone"
    ended = desk.post(f"/desk/tasks/{record_id}/call-event", headers=JSON,
                      data={"call_id": call["callId"], "csrf_token": token, "event": "ENDED",
                            "result": "INVALID_NUMBER"}).get_json()  # fmt: skip
    assert ended["next"] == {"key": "Mobile Phone", "number": OTHER}
    shown = page(desk, "/desk")
    offer = shown.select_one(".call-next")
    assert "hidden" not in offer.attrs
    assert offer.select_one("[name=phone_key]")["value"] == "Mobile Phone"
    assert offer.select_one("[data-next-number]").get_text() == OTHER
    held = shown.select_one(".agent-view [data-number-state=INVALID_NUMBER]")
    assert held is not None and "ended INVALID_NUMBER" in held.get_text()


def test_a_refused_call_says_why_and_stores_nothing(desk, renewals):
    record_id = _offered(desk, renewals)
    token = _token(desk)
    refused = desk.post(f"/desk/tasks/{record_id}/call", headers=JSON,
                        data={"phone_key": "Notes", "csrf_token": token})  # fmt: skip
    assert refused.status_code == 409
    assert refused.get_json()["message"]
    assert _attempt(record_id).call_id is None
    # The plain form says it on the desk.
    desk.post(f"/desk/tasks/{record_id}/call", data={"phone_key": "Notes", "csrf_token": token})
    shown = page(desk, "/desk")
    assert shown.select_one("[data-call]")["data-stage"] == "ready"
    assert _attempt(record_id).call_id is None


def test_a_call_on_a_task_not_held_is_refused(desk, renewals):
    _offered(desk, renewals)
    answer = desk.post("/desk/tasks/not-a-task/call", headers=JSON,
                       data={"csrf_token": _token(desk)})  # fmt: skip
    assert answer.status_code == 409
    assert "is not yours" in answer.get_json()["message"]


@pytest.mark.parametrize(
    ("path", "data", "field"),
    [
        ("call", {"phone_key": "x" * 256}, "phone_key"),
        ("call-event", {"event": "ENDED", "result": "BUSY"}, "call_id"),
        ("call-event", {"call_id": "c", "event": "HUNG_UP"}, "event"),
        ("call-event", {"call_id": "c", "event": "ENDED", "result": "LOUD"}, "result"),
        ("call-event", {"call_id": "c" * 37, "event": "ENDED"}, "call_id"),
        ("call-event", {"call_id": "c", "event": "CONNECTED", "contact_id": "x" * 256},
         "contact_id"),
    ],
)  # fmt: skip
def test_bad_input_is_json_naming_the_field_and_changes_nothing(desk, renewals, path, data, field):
    record_id = _offered(desk, renewals)
    answer = desk.post(f"/desk/tasks/{record_id}/{path}", headers=JSON,
                       data={**data, "csrf_token": _token(desk)})  # fmt: skip
    assert answer.status_code == 400
    assert answer.get_json()["field"] == field
    assert _attempt(record_id).call_id is None


@pytest.mark.parametrize("settings", [{"WTF_CSRF_ENABLED": True}], indirect=True, ids=["csrf"])
@pytest.mark.parametrize("path", ["call", "call-event"])
def test_a_call_without_its_csrf_token_is_refused(desk, renewals, path):
    record_id = _offered(desk, renewals)
    answer = desk.post(f"/desk/tasks/{record_id}/{path}", headers=JSON, data={"call_id": "c"})
    assert answer.status_code == 400 and answer.get_json()["field"] == "csrf_token"
    plain = desk.post(f"/desk/tasks/{record_id}/{path}", data={"call_id": "c"})
    assert plain.status_code == 400  # as every desk form without its token
    assert _attempt(record_id).call_id is None


def test_an_unknown_call_is_refused(desk, renewals):
    record_id = _offered(desk, renewals)
    answer = desk.post(f"/desk/tasks/{record_id}/call-event", headers=JSON,
                       data={"call_id": "nope", "event": "ENDED", "result": "BUSY",
                             "csrf_token": _token(desk)})  # fmt: skip
    assert answer.status_code == 409 and answer.get_json()["message"]


@pytest.mark.parametrize("path", ["/desk/tasks/x/call", "/desk/tasks/x/call-event"])
def test_a_call_address_opened_as_a_link_goes_to_the_desk(desk, path):
    response = desk.get(path)
    assert response.status_code == 302 and response.location == "/desk"


# ---- The preview countdown ----

DELIVERED = datetime(2030, 1, 2, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("auto_dial", "elapsed", "call_id", "left"),
    [
        (None, 0, None, None),  # the agent dials
        (20, 0, None, 20),
        (20, 7.5, None, 13),  # whole seconds, rounded up
        (20, 17, None, COUNTDOWN_GRACE_SECONDS),  # a reload still warns first
        (20, 600, None, COUNTDOWN_GRACE_SECONDS),
        (20, 5, "call-1", None),  # the call was placed
    ],
)
def test_the_countdown_goes_on_from_the_delivery(renewals, auto_dial, elapsed, call_id, left):
    renewals.auto_dial_seconds = auto_dial
    task = Task(campaign=renewals)
    attempt = Attempt(delivered_at=DELIVERED, call_id=call_id)
    now = DELIVERED + timedelta(seconds=elapsed)
    assert countdown_seconds(task, attempt, now) == left
    db.session.rollback()


def test_the_desk_counts_down_when_the_campaign_dials_by_itself(desk, renewals):
    renewals.auto_dial_seconds = 30
    db.session.commit()
    _offered(desk, renewals)
    shown = page(desk, "/desk")
    panel = shown.select_one("[data-call]")
    assert 28 <= int(panel["data-countdown"]) <= 30
    box = shown.select_one("[data-countdown-box]")
    assert box.has_attr("hidden")  # the script shows it: without it nothing dials by itself
    assert box.select_one("[aria-live=polite]") is not None
    assert shown.select_one("[data-call-form] button").get_text(" ", strip=True) == (
        f"Call now {PHONE}"
    )


def test_no_countdown_for_a_campaign_the_agent_dials(desk, renewals):
    _offered(desk, renewals)
    shown = page(desk, "/desk")
    assert not shown.select_one("[data-call]").has_attr("data-countdown")
    assert shown.select_one("[data-countdown-box]") is None


# ---- Skip ----


def test_skip_is_offered_only_when_the_campaign_allows_it(desk, renewals):
    record_id = _offered(desk, renewals)
    assert page(desk, "/desk").select_one("[data-skip-form]") is not None
    renewals.can_skip = False
    db.session.commit()
    shown = page(desk, "/desk")
    assert shown.select_one("[data-skip-form]") is None
    # Sent anyway, the server refuses: the task stays the agent's.
    desk.post(f"/desk/tasks/{record_id}/release", data={"csrf_token": csrf_token(shown)})
    db.session.rollback()
    task = db.session.scalar(select(Task).filter_by(record_id=record_id))
    assert task.reserved_by_id is not None
    assert "skip" in soup(desk.get("/desk")).get_text().lower()


# ---- The Contact Control Panel and the page's policy ----


def _ccp(acme, kind=InstanceKind.AMAZON_CONNECT, url=CCP_URL):
    acme.instance_kind = kind
    acme.connect_ccp_url = url
    db.session.commit()


def test_the_desk_embeds_the_ccp_and_may_frame_only_its_origin(desk, acme, renewals):
    renewals.connect_queue_arn = "arn:aws:connect:us-east-1:1:instance/i/queue/q"
    db.session.commit()
    _ccp(acme)
    _offered(desk, renewals)
    response = desk.get("/desk")
    policy = response.headers["Content-Security-Policy"]
    assert "frame-src https://acme.my.connect.aws;" in policy + ";"
    assert "connect-src 'self' https://acme.my.connect.aws" in policy
    assert "frame-ancestors 'none'" in policy and "script-src 'self';" in policy
    shown = soup(response)
    holder = shown.select_one("[data-ccp-holder]")
    scripts = [s["src"] for s in shown.find_all("script", src=True)]
    assert "/static/vendor/amazon-connect-streams/connect-streams-min.js" in scripts
    assert CCP_URL in holder["data-ccp"] and "queue/q" in holder["data-ccp"]
    # Every other page keeps the policy that frames nothing.
    assert desk.get("/desk/login").headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY


@pytest.mark.parametrize(
    ("kind", "url"),
    [
        (InstanceKind.LOCAL, CCP_URL),  # not an Amazon Connect tenant
        (InstanceKind.AMAZON_CONNECT, None),
        (InstanceKind.AMAZON_CONNECT, "javascript:alert(1)"),
        (InstanceKind.AMAZON_CONNECT, "ftp://acme.example/ccp"),
        (InstanceKind.AMAZON_CONNECT, "https://a.example; script-src *"),
    ],
)
def test_without_a_ccp_the_desk_frames_nothing(desk, acme, renewals, kind, url):
    _ccp(acme, kind, url)
    _offered(desk, renewals)
    response = desk.get("/desk")
    assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    shown = soup(response)
    assert shown.select_one("[data-ccp-holder]") is None
    assert shown.select_one("[data-dial-link]") is not None


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://acme.my.connect.aws/ccp-v2/", "https://acme.my.connect.aws"),
        ("http://localhost:8123/ccp", "http://localhost:8123"),
        ("  https://Acme.awsapps.com/connect/ccp-v2#x ", "https://acme.awsapps.com"),
        ("javascript:alert(1)", None),
        ("data:text/html,hi", None),
        ("https://", None),
        ("https://a.example:99999/", None),
        ("//acme.example/ccp", None),
        ("", None),
        (None, None),
    ],
)
def test_only_http_and_https_origins_may_be_framed(url, origin):
    assert web_origin(url) == origin


def test_a_call_the_contact_centre_cannot_place_is_shown_ended_failed(desk, renewals):
    """A contact-flow campaign naming no contact flow: the call is recorded started and
    ended FAILED; the script is told why, and so is the page without it."""
    renewals.call_placement = CallPlacement.CONTACT_FLOW.value
    db.session.commit()
    record_id = _offered(desk, renewals)
    answer = desk.post(f"/desk/tasks/{record_id}/call", headers=JSON,
                       data={"csrf_token": _token(desk)})  # fmt: skip
    assert answer.status_code == 200
    sent = answer.get_json()
    assert (sent["result"], sent["suggested"]) == ("FAILED", [])
    assert sent["failure"].startswith("The contact centre could not place the call: ")
    assert _attempt(record_id).call_result == "FAILED"
    desk.post(f"/desk/tasks/{record_id}/call", data={"csrf_token": _token(desk)})
    shown = page(desk, "/desk")
    assert "could not place the call" in shown.get_text()
    assert shown.select_one("[data-call]")["data-stage"] == "ended"


def test_with_the_ccp_the_idle_desk_looks_again_without_reloading_itself(desk, acme):
    """A meta refresh would reload the CCP's frame, and a call in it: the script looks again
    between contacts instead."""
    token = _token(desk)
    desk.post("/desk/state", data={"state": "AVAILABLE", "csrf_token": token})
    assert page(desk, "/desk").find("meta", attrs={"http-equiv": "refresh"}) is not None
    _ccp(acme)
    shown = page(desk, "/desk")
    assert shown.find("meta", attrs={"http-equiv": "refresh"}) is None
    assert shown.select_one("[data-look-again]")["data-look-again"] == "15"
    assert shown.select_one("[data-ccp-holder]") is not None
