"""A supervisor signs in, searches a campaign, edits a task and sees its agent view change,
in headless Chromium against a real gunicorn; every page is screenshotted and checked
for console errors and Content-Security-Policy violations."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest
from playwright.sync_api import Locator, Page, Route, expect

from app.extensions import db
from app.services.campaigns import catalogue as campaigns
from app.services.people import supervisors
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from app.wire.times import sent_time, to_epoch_ms
from tests.browser.conftest import Tab, copy_to_readme
from tests.conftest import SETUP, make_tenant

pytestmark = pytest.mark.server

EMAIL = "lead@acme.example"
PASSWORD = "correct horse battery staple"
CRM = "https://crm.example.com/accounts/"
SCRIPT = "https://wiki.example.com/scripts/renewal"
# clientId, Name, Plan, Balance, preferred agent
PEOPLE = (
    ("R-1001", "Ada Lovelace", "Gold", "1250.00", None),
    ("R-1002", "Grace Hopper", "Silver", "310.75", "agent.smith"),
    ("R-1003", "Alan Turing", "Gold", "88.20", None),
    ("R-1004", "Barbara Liskov", "Bronze", "0.00", None),
    ("R-1005", "Edsger Dijkstra", "Gold", "4021.10", "agent.jones"),
    ("R-1006", "Frances Allen", "Silver", "742.00", None),
)
GOLD = ["R-1001", "R-1003", "R-1005"]
EDITED = "R-1001"
# The agent's details of the edited task, in display order: ordered items first, then the
# unordered ones (the clientId item "Id") in their stored order. Name is the banner;
# Highlight, Hidden and the hidden Internal Score never show.
DETAILS = ["Mobile Phone", "Plan", "Balance", "Account_link", "Renewal script_button", "Id"]


@dataclass(frozen=True)
class Seed:
    tenant_id: int
    campaign_id: int
    record_ids: dict[str, str]


def _items(number: int, name: str, plan: str, balance: str) -> list[ItemInput]:
    return [
        ItemInput("Name", name),
        ItemInput("Mobile Phone", f"+1415555{number:04d}", 1),
        ItemInput("Plan", plan, 2),
        ItemInput("Balance", balance, 3),
        ItemInput("Account_link", f"{CRM}{number}", 4),
        ItemInput("Renewal script_button", SCRIPT, 5),
        ItemInput("Highlight", "Plan|Balance"),
        ItemInput("Hidden", "Internal Score"),
        ItemInput("Internal Score", "87"),
    ]


@pytest.fixture
def seed(app) -> Seed:
    """A supervisor, tenant Acme/prod and six tasks in its campaign Renewals, committed."""
    supervisors.create_supervisor(EMAIL, PASSWORD, actor=SETUP)
    tenant, _key = make_tenant()
    renewals = campaigns.get_campaign(tenant, "Renewals")
    next_time = to_epoch_ms(datetime(2030, 3, 4, 14, 30, tzinfo=UTC))
    record_ids = {}
    for client_id, name, plan, balance, agent in PEOPLE:
        task, _ = add_or_update_task(
            renewals,
            client_id,
            _items(int(client_id[2:]), name, plan, balance),
            preferred_agent=agent,
            next_earliest=sent_time(next_time, "nextEarliestWorkTimeUTC") if agent else None,
            actor=SETUP,
        )
        record_ids[client_id] = task.record_id
    db.session.commit()
    seeded = Seed(tenant.id, renewals.id, record_ids)
    # Reading the ids began a transaction; on SQLite it holds the write lock the server needs.
    db.session.rollback()
    return seeded


def _client_ids(page: Page) -> list[str]:
    return page.locator("table.tasks tbody tr td:first-child").all_inner_texts()


def _detail(view: Locator, key: str) -> Locator:
    return view.locator(f".detail[data-key='{key}']")


def _check_agent_view(view: Locator, plan: str, extra: tuple[str, str] | None = None) -> None:
    """The rendering rules of the agent view, as the browser shows them."""
    expect(view.locator(".agent-banner")).to_have_text("Ada Lovelace")
    keys = DETAILS + ([extra[0]] if extra else [])
    expect(view.locator(".detail")).to_have_count(len(keys))
    assert [d.get_attribute("data-key") for d in view.locator(".detail").all()] == keys

    dial = _detail(view, "Mobile Phone").get_by_role("link")
    expect(dial).to_have_attribute("href", "tel:+14155551001")
    expect(dial).to_have_text("+14155551001")
    expect(dial.get_by_role("img", name="Call")).to_be_visible()

    link = _detail(view, "Account_link").get_by_role("link", name="Account", exact=True)
    button = _detail(view, "Renewal script_button").get_by_role("button", name="Renewal script")
    for opener, href in ((link, f"{CRM}1001"), (button, SCRIPT)):
        expect(opener).to_have_attribute("href", href)
        expect(opener).to_have_attribute("target", "_blank")
        expect(opener).to_have_attribute("rel", "noopener noreferrer")

    for key in ("Plan", "Balance"):
        expect(_detail(view, key)).to_have_class(re.compile(r"\bhighlighted\b"))
    for key in ("Mobile Phone", "Account_link", "Id"):
        expect(_detail(view, key)).not_to_have_class(re.compile(r"\bhighlighted\b"))
    expect(_detail(view, "Plan").locator("dd")).to_have_text(plan)

    for absent in ("Internal Score", "Hidden", "Highlight", "Name"):
        expect(_detail(view, absent)).to_have_count(0)
    expect(view).not_to_contain_text("Internal Score")
    if extra:
        expect(_detail(view, extra[0]).locator("dd")).to_have_text(extra[1])


def _search(tab: Tab, key: str, condition: str, value: str) -> None:
    form = tab.page.get_by_role("form", name="Search tasks")
    form.get_by_label("Key 1", exact=True).fill(key)
    form.get_by_label("Condition 1", exact=True).select_option(condition)
    form.get_by_label("Value 1", exact=True).fill(value)
    form.get_by_role("button", name="Search").click()


def test_supervisor_searches_edits_a_task_and_sees_the_agent_view_change(tab: Tab, seed: Seed):
    page = tab.page

    # Sign in: any page sends a stranger to the sign-in form, which then leads back.
    tab.goto("/")
    expect(page).to_have_url(re.compile(r"/login\?next="))
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    tab.shot("01-sign-in")
    page.locator("#email").fill(EMAIL)
    page.locator("#password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()

    # Tenants, then the tenant's campaigns with their task counts.
    expect(page.get_by_role("heading", name="Tenants")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/tenants$"))
    tab.shot("02-tenants")
    page.get_by_role("link", name="Acme", exact=True).click()
    expect(page.get_by_role("heading", name="Campaigns", exact=True)).to_be_visible()
    renewals = page.locator("table.campaigns tbody tr", has_text="Renewals")
    expect(renewals.locator("td[data-state='NOTWORKED']")).to_have_text("6")
    tab.shot("03-campaigns")

    # The campaign: every task, then only those matching Plan EQUALS Gold.
    page.get_by_role("link", name="Renewals", exact=True).click()
    expect(page.get_by_role("heading", name="Renewals", level=1)).to_be_visible()
    expect(page.locator("p.count")).to_have_text("6 tasks")
    _search(tab, "Plan", "EQUALS", "Gold")
    expect(page).to_have_url(re.compile(r"[?&]k=Plan&c=EQUALS&v=Gold\b"))
    expect(page.locator("p.count")).to_have_text("3 tasks")
    expect(page.locator("table.tasks tbody tr")).to_have_count(len(GOLD))
    assert sorted(_client_ids(page)) == GOLD
    expect(page.locator("table.tasks")).not_to_contain_text("Grace Hopper")
    copy_to_readme(tab.shot("04-campaign-search"), "campaign.png")

    # The task: its URL holds its previewRecordID; the agent view applies the special keys.
    page.get_by_role("link", name=EDITED, exact=True).click()
    expect(page.get_by_role("heading", name=f"Task {EDITED}")).to_be_visible()
    expect(page).to_have_url(
        re.compile(f"/tenants/{seed.tenant_id}/tasks/{seed.record_ids[EDITED]}$")
    )
    view = page.locator(".agent-view")
    _check_agent_view(view, "Gold")
    tab.shot("05-task")

    # "Add a row" (JavaScript, shown only when the script runs) appends an empty row.
    items = page.locator("#items")
    rows = items.locator("table.item-rows tbody tr")
    count = rows.count()
    add_row = items.get_by_role("button", name="Add a row")
    expect(add_row).to_be_visible()
    add_row.click()
    expect(rows).to_have_count(count + 1)
    new = rows.last
    for part in ("key", "value", "display_order"):
        expect(new.locator(f"input[name='data-items-{count}-{part}']")).to_have_value("")
    expect(new.locator(f"input[name='data-items-{count}-remove']")).not_to_be_checked()
    expect(new.locator(f"input[name='data-items-{count}-key']")).to_be_focused()

    # Edit Plan's value, fill the new row, save: the agent view changes.
    plan_row = rows.filter(has=page.locator("input[name$='-key'][value='Plan']"))
    expect(plan_row).to_have_count(1)
    plan_row.locator("input[name$='-value']").fill("Platinum")
    new.locator(f"input[name='data-items-{count}-key']").fill("Best time")
    new.locator(f"input[name='data-items-{count}-value']").fill("after 17:00")
    items.get_by_role("button", name="Save data items").click()
    expect(page.get_by_role("status").filter(has_text="Data items saved.")).to_be_visible()
    _check_agent_view(view, "Platinum", extra=("Best time", "after 17:00"))
    expect(view).not_to_contain_text("Gold")
    tab.shot("06-task-saved")

    # The agent view on its own page shows the same.
    page.get_by_role("link", name="Open the agent view on its own").click()
    expect(page).to_have_url(re.compile(r"/agent$"))
    _check_agent_view(page.locator(".agent-view"), "Platinum", extra=("Best time", "after 17:00"))
    copy_to_readme(tab.shot("07-agent-view"), "agent-view.png")

    # The search sees the edit too.
    page.get_by_role("link", name="Renewals", exact=True).click()
    _search(tab, "Plan", "EQUALS", "Gold")
    expect(page.locator("p.count")).to_have_text("2 tasks")
    assert sorted(_client_ids(page)) == ["R-1003", "R-1005"]
    tab.assert_no_problems()


def test_link_opens_a_new_window_without_opener_or_referrer(tab: Tab, seed: Seed):
    """The `_link` of the agent view opens in a new window that cannot reach its opener
    and is sent no Referer (the CRM is stubbed: the test never leaves 127.0.0.1)."""
    page = tab.page
    referers: list[str | None] = []

    def crm(route: Route) -> None:
        referers.append(route.request.headers.get("referer"))
        route.fulfill(status=200, content_type="text/html", body="<title>CRM</title>CRM")

    page.context.route(f"{CRM}**", crm)
    tab.goto(f"/tenants/{seed.tenant_id}/tasks/{seed.record_ids[EDITED]}/agent")
    page.locator("#email").fill(EMAIL)
    page.locator("#password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/agent$"))  # `next` led back here

    with page.context.expect_page() as opened:
        page.locator(".agent-view").get_by_role("link", name="Account", exact=True).click()
    popup = opened.value
    popup.wait_for_load_state()
    assert popup.url == f"{CRM}1001"
    assert popup.evaluate("() => window.opener") is None
    assert referers == [None]
    popup.close()
    tab.assert_no_problems()


def test_the_policy_blocks_inline_script_and_the_watch_reports_it(tab: Tab, live_server):
    """The check behind every page is not vacuous: an inline script is refused by the
    Content-Security-Policy, and the refusal reaches the problems the tests assert on."""
    page = tab.page
    response = tab.goto("/login")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    with page.expect_console_message(lambda m: "Content Security Policy" in m.text):
        page.evaluate(
            """() => {
                const script = document.createElement("script");
                script.textContent = "window.inlineRan = true";
                document.body.append(script);
            }"""
        )
    assert page.evaluate("() => window.inlineRan") is None
    assert any("Content Security Policy" in problem for problem in tab.problems)
