"""The supervisors' pages of the agents' workspace: away reasons and the queues' wrap-up
limits, each change a post/redirect/get with its audit record, refusals beside the field."""

from __future__ import annotations

from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, Event, SkillQueue
from app.services.actors import Actor
from app.services.delivery import away_reasons, closing
from tests.admin.conftest import page
from tests.delivery.delivery_support import add, available, make_agent, offer, start


def test_a_supervisor_adds_and_removes_away_reasons(signed_in, acme):
    url = f"/tenants/{acme.id}/away-reasons"
    assert "No away reason yet" in page(signed_in, url).get_text()
    done = signed_in.post(url, data={"reason-name": "Lunch", "reason-sort_order": "2"})
    assert done.status_code == 302 and done.location.endswith(url)
    signed_in.post(url, data={"reason-name": "<b>Break</b>", "reason-sort_order": "1"})
    shown = page(signed_in, url)
    assert "Away reason '<b>Break</b>' added." in shown.get_text()
    assert [tr["data-reason"] for tr in shown.select("tr[data-reason]")] == [
        "<b>Break</b>",
        "Lunch",
    ]
    assert "<b>Break</b>" not in signed_in.get(url).get_data(as_text=True)  # escaped
    reason = away_reasons.find_reason(acme.id, "Lunch")
    removed = signed_in.post(f"{url}/{reason.id}/remove")
    assert removed.status_code == 302
    assert [r.name for r in away_reasons.list_reasons(acme)] == ["<b>Break</b>"]
    actions = db.session.scalars(
        select(AuditRecord.action).where(AuditRecord.entity_kind == "away_reason")
    ).all()
    assert actions == ["away_reason.added", "away_reason.added", "away_reason.removed"]
    assert db.session.scalar(select(Event).filter_by(type="away_reason.removed")) is not None
    assert signed_in.get(f"{url}/{reason.id}/remove").status_code == 302  # a GET: back


def test_a_repeated_reason_is_refused_on_the_page_and_nothing_added(signed_in, acme):
    url = f"/tenants/{acme.id}/away-reasons"
    signed_in.post(url, data={"reason-name": "Lunch"})
    refused = signed_in.post(url, data={"reason-name": "LUNCH"})
    assert refused.status_code == 422
    assert "already exists" in refused.get_data(as_text=True)
    assert len(away_reasons.list_reasons(acme)) == 1


def test_a_supervisor_sets_a_queues_wrap_up_limit_and_a_bad_one_is_refused(signed_in, acme):
    sales = db.session.scalar(select(SkillQueue).filter_by(tenant_id=acme.id, name="Sales"))
    url = f"/tenants/{acme.id}/skill-queues"
    assert "Now: none" in page(signed_in, url).select_one("tr[data-queue='Sales']").get_text()
    done = signed_in.post(f"{url}/{sales.id}/wrap-up-limit", data={f"q{sales.id}-seconds": "120"})
    assert done.status_code == 302
    shown = page(signed_in, url)
    assert "Skill queue 'Sales': wrap-up limit 2 min." in shown.get_text()
    db.session.refresh(sales)
    assert sales.wrap_up_limit_seconds == 120
    refused = signed_in.post(f"{url}/{sales.id}/wrap-up-limit", data={f"q{sales.id}-seconds": "2"})
    assert refused.status_code == 422
    db.session.refresh(sales)
    assert sales.wrap_up_limit_seconds == 120
    signed_in.post(f"{url}/{sales.id}/wrap-up-limit", data={f"q{sales.id}-seconds": ""})
    db.session.refresh(sales)
    assert sales.wrap_up_limit_seconds is None
    audit = db.session.scalars(
        select(AuditRecord).filter_by(action="skill_queue.wrap_up_limit_set")
    ).all()
    assert [r.actor_id for r in audit] == ["boss@example.com"] * 2


def test_the_task_page_shows_each_attempts_note_escaped(signed_in, acme, renewals):
    add(renewals, "c1")
    ann = make_agent(acme, "ann")
    now = start()
    available(ann, now)
    task = offer(ann, now).task
    note = "Wife answers <img src=x onerror=alert(1)>\nsecond line"
    closing.close_task(
        ann, task.record_id, "COMPLETE", note=note, actor=Actor.agent("ann"), now=now
    )
    db.session.commit()
    response = signed_in.get(f"/tenants/{acme.id}/tasks/{task.record_id}")
    assert "<img src=x" not in response.get_data(as_text=True)
    row = page(signed_in, f"/tenants/{acme.id}/tasks/{task.record_id}").select_one(
        "tr[data-attempt-note]"
    )
    assert row.find(class_="attempt-note").get_text() == note
