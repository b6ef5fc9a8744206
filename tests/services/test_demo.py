"""Demo data: a changed demo password file gives the demo supervisor that password again."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, LoginSession, Supervisor
from app.services import demo, sessions
from app.services.actors import Actor
from app.services.supervisors import authenticate

PLATFORM = "AWS Connect"


def test_a_new_demo_password_file_resets_the_password_and_ends_sessions(app, tmp_path):
    actor = Actor.operator()
    _, first = demo.seed(PLATFORM, str(tmp_path), actor=actor)
    db.session.commit()
    supervisor = db.session.scalar(select(Supervisor).filter_by(email=demo.SUPERVISOR))
    sessions.start_session(
        supervisor, sessions.SessionLimits(timedelta(hours=1), timedelta(hours=1))
    )
    db.session.commit()

    (tmp_path / "demo-supervisor-password").write_text("Zq8-correct-horse-staple\n")
    _, second = demo.seed(PLATFORM, str(tmp_path), actor=actor)
    db.session.commit()

    assert second == "Zq8-correct-horse-staple" != first
    assert authenticate(demo.SUPERVISOR, second) is not None
    assert authenticate(demo.SUPERVISOR, first) is None
    assert db.session.scalar(select(LoginSession)) is None
    actions = db.session.scalars(
        select(AuditRecord.action).where(AuditRecord.entity_id == demo.SUPERVISOR)
    ).all()
    assert actions == ["supervisor.added", "supervisor.password_changed"]
