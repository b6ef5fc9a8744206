"""The live wallboard: its figures on small data (agents by state with their tasks, each
queue's open tasks by the Progress panel's rules, attempts and contacts in the last 15
minutes and today), its live answer (304 while nothing changed, the new figures after a
change or when the clock moves the window), and who may see it."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from app.admin import wallboard as wallboard_door
from app.extensions import db
from app.models import Campaign, User
from app.models.attempts import Attempt
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.campaigns import life_cycle
from app.services.delivery import agent_state, progress
from app.services.reports import live
from app.wire.times import sent_time
from tests.admin.conftest import make_supervisor, page, session_for, soup
from tests.admin.test_security import assert_no_inline_script_or_style, assert_strict_csp
from tests.conftest import SETUP, make_tenant
from tests.delivery.delivery_support import add, available, make_agent, ms, offer

NOON = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
MIN = timedelta(minutes=1)


def attempt(campaign: Campaign, at: datetime, contact: bool = False) -> None:
    db.session.add(
        Attempt(
            campaign_id=campaign.id,
            agent_id=0,
            agent_login="someone",
            delivered_at=at,
            contact=contact,
        )
    )
    db.session.commit()


def figures(html) -> dict[str, str]:
    return {dd["data-figure"]: dd.get_text(strip=True) for dd in html.select("dd[data-figure]")}


def campaign_rows(html) -> dict[str, dict[str, str]]:
    return {
        tr["data-campaign"]: {td["data-count"]: td.get_text(strip=True) for td in tr("td")[1:]}
        for tr in html.select("tr[data-campaign]")
    }


def queues(html) -> dict[str, dict[str, str]]:
    return {
        tr["data-queue"]: {td["data-count"]: td.get_text(strip=True) for td in tr("td")[1:]}
        for tr in html.select("tr[data-queue]")
    }


def agents(html) -> dict[str, list[str]]:
    return {
        tr["data-agent"]: [td.get_text(" ", strip=True) for td in tr("td")[1:]]
        for tr in html.select("tr[data-agent]")
    }


@pytest.fixture(autouse=True)
def _no_token_kept(app):
    """Each poll reads the tenant's token afresh (served, a process keeps it half a second)."""
    app.config["LIVE_TOKEN_SECONDS"] = 0


@pytest.fixture
def floor(acme, renewals, winback):
    """ann AVAILABLE holding a Renewals task, bob AWAY, cid never signed in; Renewals (Sales)
    has one more deliverable task and one waiting, Winback (Support) one deliverable."""
    now = utcnow()
    add(renewals, "held-by-ann")
    ann = make_agent(acme, "ann")
    available(ann, now)
    assert offer(ann, now).task.client_id == "held-by-ann"
    add(renewals, "ready")
    later = sent_time(ms(now + timedelta(hours=2)), "nextEarliestWorkTimeUTC")
    add(renewals, "later", next_earliest=later)
    add(winback, "wb-ready")
    bob = make_agent(acme, "bob", ("Support",))
    agent_state.set_agent_state(bob, "AWAY", actor=Actor.agent("bob"), now=now)
    db.session.commit()
    make_agent(acme, "cid")
    return now


@pytest.mark.parametrize(
    ("ago", "contact", "in_window"),
    [
        (timedelta(0), True, True),  # made now
        (14 * MIN, False, True),
        (15 * MIN, True, True),  # the window's first moment
        (15 * MIN + timedelta(seconds=1), True, False),
        (3 * 60 * MIN, False, False),
    ],
)
def test_the_15_minute_window_counts_attempts_and_contacts(acme, renewals, ago, contact, in_window):
    attempt(renewals, NOON - ago, contact)
    board = live.wallboard(acme, NOON)
    assert board.last_15_minutes == live.Activity(int(in_window), int(in_window and contact))
    assert board.today == live.Activity(1, int(contact))


def test_today_is_the_utc_day_and_other_tenants_attempts_are_not_counted(acme, renewals):
    attempt(renewals, NOON.replace(hour=0), contact=True)
    attempt(renewals, NOON.replace(hour=0) - timedelta(seconds=1), contact=True)  # yesterday
    other, _ = make_tenant("Other")
    attempt(db.session.query(Campaign).filter_by(tenant_id=other.id).first(), NOON, contact=True)
    assert live.wallboard(acme, NOON).today == live.Activity(1, 1)


def test_the_board_counts_agents_by_state_and_queues_as_the_progress_panel_does(
    acme, renewals, winback, floor
):
    board = live.wallboard(acme, floor)
    assert board.by_state == {"AVAILABLE": 1, "AWAY": 1, "OFFLINE": 1}
    by_login = {row.agent.login_user_id: row for row in board.agents}
    assert by_login["ann"].task.client_id == "held-by-ann"
    assert by_login["bob"].task is None
    assert {q.name: (q.deliverable, q.waiting, q.in_work) for q in board.queues} == {
        "Sales": (1, 1, 1),
        "Support": (1, 0, 0),
    }
    # One rule: the queues' sums are the campaigns' Progress panel counts.
    panels = [progress.campaign_progress(c, floor) for c in (renewals, winback)]
    assert sum(q.deliverable for q in board.queues) == sum(p.deliverable for p in panels)
    assert sum(q.waiting for q in board.queues) == sum(p.waiting for p in panels)
    assert sum(q.in_work for q in board.queues) == sum(p.in_work for p in panels)


def test_the_page_shows_the_figures_in_large_type_with_its_live_script(
    app, signed_in, acme, renewals, floor, clock
):
    attempt(renewals, floor - MIN, contact=True)
    response = signed_in.get(f"/tenants/{acme.id}/wallboard")
    assert response.status_code == 200
    assert_strict_csp(response)
    html = soup(response)
    assert_no_inline_script_or_style(html)
    shown = figures(html)
    assert shown["agents-available"] == "1" and shown["agents-away"] == "1"
    assert shown["agents-offline"] == "1"
    # ann's delivery of her task is an attempt too (no contact yet).
    assert shown["attempts-15"] == "2" and shown["contacts-15"] == "1"
    none = {"held": "0", "kept_back": "0"}
    assert queues(html) == {
        "Sales": {"deliverable": "1", "waiting": "1", "in_work": "1", **none},
        "Support": {"deliverable": "1", "waiting": "0", "in_work": "0", **none},
    }
    rows = agents(html)
    assert rows["ann"][0] == "AVAILABLE" and rows["ann"][2].startswith("held-by-ann")
    assert rows["bob"][:1] == ["AWAY"] and rows["bob"][2] == "—"
    assert list(rows) == ["ann", "bob", "cid"]  # AVAILABLE, then AWAY, then OFFLINE
    scripts = [script["src"] for script in html.find_all("script", src=True)]
    assert "/static/live.js" in scripts
    board = html.select_one("[data-live-url]")
    assert board["data-live-url"] == f"/tenants/{acme.id}/wallboard/live"
    assert board["data-live-stream"] == f"/tenants/{acme.id}/wallboard/stream"
    token = live.change_token(acme)  # the page's clock: no new minute in between
    assert board["data-live-etag"] == f'"{wallboard_door.etag_of(token, app.config["SECRET_KEY"])}"'


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock(monkeypatch, floor) -> Clock:
    """The live endpoint's clock, from the floor's moment on."""
    clock = Clock(floor)
    monkeypatch.setattr(wallboard_door, "utcnow", clock)
    monkeypatch.setattr(live, "utcnow", clock)
    return clock


def ask(client, url: str, etag: str | None = None):
    headers = {"If-None-Match": etag} if etag else {}
    response = client.get(url, headers=headers)
    body = response.get_data(as_text=True)
    response.close()
    return response, body


def test_the_live_answer_is_not_modified_until_something_changes(signed_in, acme, renewals, clock):
    url = f"/tenants/{acme.id}/wallboard/live"
    first, body = ask(signed_in, url)
    assert first.status_code == 200 and first.headers["Cache-Control"] == "no-store"
    etag = first.headers["ETag"]
    assert "<nav" not in body and 'data-queue="Sales"' in body

    again, body = ask(signed_in, url, etag)
    assert (again.status_code, body, again.headers["ETag"]) == (304, "", etag)

    add(renewals, "one-more")  # a change: the next poll has it
    changed, body = ask(signed_in, url, etag)
    assert changed.status_code == 200 and changed.headers["ETag"] != etag
    assert queues(soup(changed))["Sales"]["deliverable"] == "2"


def test_the_live_answer_moves_with_the_clock(signed_in, acme, renewals, clock):
    url = f"/tenants/{acme.id}/wallboard/live"
    attempt(renewals, clock.now - 10 * MIN, contact=True)
    first, _ = ask(signed_in, url)
    assert figures(soup(first))["contacts-15"] == "1"
    etag = first.headers["ETag"]
    clock.now += timedelta(seconds=59 - clock.now.second)  # the same minute: nothing new
    assert ask(signed_in, url, etag)[0].status_code == 304
    clock.now += 6 * MIN  # the attempt leaves the 15-minute window
    later, _ = ask(signed_in, url, etag)
    assert later.status_code == 200
    assert figures(soup(later))["contacts-15"] == "0"


@pytest.mark.parametrize("path", ["wallboard", "wallboard/live", "agents/live"])
def test_another_tenants_supervisor_gets_404(client, acme, path):
    other, _ = make_tenant("Other")
    session_for(client, make_supervisor("other@example.com", tenants=[other]))
    page(client, f"/tenants/{acme.id}/{path}", 404)


def test_the_agents_page_and_progress_panel_answer_304_while_nothing_changed(
    signed_in, acme, renewals, floor
):
    html = page(signed_in, f"/tenants/{acme.id}/agents")
    board = html.select_one("[data-live-url]")
    assert board["data-live-url"] == f"/tenants/{acme.id}/agents/live?page=1"
    etag = board["data-live-etag"]
    for url in (board["data-live-url"], f"/tenants/{acme.id}/campaigns/{renewals.id}/progress"):
        assert ask(signed_in, url, etag)[0].status_code == 304
    agent_state.set_agent_state(db.session.merge(make_agent(acme, "dee")), "AVAILABLE", actor=SETUP)
    db.session.commit()
    fresh, body = ask(signed_in, board["data-live-url"], etag)
    assert fresh.status_code == 200 and "dee" in body and '<nav aria-label="Main"' not in body


def test_an_unchanged_poll_is_answered_before_the_app_and_a_changed_one_checks_who_asks(
    client, signed_in, acme, renewals, floor
):
    url = f"/tenants/{acme.id}/wallboard/live"
    etag = ask(signed_in, url)[0].headers["ETag"]
    assert etag.strip('"') != live.change_token(acme)  # signed, not the token itself
    stranger = client.application.test_client()
    unchanged, body = ask(stranger, url, etag)
    assert (unchanged.status_code, body) == (304, "")
    assert ask(stranger, url, '"made-up"')[0].status_code == 302  # to the sign-in page
    add(renewals, "one-more")
    assert ask(stranger, url, etag)[0].status_code == 302


PANEL_COUNTS = ("deliverable", "waiting", "held", "in_work", "kept_back")


def test_each_campaigns_row_is_its_progress_panels_counts(
    signed_in, acme, renewals, winback, floor, clock
):
    """Tasks held for a preferred agent appeared nowhere on the wallboard; its campaign rows
    now count every open task as the campaign's Progress panel does, by the same function."""
    for n in range(3):
        add(renewals, f"for-bob-{n}", preferred_agent="bob")
    add(winback, "wb-paused")
    life_cycle.pause(winback, actor=SETUP)
    db.session.commit()
    board = live.wallboard(acme, floor)
    by_name = {row.campaign.name: row.progress for row in board.campaigns}
    for campaign in (renewals, winback):
        panel = progress.campaign_progress(campaign, floor)
        assert replace(by_name[campaign.name], kept_back_why=()) == replace(panel, kept_back_why=())
    assert (by_name["Renewals"].held, by_name["Winback"].kept_back) == (3, 2)
    # The two pages agree too: the wallboard's rows and each campaign's panel as shown.
    shown = campaign_rows(page(signed_in, f"/tenants/{acme.id}/wallboard"))
    for campaign in (renewals, winback):
        panel = page(signed_in, f"/tenants/{acme.id}/campaigns/{campaign.id}/progress")
        counts = {dd["data-count"]: dd.get_text(strip=True) for dd in panel.select("dd")}
        assert {k: shown[campaign.name][k] for k in PANEL_COUNTS} == {
            k: counts[k] for k in PANEL_COUNTS
        }
        assert shown[campaign.name]["open"] == str(int(counts["NOTWORKED"]) + int(counts["WORKED"]))
    assert shown["Renewals"]["held"] == "3" and shown["Winback"]["kept_back"] == "2"


def test_agents_show_by_name_with_their_e_mail_on_hover(signed_in, acme, floor, clock):
    ann = db.session.scalar(select(User).filter_by(tenant_id=acme.id, login_user_id="ann"))
    ann.first_name, ann.last_name, ann.primary_email = "Ann", "Lee", "ann.lee@example.com"
    db.session.commit()
    html = page(signed_in, f"/tenants/{acme.id}/wallboard")
    name = html.select_one("tr[data-agent='ann'] td span[title]")
    assert (name.get_text(strip=True), name["title"]) == ("Ann Lee", "ann.lee@example.com")
    cid = html.select_one("tr[data-agent='cid'] td span[title]")
    assert cid.get_text(strip=True) == "Cid Agent" and cid["title"]


# Attempts today, minutes before now, and what the Renewals row says then.
RATES = {
    "none yet": ([], "—"),
    "the first 10 minutes old": ([10, 5], "—"),
    "6 in the last 2 hours": ([120, 100, 80, 60, 30, 0], "13:20"),  # 3 an hour, 4 to go
    "one an hour since 4 hours": ([240, 180, 120, 60], "16:00"),  # 4 h for 4
    "two in 10 hours": ([600, 0], "Sat 11 Apr 08:00"),  # 0.2 an hour: 20 h for 4
}


@pytest.mark.parametrize(("minutes", "shown"), RATES.values(), ids=RATES)
def test_penetration_and_when_the_list_runs_out_at_the_days_rate(
    signed_in, acme, renewals, monkeypatch, minutes, shown
):
    now = datetime(2026, 4, 10, 12, 0, tzinfo=UTC)
    monkeypatch.setattr(wallboard_door, "utcnow", lambda: now)
    monkeypatch.setattr(live, "utcnow", lambda: now)
    tasks = [add(renewals, f"c{n}") for n in range(5)]
    tasks[0].worked_state = "COMPLETED"  # attempted, closed: 4 deliverable are left
    tasks[0].last_attempt_at = now - timedelta(days=1)
    attempt(renewals, now - timedelta(days=1))  # yesterday's: not today's rate
    for ago in minutes:
        attempt(renewals, now - ago * MIN)
    row = campaign_rows(page(signed_in, f"/tenants/{acme.id}/wallboard"))["Renewals"]
    assert (row["deliverable"], row["penetration"]) == ("4", "20.0%")
    assert row["runs_out"] == shown
