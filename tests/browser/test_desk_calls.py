"""Calls at the desk, in headless Chromium against a real gunicorn, time under Playwright's
controlled clock: the progressive countdown dials by itself (after asking the server),
pauses on Escape, and a result ticks the work code it suggests before the close; a call
the server refuses dials nothing; Skip only where the campaign allows it; the phone width.

The Contact Control Panel: the page loads the real vendored amazon-connect-streams bundle;
only its core is replaced, as that library's own unit tests do (the event bus, the
upstream conduit, the client that would talk to the CCP frame, and initCCP that would
frame it), and agent snapshots are pushed through the library's own AgentDataProvider, so
the page's `agent.connect`, contact events and agent states run the library's real code.

Screenshots of the countdown for the README: UPDATE_README_SCREENSHOTS=1 with this file
(`.venv/bin/python -m pytest tests/browser/test_desk_calls.py -k countdown`).
"""

from __future__ import annotations

import json
import re
import time

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect
from sqlalchemy import select

from app.demo import tenant as demo
from app.extensions import db
from app.models import Attempt, InstanceKind, Task, User
from app.services.actors import Actor
from app.services.people import agents
from app.services.tasks.changes import Locator, delete_task
from app.services.work_codes.groups import CodeSettings, add_code, create_group, set_queue_groups
from tests.admin.conftest import add_task
from tests.browser.conftest import Tab, copy_to_readme
from tests.browser.test_desk_flow import PHONE as PHONE_SIZE
from tests.browser.test_desk_flow import (  # noqa: F401 (desk: a fixture)
    WIDE,
    desk,
    offered,
    press_tab_until_focused,
    sign_in,
    state_button,
)
from tests.conftest import SETUP
from tests.desk.desk_support import make_agent
from tests.work_codes.test_browser import sign_in_available

pytestmark = pytest.mark.server

NUMBER = "+14155550100"
QUEUE_ARN = "arn:aws:connect:us-east-1:111122223333:instance/abc/queue/outbound"
CCP_URL = "https://acme.my.connect.aws/ccp-v2/"

# Every tel: link opened is noted instead of leaving the page (the device's dialler): those
# the page's script opens in `dialled`, those the agent clicks in `clicked`.
TEL_SPY = """
document.addEventListener("click", (event) => {
  const link = event.target.closest && event.target.closest("a[href^='tel:']");
  if (!link) return;
  event.preventDefault();
  const list = event.isTrusted ? "clicked" : "dialled";
  window[list] = (window[list] || []).concat(link.getAttribute("href"));
}, true);
"""


@pytest.fixture
def seeded(acme, renewals) -> str:
    """Agent Ann of Sales; a Renewals task; Sales closes with an Outcome code "Busy" that a
    BUSY call suggests. Committed: the server writes next."""
    make_agent(acme, queues=("Sales",))
    group = create_group(acme, "Outcome", actor=SETUP)
    add_code(group, "Spoke", CodeSettings(outcome="COMPLETE"), actor=SETUP)
    busy = add_code(group, "Busy", CodeSettings(outcome="RESCHEDULE", reschedule_minutes=30),
                    actor=SETUP)  # fmt: skip
    busy.suggested_for = "BUSY"
    set_queue_groups(acme, "Sales", ["Outcome"], actor=SETUP)
    record_id = add_task(renewals, "c1", {"Name": "Carla Diaz", "Phone": NUMBER}).record_id
    db.session.commit()
    return record_id


def _dial_settings(campaign, seconds: int | None, can_skip: bool = True) -> None:
    campaign.auto_dial_seconds = seconds
    campaign.can_skip = can_skip
    db.session.commit()


def _attempt(record_id: str) -> tuple:
    db.session.rollback()
    task = db.session.scalar(select(Task).filter_by(record_id=record_id))
    attempt = db.session.scalar(  # the newest: the demo's tasks have past attempts too
        select(Attempt).where(Attempt.task_id == task.id).order_by(Attempt.id.desc()).limit(1)
    )
    found = (
        attempt.phone_number,
        attempt.contact_id,
        attempt.connected_at is not None,
        attempt.call_result,
        attempt.outcome,
        [(code["key"], code["value"]) for code in attempt.work_codes],
    )
    db.session.rollback()
    return found


def _countdown_left(page: Page) -> int:
    return int(page.locator("[data-countdown-left]").inner_text())


def _desk(tab: Tab) -> Page:
    tab.page.set_viewport_size(WIDE)
    tab.page.add_init_script(TEL_SPY)
    tab.page.clock.install()
    return sign_in_available(tab)


def test_the_countdown_dials_by_itself_and_a_result_ticks_its_code(tab: Tab, seeded, renewals):
    _dial_settings(renewals, 20)
    page = _desk(tab)
    countdown = page.locator("[data-countdown-box]")
    expect(countdown).to_be_visible()
    expect(page.locator("[data-countdown-said]")).to_have_text(re.compile(r"^Calling in \d+ s"))
    start = _countdown_left(page)
    assert 18 <= start <= 20
    page.clock.run_for(5000)
    assert start - 6 <= _countdown_left(page) <= start - 5

    # Escape pauses it: time passes, nothing dials; the button resumes it.
    page.keyboard.press("Escape")
    pause = page.locator("[data-countdown-pause]")
    expect(pause).to_have_text("Resume the countdown")
    expect(pause).to_have_attribute("aria-pressed", "true")
    page.clock.run_for(60_000)
    assert page.evaluate("window.dialled") is None
    pause.click()
    expect(pause).to_have_text("Pause the countdown")
    page.clock.run_for(16_000)

    # At zero it did what Call does: the server recorded the start, then the link dialled.
    expect(page.locator("[data-call]")).to_have_attribute("data-stage", "dialling")
    expect(countdown).to_be_hidden()
    assert page.evaluate("window.dialled") == [f"tel:{NUMBER}"]
    assert _attempt(seeded)[0] == NUMBER

    page.get_by_role("button", name="Busy", exact=True).click()
    expect(page.locator("[data-call-result]")).to_have_text("Busy")
    expect(page.get_by_label("Busy")).to_be_checked()
    expect(page.get_by_label("Spoke")).not_to_be_checked()
    page.get_by_role("button", name="Close (outcome from the codes)").click()
    expect(page.locator(".desk-idle")).to_be_visible()
    assert _attempt(seeded)[3:] == ("BUSY", "RESCHEDULE", [("Outcome", "Busy")])
    tab.assert_no_problems()


def test_the_countdown_waits_while_still_there_asks(tab: Tab, seeded, renewals):
    """Nobody may be at the desk while "Still there?" shows: the countdown pauses, and goes
    on once the agent keeps the task. The heartbeat's answer says the offer lapses soon."""
    _dial_settings(renewals, 60)
    page = _desk(tab)
    record_id = page.locator("article.desk-task").get_attribute("data-record-id")
    lapsing = {"state": "AVAILABLE", "task": record_id, "idleLapsesIn": 120,
               "offerLapsesIn": 20, "warnSeconds": 60}  # fmt: skip
    page.route("**/desk/heartbeat", lambda route: route.fulfill(json=lapsing))
    page.clock.run_for(31_000)  # a heartbeat (every 30 s) answers the offer lapses soon
    expect(page.get_by_role("alertdialog", name="Still there?")).to_be_visible()
    expect(page.locator("[data-countdown-pause]")).to_have_text("Resume the countdown")
    left = _countdown_left(page)
    page.clock.run_for(45_000)
    assert _countdown_left(page) == left and page.evaluate("window.dialled") is None

    page.unroute("**/desk/heartbeat")
    page.get_by_role("button", name="Keep it").click()
    expect(page.get_by_role("alertdialog", name="Still there?")).to_be_hidden()
    expect(page.locator("[data-countdown-pause]")).to_have_text("Pause the countdown")
    page.clock.run_for((left + 1) * 1000)
    expect(page.locator("[data-call]")).to_have_attribute("data-stage", "dialling")
    assert page.evaluate("window.dialled") == [f"tel:{NUMBER}"]
    tab.assert_no_problems()


def test_a_number_in_the_agent_view_is_called_the_same_way(tab: Tab, seeded):
    page = _desk(tab)
    page.locator(".agent-view .detail[data-key='Phone'] a.dial").click()
    expect(page.locator("[data-call]")).to_have_attribute("data-stage", "dialling")
    assert page.evaluate("window.dialled") == [f"tel:{NUMBER}"]  # after the server's yes
    assert _attempt(seeded)[0] == NUMBER
    tab.assert_no_problems()


def test_call_next_number_after_a_call_that_did_not_connect(tab: Tab, seeded, renewals):
    """A task with two numbers: Call dials the first; ended No answer, the desk offers Call
    next number, which dials the second (the script, no reload)."""
    other = "+14155550177"
    add_task(renewals, "c1", {"Name": "Carla Diaz", "Phone": NUMBER, "Mobile Phone": other})
    db.session.commit()
    page = _desk(tab)
    page.get_by_role("button", name=f"Call {NUMBER}").click()
    expect(page.locator("[data-call]")).to_have_attribute("data-stage", "dialling")
    page.get_by_role("button", name="No answer").click()
    expect(page.locator("[data-call]")).to_have_attribute("data-stage", "ended")
    next_call = page.get_by_role("button", name=f"Call next number {other}")
    expect(next_call).to_be_visible()
    next_call.click()
    expect(page.locator("[data-call]")).to_have_attribute("data-stage", "dialling")
    assert page.evaluate("window.dialled") == [f"tel:{NUMBER}", f"tel:{other}"]
    assert _attempt(seeded)[0] == other
    tab.assert_no_problems()


def test_a_call_the_server_refuses_dials_nothing(tab: Tab, seeded, renewals):
    # The desk's live channel has not told the page yet (a slow channel: its requests
    # hang), so the refusal is the server's own, at the moment of the call.
    tab.page.route(re.compile(r"/desk/live"), lambda route: None)
    page = _desk(tab)
    call = page.get_by_role("button", name=f"Call {NUMBER}")
    expect(call).to_be_visible()
    delete_task(renewals, Locator(record_id=seeded), actor=Actor.operator())
    db.session.commit()
    call.click()
    expect(page.locator("[data-call-message]")).to_contain_text("is not yours")
    expect(page.locator("[data-call]")).to_have_attribute("data-stage", "ready")
    assert page.evaluate("window.dialled") is None
    # Chromium logs the refusal's 409 answer; it is the one expected problem.
    tab.problems = [p for p in tab.problems if "status of 409" not in p]
    tab.assert_no_problems()


@pytest.mark.parametrize("width", [WIDE, PHONE_SIZE], ids=["1280", "390"])
def test_the_countdown_at_each_width_without_skip(tab: Tab, seeded, renewals, width):
    """A campaign that may not be skipped: no Skip. Call now from the keyboard; at a
    phone's width nothing scrolls sideways. The README's screenshots."""
    _dial_settings(renewals, 30, can_skip=False)
    page = _desk(tab)
    page.set_viewport_size(width)
    page.clock.run_for(8000)
    expect(page.locator("[data-countdown-box]")).to_be_visible()
    expect(page.get_by_role("button", name=re.compile("^Skip"))).to_have_count(0)
    copy_to_readme(tab.shot(f"desk-countdown-{width['width']}"),
                   f"desk-countdown-{width['width']}.png")  # fmt: skip
    assert tab.page_width()[0] <= width["width"]

    call_now = page.get_by_role("button", name=f"Call now {NUMBER}")
    press_tab_until_focused(page, call_now, limit=60)
    page.keyboard.press("Enter")
    expect(page.locator("[data-call]")).to_have_attribute("data-stage", "dialling")
    assert page.evaluate("window.dialled") == [f"tel:{NUMBER}"]
    assert tab.page_width()[0] <= width["width"]  # the result buttons too
    tab.assert_no_problems()


# ---- The Contact Control Panel ----

# Runs when the vendored bundle has run and before the desk's script does: a deferred
# script's `load` event fires right after it executes.
CCP_CORE = """
document.addEventListener("load", (event) => {
  const src = event.target && event.target.src;
  if (!src || !src.includes("amazon-connect-streams")) return;
  const lib = window.connect;
  const bus = new lib.EventBus();
  const provider = new lib.core.AgentDataProvider(bus);
  const upstream = { sendUpstream() {}, onUpstream() {}, onDownstream() {} };
  const note = (entry) => {
    const calls = JSON.parse(sessionStorage.getItem("ccpCalls") || "[]");
    sessionStorage.setItem("ccpCalls", JSON.stringify(calls.concat([entry])));
  };
  lib.core.getEventBus = () => bus;
  lib.core.getUpstream = () => upstream;
  lib.core.getAgentDataProvider = () => provider;
  lib.core.client = {
    call(method, params, callbacks) {
      note({ method, params: JSON.parse(JSON.stringify(params)) });
      if (method === lib.ClientMethods.PUT_AGENT_STATE) callbacks.success({});
    },
  };
  lib.core.getClient = () => lib.core.client;
  lib.core.initCCP = (holder, params) => note({ method: "initCCP", params });
  window.ccpUpdate = (state, contacts) => bus.trigger(lib.AgentEvents.UPDATE, {
    configuration: {
      name: "Ann", username: "ann",
      agentStates: [
        { name: "Available", type: "routable", agentStateARN: "arn:state/available" },
        { name: "Break", type: "not_routable", agentStateARN: "arn:state/break" },
        { name: "Offline", type: "offline", agentStateARN: "arn:state/offline" },
      ],
      routingProfile: { defaultOutboundQueue: { queueARN: "arn:queue/default" } },
    },
    snapshot: { state, contacts: contacts || [], nextState: null },
  });
}, true);
"""
AVAILABLE = {"name": "Available", "type": "routable"}


def _ccp_calls(page: Page, method: str) -> list[dict]:
    calls = json.loads(page.evaluate("sessionStorage.getItem('ccpCalls') || '[]'"))
    return [call["params"] for call in calls if call["method"] == method]


def _wait_for_ccp_core(page: Page) -> None:
    """Until this view's bundle has loaded (an earlier view's initCCP is in sessionStorage
    already). Real time, bounded: the page's own timers run on the controlled clock."""
    deadline = time.monotonic() + 10
    while not _ccp_core_loaded(page):
        assert time.monotonic() < deadline, "the streams bundle never loaded"
        time.sleep(0.02)


def _ccp_core_loaded(page: Page) -> bool:
    try:
        return page.evaluate("typeof window.ccpUpdate === 'function'")
    except PlaywrightError:  # the view is being replaced (a reload): not yet
        return False


def _contact(state: str) -> list[dict]:
    return [{"contactId": "contact-1", "state": {"type": state}, "connections": []}]


@pytest.fixture
def ccp_desk(tab: Tab, seeded, acme, renewals) -> Page:
    acme.instance_kind = InstanceKind.AMAZON_CONNECT
    acme.connect_ccp_url = CCP_URL
    renewals.connect_queue_arn = QUEUE_ARN
    db.session.commit()
    tab.page.add_init_script(CCP_CORE)
    page = _desk(tab)
    _wait_for_ccp_core(page)
    # Every view of the desk embeds the CCP (the state switch reloads the page).
    assert _ccp_calls(page, "initCCP")[-1] == {
        "ccpUrl": CCP_URL, "loginPopup": True, "loginPopupAutoClose": True,
        "softphone": {"allowFramedSoftphone": True},
    }  # fmt: skip
    page.evaluate("s => ccpUpdate(s)", AVAILABLE)
    return page


def test_the_ccp_dials_the_number_on_the_queue_and_records_the_contact(tab: Tab, ccp_desk, seeded):
    page = ccp_desk
    page.get_by_role("button", name=f"Call {NUMBER}").click()
    expect(page.locator("[data-call]")).to_have_attribute("data-stage", "dialling")
    dials = _ccp_calls(page, "createOutboundContact")
    assert len(dials) == 1
    assert (dials[0]["endpoint"]["phoneNumber"], dials[0]["queueARN"]) == (NUMBER, QUEUE_ARN)
    assert page.evaluate("window.dialled") is None  # no tel: link with the CCP

    connecting = {"name": "CallingCustomer", "type": "system"}
    page.evaluate("([s, c]) => ccpUpdate(s, c)", [connecting, _contact("connecting")])
    page.evaluate("([s, c]) => ccpUpdate(s, c)", [{"name": "Busy", "type": "system"},
                                                   _contact("connected")])  # fmt: skip
    # Closing now would reload the desk and end the framed softphone's call: it waits.
    page.get_by_role("button", name="Close (outcome from the codes)").click()
    expect(page.locator("[data-call-message]")).to_contain_text("End the call in the Contact")
    expect(page.locator("[data-call]")).to_have_attribute("data-stage", "dialling")
    page.evaluate("([s, c]) => ccpUpdate(s, c)", [{"name": "AfterCallWork", "type": "system"},
                                                   _contact("ended")])  # fmt: skip
    expect(page.locator("[data-call-result]")).to_have_text("Answered")
    assert _attempt(seeded)[1:4] == ("contact-1", True, "ANSWERED")
    page.get_by_label("Spoke").check()
    page.get_by_role("button", name="Close (outcome from the codes)").click()  # ended: it may
    expect(page.locator(".desk-idle")).to_be_visible()
    tab.assert_no_problems()


@pytest.mark.parametrize(
    ("error_state", "result", "said"),
    [("LineEngagedCustomer", "BUSY", "Busy"), ("BadAddressCustomer", "INVALID_NUMBER",
                                                "Wrong number")],
)  # fmt: skip
def test_an_agent_error_state_ends_the_call_with_its_result(
    tab: Tab, ccp_desk, seeded, error_state, result, said
):
    page = ccp_desk
    page.get_by_role("button", name=f"Call {NUMBER}").click()
    expect(page.locator("[data-call]")).to_have_attribute("data-stage", "dialling")
    page.evaluate("s => ccpUpdate(s)", {"name": error_state, "type": "error"})
    expect(page.locator("[data-call-result]")).to_have_text(said)
    assert _attempt(seeded)[3] == result
    tab.assert_no_problems()


def test_a_dial_the_ccp_never_answers_fails_after_its_timeout(tab: Tab, ccp_desk, seeded):
    page = ccp_desk
    page.get_by_role("button", name=f"Call {NUMBER}").click()
    expect(page.locator("[data-call]")).to_have_attribute("data-stage", "dialling")
    page.clock.run_for(31_000)
    expect(page.locator("[data-call-result]")).to_have_text("Failed")
    assert _attempt(seeded)[3] == "FAILED"


def test_the_desk_state_follows_the_ccp_and_the_other_way_round(tab: Tab, ccp_desk):
    page = ccp_desk
    page.evaluate("s => ccpUpdate(s)", {"name": "Break", "type": "not_routable"})
    expect(page.locator("[data-state]")).to_have_text("AWAY")
    _wait_for_ccp_core(page)  # the state switch reloaded the desk
    page.evaluate("s => ccpUpdate(s)", {"name": "Break", "type": "not_routable"})
    page.get_by_role("group", name="Your state").get_by_role("button", name="Available").click()
    expect(page.locator("[data-state]")).to_have_text("AVAILABLE")
    assert _ccp_calls(page, "putAgentState")[-1]["state"]["name"] == "Available"


# ---- The demo's progressive campaign, end to end ----


def test_a_demo_agent_works_the_progressive_campaign_end_to_end(tab: Tab, desk):  # noqa: F811
    """Jane, given the demo's Outbound queue alone: an Upgrade Calls task counts down from
    20 s, dials by itself, the agent says Busy, the code Busy is ticked, Close reschedules."""
    jane = db.session.scalar(select(User).filter_by(login_user_id=demo.JANE.login))
    agents.set_agent_queues(jane, ["Outbound"], actor=SETUP)
    db.session.commit()
    page = tab.page
    page.set_viewport_size(WIDE)
    page.add_init_script(TEL_SPY)
    page.clock.install()
    sign_in(tab, desk, demo.JANE)
    state_button(page, "Available").click()
    record_id = offered(page)
    expect(page.locator(".task-context")).to_contain_text("Upgrade Calls")
    expect(page.locator("[data-countdown-box]")).to_be_visible()
    page.clock.run_for((demo.PROGRESSIVE_SECONDS + 1) * 1000)
    expect(page.locator("[data-call]")).to_have_attribute("data-stage", "dialling")
    number = page.evaluate("window.dialled")[0].removeprefix("tel:")
    page.get_by_role("button", name="Busy", exact=True).click()
    expect(page.locator("[data-call-result]")).to_have_text("Busy")
    expect(page.get_by_role("radio", name=re.compile(r"^Busy"))).to_be_checked()
    page.get_by_role("button", name="Close (outcome from the codes)").click()
    expect(page.locator("article.desk-task")).not_to_have_attribute("data-record-id", record_id)
    assert _attempt(record_id)[0] == number
    assert _attempt(record_id)[3:] == ("BUSY", "RESCHEDULE", [("Call result", "Busy")])
    tab.assert_no_problems()
