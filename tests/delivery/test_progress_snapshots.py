"""A large campaign's Progress counts come from a snapshot: the exact counts at the snapshot's
moment, shown until PROGRESS_SNAPSHOT_SECONDS old, then counted again by one process; a
campaign below PROGRESS_EXACT_TASKS is counted exactly at every request."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from typing import TypeVar

import pytest

from app.db.transactions import transaction_mode
from app.extensions import db
from app.models import ProgressSnapshot
from app.services.delivery import progress, progress_snapshots
from app.services.reports import live
from tests.delivery.delivery_support import HOLD, IDLE, OFFER_TIMEOUT, add, make_agent
from tests.delivery.test_progress import S, mixed_campaign, set_state

T = TypeVar("T")
FRESH = 30  # seconds a snapshot is shown


@pytest.fixture
def settings(settings):
    return {
        **settings,
        "PREFERRED_AGENT_HOLD_SECONDS": HOLD,
        "OFFER_TIMEOUT_SECONDS": OFFER_TIMEOUT,
        "AGENT_IDLE_SECONDS": IDLE,
        "PROGRESS_EXACT_TASKS": 5,
        "PROGRESS_SNAPSHOT_SECONDS": FRESH,
    }


def snapshot(campaign) -> ProgressSnapshot | None:
    db.session.expire_all()
    return db.session.get(ProgressSnapshot, campaign.id)


def as_a_page(count: Callable[[], T]) -> T:
    """What a page (a GET: a reader's transaction) counts."""
    db.session.rollback()
    with transaction_mode(read_only=True):
        found = count()
    db.session.rollback()
    return found


def shown(campaign, now) -> progress.Progress:
    return as_a_page(lambda: progress_snapshots.campaign_progress(campaign, now))


def exact(campaign, now) -> progress.Progress:
    return replace(progress.campaign_progress(campaign, now), snapshot=True)


def test_a_large_campaign_shows_the_exact_counts_of_its_snapshots_moment(
    acme, renewals, winback, ann, bob
):
    taken = mixed_campaign(renewals, ann, bob, make_agent(acme, "carl"))
    expected = exact(renewals, taken)
    queues = live.queue_rows(acme, progress.tally(acme.id, [renewals.id, winback.id], taken), taken)
    first = shown(renewals, taken)
    assert first == replace(expected, snapshot=False)  # counted at the request, stored
    assert snapshot(renewals).taken_at == taken
    add(renewals, "newer")
    set_state(renewals, "plain", "COMPLETED")
    later = taken + (FRESH - 1) * S
    counted = shown(renewals, later)
    assert counted == expected and counted.now == taken
    assert (counted.deliverable, counted.waiting, counted.held, counted.in_work) == (4, 1, 1, 1)
    assert counted != exact(renewals, later)
    board = as_a_page(lambda: live.wallboard(acme, later))
    assert board.queues == queues
    assert [row.progress for row in board.campaigns if row.campaign == renewals] == [counted]


def test_a_snapshot_older_than_its_freshness_is_counted_again(renewals, ann, bob, acme):
    taken = mixed_campaign(renewals, ann, bob, make_agent(acme, "carl"))
    shown(renewals, taken)
    add(renewals, "newer")
    stale = taken + FRESH * S
    assert shown(renewals, stale).now == taken  # the one it had
    assert snapshot(renewals).taken_at == stale and snapshot(renewals).taking_until is None
    again = shown(renewals, stale + S)
    assert again == exact(renewals, stale) and again.by_state["NOTWORKED"] == 8


def test_one_process_at_a_time_counts_again(renewals, ann, bob, acme):
    taken = mixed_campaign(renewals, ann, bob, make_agent(acme, "carl"))
    shown(renewals, taken)
    stale = taken + FRESH * S
    campaign_id = renewals.id
    db.session.rollback()
    assert progress_snapshots._claim(campaign_id, stale)
    assert not progress_snapshots._claim(campaign_id, stale + S)  # taken: no second count
    shown(renewals, stale + S)
    assert snapshot(renewals).taken_at == taken
    cut_off = stale + progress_snapshots.RECOUNT_LEASE + S  # its holder never finished
    shown(renewals, cut_off)
    assert snapshot(renewals).taken_at == cut_off


def test_a_campaign_below_the_threshold_is_counted_exactly_with_no_snapshot(renewals):
    for name in ("a", "b", "c", "d"):
        add(renewals, name)
    now = progress.utcnow() + S
    assert shown(renewals, now) == progress.campaign_progress(renewals, now)
    assert snapshot(renewals) is None


def test_a_campaign_grown_smaller_is_counted_exactly_again(app, renewals, ann, bob, acme):
    taken = mixed_campaign(renewals, ann, bob, make_agent(acme, "carl"))
    shown(renewals, taken)
    app.config["PROGRESS_EXACT_TASKS"] = 100  # as if its tasks had been deleted
    stale = taken + FRESH * S
    assert shown(renewals, stale).snapshot  # the one it had
    assert snapshot(renewals) is None
    assert shown(renewals, stale) == progress.campaign_progress(renewals, stale)


def test_the_tenant_page_counts_a_large_campaign_from_its_snapshot(
    renewals, winback, ann, bob, acme
):
    taken = mixed_campaign(renewals, ann, bob, make_agent(acme, "carl"))
    add(winback, "elsewhere")
    shown(renewals, taken)
    add(renewals, "after-the-snapshot")
    counts = as_a_page(lambda: progress_snapshots.state_counts(acme))
    assert counts[renewals.id] == {"NOTWORKED": 7, "COMPLETED": 1}
    assert counts[winback.id] == {"NOTWORKED": 1}


def test_the_campaign_page_says_as_of_when_it_shows_a_snapshot(signed_in, renewals, ann, bob, acme):
    taken = mixed_campaign(renewals, ann, bob, make_agent(acme, "carl"))
    shown(renewals, taken)
    page = signed_in.get(f"/tenants/{acme.id}/campaigns/{renewals.id}/progress").text
    assert f"{taken:%Y-%m-%d %H:%M:%S} UTC</time>: a campaign this large is counted again" in page
    assert taken + timedelta(seconds=FRESH) > progress.utcnow()


def test_a_page_left_open_is_told_when_the_snapshot_was_counted_again(renewals, ann, bob, acme):
    taken = mixed_campaign(renewals, ann, bob, make_agent(acme, "carl"))
    shown(renewals, taken)
    stale = taken + FRESH * S
    before = as_a_page(lambda: live.change_token(acme, stale))
    shown(renewals, stale)  # the recount, done before the page's next poll
    assert snapshot(renewals).taken_at == stale
    assert as_a_page(lambda: live.change_token(acme, stale)) != before
