"""The supervisors' Callbacks page: every agent's kept tasks, each with the agents of its
queue it may be handed to; a hand-over redirects with its message, a refused one says why
and changes nothing."""

from __future__ import annotations

import pytest

from app.admin import callbacks as callback_pages
from app.extensions import db
from app.models import Task
from tests.admin.conftest import csrf_token, page, soup
from tests.delivery.delivery_support import make_agent
from tests.delivery.test_callback_lists import NOW, _callback


@pytest.fixture
def kept(acme, renewals, ann, bob, monkeypatch):
    monkeypatch.setattr(callback_pages, "utcnow", lambda: NOW)
    make_agent(acme, "cy", ("Support",))
    task = _callback(renewals, ann)
    return f"/tenants/{acme.id}/callbacks", task.record_id


def test_the_page_lists_each_callback_with_whom_it_may_go_to(signed_in, kept):
    url, record_id = kept
    shown = page(signed_in, url)
    row = shown.find("tr", attrs={"data-record-id": record_id})
    cells = [td.get_text(" ", strip=True) for td in row.find_all("td")]
    assert cells[:5] == [
        "2026-11-24 18:00:00 UTC",
        "2026-11-24 13:00 EST",
        "C1 (Renewals)",
        "ann",
        "2026-11-24 18:30:00 UTC",
    ]
    # Only bob works Sales besides ann; cy works Support.
    assert [o["value"] for o in row.find_all("option")] == ["bob"]


def test_a_hand_over_redirects_and_keeps_the_task_for_the_other_agent(signed_in, kept):
    url, record_id = kept
    token = csrf_token(page(signed_in, url))
    answer = signed_in.post(f"{url}/hand-over", data={"csrf_token": token,
                            "record_id": record_id, "agent": "bob"})  # fmt: skip
    assert answer.status_code == 302 and answer.location.endswith(url)
    assert "is kept for bob now" in page(signed_in, url).get_text()
    db.session.expire_all()
    assert db.session.query(Task).filter_by(record_id=record_id).one().preferred_agent == "bob"


def test_a_refused_hand_over_says_why_and_changes_nothing(signed_in, kept):
    url, record_id = kept
    token = csrf_token(page(signed_in, url))
    answer = signed_in.post(f"{url}/hand-over", data={"csrf_token": token,
                            "record_id": record_id, "agent": "cy"})  # fmt: skip
    assert answer.status_code == 422
    said = soup(answer).find(attrs={"role": "alert"}).get_text(" ", strip=True)
    assert "agent 'cy' does not work the task's queue Sales" in said
    db.session.expire_all()
    assert db.session.query(Task).filter_by(record_id=record_id).one().preferred_agent == "ann"
