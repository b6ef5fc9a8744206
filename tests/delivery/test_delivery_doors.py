"""Delivery's rules through the other doors: intake files start holds, the worker's clock
ends them, a deleted agent's reservation returns to the queue at once."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from app.extensions import db
from app.jobs import clock
from app.models import AuditRecord
from app.models.types import utcnow
from app.services.delivery import sweeps
from app.services.intake.load import load_file
from app.services.people.users import delete_user
from tests.conftest import SETUP
from tests.delivery.delivery_support import (  # noqa: F401 - settings: short desk timings
    HOLD,
    add,
    available,
    make_agent,
    offer,
    settings,
    start,
    stored,
)

S = timedelta(seconds=1)


def _load(campaign, tmp_path, text: str) -> None:
    path = tmp_path / "tasks.csv"
    path.write_text(text, encoding="utf-8")
    load_file(campaign, path, tmp_path / "report.csv", actor=SETUP)
    db.session.commit()


def test_an_intake_file_starts_the_preferred_agents_hold(renewals, tmp_path):
    before = utcnow()
    _load(renewals, tmp_path, "Id,Name,preferredAgent\nA,Ann,bob\nB,Bo,\n")
    assert before + (HOLD - 5) * S <= stored("A").hold_until <= utcnow() + HOLD * S
    assert stored("B").hold_until is None


def test_an_intake_update_naming_an_agent_starts_the_hold(renewals, tmp_path):
    add(renewals, "A")
    assert stored("A").hold_until is None
    _load(renewals, tmp_path, "Id,Name,preferredAgent\nA,Ann,bob\n")
    task = stored("A")
    assert task.preferred_agent == "bob"
    assert task.hold_until is not None


def test_the_clock_ends_holds_and_reservations_every_tick(renewals, acme):
    assert clock.expire_desk_timeouts in clock.EVERY_TICK
    add(renewals, "held", preferred_agent="nobody")
    ann = make_agent(acme, "ann")
    add(renewals, "c1")
    now = start()
    available(ann, now)
    offer(ann, now)  # ann receives c1 (held is for nobody)
    later = now + 3600 * S
    assert clock.expire_desk_timeouts(later) == {"holds": 1, "reservations": 1}
    assert stored("held").preferred_agent is None
    assert stored("c1").reserved_by_id is None


def test_a_deleted_agents_reservation_returns_to_the_queue(renewals, acme):
    ann = make_agent(acme, "ann")
    add(renewals, "c1")
    now = start()
    available(ann, now)
    offer(ann, now)
    delete_user(acme, "ann", actor=SETUP)
    db.session.commit()
    # At once, by the deletion's actor: nobody waits for the offer timeout.
    assert stored("c1").reserved_by_id is None
    released = db.session.scalars(
        select(AuditRecord).filter_by(action="task.released").order_by(AuditRecord.id)
    ).all()
    assert [(r.actor_kind, r.actor_id) for r in released] == [(SETUP.kind.value, SETUP.id)]
    assert sweeps.expire_reservations(now + S) == 0
