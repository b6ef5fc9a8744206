"""The live parts by stream in Chromium against a real gunicorn: a change shows within the 2
seconds promised; a form of the Agents board sent by the stream carries the page's CSRF
token and works; the page goes on showing changes after either worker of a 2-worker server
is killed (its stream moves to the other, or to the worker started in its place); with the
server's streams all taken (503), or this sign-in's (429), the page says so and polls instead;
signed out in another tab, the page says so within 2 seconds and stops; a stream failing
on the server's side (the database gone) is not said to be refused."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from app.extensions import db
from app.models import Campaign, User
from app.services.actors import Actor
from app.services.delivery import agent_state
from tests.browser import test_wallboard as wall
from tests.browser.conftest import REPORT_CSP_VIOLATIONS, Tab
from tests.delivery.delivery_support import add
from tests.servers import gunicorn

pytestmark = pytest.mark.server

seed = wall.seed  # Acme's floor: three agents, ann holding a Renewals task, two deliverable
WITHIN_MS = wall.WITHIN_MS
# A stream cut: the browser connects again after the server's retry hint (2 s), to a worker
# that may be starting; the figures then come at once.
AFTER_A_KILL_MS = 10_000


def processes_serving(port: int) -> tuple[int, list[int]]:
    """The gunicorn master bound to `port`, and its workers (from /proc)."""
    bound = f"127.0.0.1:{port}".encode()
    parents = {}
    for folder in Path("/proc").glob("[0-9]*"):
        try:
            if bound in (folder / "cmdline").read_bytes():
                stat = (folder / "stat").read_text().rsplit(")", 1)[1].split()
                parents[int(folder.name)] = int(stat[1])
        except (OSError, ValueError):
            continue
    master = next(pid for pid, parent in parents.items() if parent not in parents)
    return master, sorted(pid for pid, parent in parents.items() if parent == master)


def add_task(seed, client_id: str) -> None:
    add(db.session.get(Campaign, seed.campaign_id), client_id)
    db.session.rollback()  # hold no transaction: the server's writes would wait on it


def new_tab(browser, base_url: str) -> Tab:
    context = browser.new_context(viewport=wall.WALL, locale="en-GB", timezone_id="UTC")
    context.set_default_timeout(10_000)
    context.add_init_script(REPORT_CSP_VIOLATIONS)
    return Tab(context.new_page(), base_url)


def test_the_wallboard_follows_its_stream_and_a_change_shows_within_2_seconds(tab: Tab, seed):
    page = tab.page
    wall.sign_in(tab, f"/tenants/{seed.tenant_id}/wallboard")
    panel = page.locator(".wallboard")
    expect(panel).to_have_attribute("data-live-mode", "stream")
    expect(wall.deliverable(page, "Sales")).to_have_text("2")
    add_task(seed, "R-1004")
    expect(wall.deliverable(page, "Sales")).to_have_text("3", timeout=WITHIN_MS)
    expect(panel).to_have_attribute("data-live-mode", "stream")
    page.set_viewport_size(wall.PHONE)
    assert tab.page_width() == [wall.PHONE["width"], wall.PHONE["width"]]
    tab.assert_no_problems()


def test_a_release_form_sent_by_the_stream_carries_the_pages_csrf_token(tab: Tab, seed):
    page = tab.page
    wall.sign_in(tab, f"/tenants/{seed.tenant_id}/agents")
    expect(page.locator("[data-live-stream]")).to_have_attribute("data-live-mode", "stream")
    cat = db.session.scalars(select(User).filter_by(login_user_id="cat.moss")).one()
    agent_state.set_agent_state(cat, "AWAY", actor=Actor.agent("cat.moss"))
    db.session.commit()
    row = page.locator("table.agents tr", has_text="cat.moss")
    expect(row).to_contain_text("AWAY", timeout=WITHIN_MS)  # the board came by the stream
    token = page.locator("table.agents input[name=csrf_token]").first
    assert token.input_value()
    page.get_by_role("button", name="Release task R-1001 from ann.lee").click()
    expect(page.get_by_text("released from ann.lee")).to_be_visible()
    tab.assert_no_problems()


def test_the_page_shows_changes_after_either_worker_is_killed(
    browser, database_uri, seed, tmp_path
):
    """SIGKILL one worker, then the other (one of them holds the page's stream): after
    each, a change made shows on the page, never reloaded."""
    with gunicorn(database_uri, tmp_path / "killed.log", 2, wall.SECRET) as server:
        tab = new_tab(browser, server.url)
        try:
            wall.sign_in(tab, f"/tenants/{seed.tenant_id}/wallboard")
            expect(tab.page.locator(".wallboard")).to_have_attribute("data-live-mode", "stream")
            expect(wall.deliverable(tab.page, "Sales")).to_have_text("2")
            _master, workers = processes_serving(int(server.url.rsplit(":", 1)[1]))
            assert len(workers) == 2
            for count, worker in enumerate(workers, start=3):
                os.kill(worker, signal.SIGKILL)
                add_task(seed, f"R-20{count}")
                expect(wall.deliverable(tab.page, "Sales")).to_have_text(
                    str(count), timeout=AFTER_A_KILL_MS
                )
            # Still by stream: it connected again, it did not fall back to polling.
            expect(tab.page.locator(".wallboard")).to_have_attribute("data-live-mode", "stream")
        finally:
            tab.page.context.close()


def live_notice(page):
    return page.locator(".wallboard [data-live-notice]")


def test_with_the_streams_all_taken_the_page_polls(browser, database_uri, seed, tmp_path):
    env = {"LIVE_STREAMS_MAX": "0"}  # every stream is answered 503
    with gunicorn(database_uri, tmp_path / "full.log", 1, wall.SECRET, env=env) as server:
        tab = new_tab(browser, server.url)
        try:
            wall.sign_in(tab, f"/tenants/{seed.tenant_id}/wallboard")
            panel = tab.page.locator(".wallboard")
            expect(panel).to_have_attribute("data-live-mode", "poll")
            expect(live_notice(tab.page)).to_have_text(
                "Live updates are paused: this server's live streams are all taken. "
                "This page refreshes every second instead."
            )
            add_task(seed, "R-1004")
            expect(wall.deliverable(tab.page, "Sales")).to_have_text("3", timeout=WITHIN_MS)
            # The refused stream is an error on the console; nothing else is.
            assert all("503" in problem for problem in tab.problems), tab.problems
        finally:
            tab.page.context.close()


def test_past_this_sign_ins_streams_a_page_says_so_and_still_updates_by_polling(
    browser, one_stream_server, seed
):
    server = one_stream_server
    first = new_tab(browser, server.url)
    try:
        wall.sign_in(first, f"/tenants/{seed.tenant_id}/wallboard")
        expect(first.page.locator(".wallboard")).to_have_attribute("data-live-mode", "stream")
        second = Tab(first.page.context.new_page(), server.url)  # the same sign-in
        second.goto(f"/tenants/{seed.tenant_id}/wallboard")
        expect(second.page.locator(".wallboard")).to_have_attribute("data-live-mode", "poll")
        notice = live_notice(second.page)
        expect(notice).to_have_text(
            "Live updates are paused: too many pages with live updates are open in this "
            "sign-in (at most 1). This page refreshes every second instead."
        )
        expect(notice).to_have_attribute("role", "status")
        expect(live_notice(first.page)).to_be_hidden()
        add_task(seed, "R-1004")
        for tab in (first, second):
            expect(wall.deliverable(tab.page, "Sales")).to_have_text("3", timeout=WITHIN_MS)
        # The refused stream is an error on the console; nothing else is.
        assert all("429" in problem for problem in second.problems), second.problems
        first.assert_no_problems()
    finally:
        first.page.context.close()


def test_signed_out_in_another_tab_the_wallboard_says_so_within_2_seconds(tab: Tab, seed):
    page = tab.page
    wall.sign_in(tab, f"/tenants/{seed.tenant_id}/wallboard")
    panel = page.locator(".wallboard")
    expect(panel).to_have_attribute("data-live-mode", "stream")
    other = page.context.new_page()
    other.goto(tab.base_url + "/logout")
    other.get_by_role("button", name="Sign out").click()
    expect(live_notice(page)).to_have_text(
        "You are signed out: these figures are no longer updated. Sign in again to follow them.",
        timeout=WITHIN_MS,
    )
    expect(panel).to_have_attribute("data-live-mode", "ended")  # no stream, no poll
    tab.assert_no_problems()


def test_the_progress_panel_follows_its_stream(tab: Tab, seed):
    page = tab.page
    wall.sign_in(tab, f"/tenants/{seed.tenant_id}/campaigns/{seed.campaign_id}")
    panel = page.locator("section.progress")
    expect(panel).to_have_attribute("data-live-mode", "stream")
    total = panel.locator(".progress-total")
    expect(total).to_have_text("4")  # the seed's three, and the one held for cat.moss
    add_task(seed, "R-1004")
    expect(total).to_have_text("5", timeout=WITHIN_MS)
    tab.assert_no_problems()


def test_a_stream_failing_on_the_servers_side_is_not_said_to_be_refused(tab: Tab, seed):
    """The database gone: the stream's address answers the app's own 500 (JSON too, when
    asked why); that is no refusal, and the page says none while it polls."""
    page, failed = tab.page, '{"status": 500, "message": "Something went wrong on our side."}'
    page.route(
        "**/wallboard/stream*",
        lambda route: route.fulfill(status=500, body=failed, content_type="application/json"),
    )
    with page.expect_response(
        lambda answer: (
            "/wallboard/stream" in answer.url
            and answer.request.headers.get("accept") == "application/json"
        )
    ):
        wall.sign_in(tab, f"/tenants/{seed.tenant_id}/wallboard")
    expect(page.locator(".wallboard")).to_have_attribute("data-live-mode", "poll")
    page.evaluate("() => new Promise((done) => setTimeout(done, 100))")  # its answer read
    expect(live_notice(page)).to_have_count(0)
