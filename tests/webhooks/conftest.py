"""Fixtures for webhooks: tenants, endpoints, events in the outbox, a controlled clock, a
recording sender and a real local receiver that checks every signature."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from standardwebhooks import Webhook

from app.extensions import db
from app.models import Tenant, WebhookDelivery
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.webhooks.dispatch import dispatch_events
from app.services.webhooks.due_deliveries import deliver_due
from app.services.webhooks.endpoints import create_endpoint
from app.services.webhooks.sending import Attempt

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
BOSS = Actor.supervisor("boss@example.com")


def make_tenant(company: str = "Acme", environment: str = "prod") -> Tenant:
    tenant = Tenant(
        platform="AWS Connect",
        company_code=company,
        environment=environment,
        region="us-east-1",
        auth_mode="saml",
    )
    db.session.add(tenant)
    db.session.commit()
    return tenant


@pytest.fixture
def acme(app) -> Tenant:
    return make_tenant()


@pytest.fixture
def globex(app) -> Tenant:
    return make_tenant("Globex", "prod")


def make_endpoint(tenant: Tenant, url: str = "https://hooks.example.com/in", types=()):
    endpoint = create_endpoint(tenant, url, list(types), "CRM", actor=BOSS)
    db.session.commit()
    return endpoint


def emit(tenant: Tenant, event_type: str = "task.updated", subject: str | None = "rec-1", **data):
    """Write one event to the outbox, as a service's change does, and commit."""
    record(
        Actor.system("test"),
        Change(
            event_type,
            "task",
            subject or "-",
            tenant.id,
            event_type=event_type,
            event_data={"previewRecordID": subject, **data},
            subject=subject,
        ),  # fmt: skip
    )
    db.session.commit()


@dataclass
class Clock:
    """The time the services are told it is; tests move it on."""

    now: datetime = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@dataclass
class Recorder:
    """A sender that records each request and answers from a script (default 200)."""

    answers: list[Attempt] = field(default_factory=list)
    sent: list[tuple[str, bytes, dict]] = field(default_factory=list)
    default: Attempt = Attempt(status_code=200)

    def __call__(self, url: str, body: bytes, headers: dict[str, str]) -> Attempt:
        self.sent.append((url, body, headers))
        return self.answers.pop(0) if self.answers else self.default

    @property
    def ids(self) -> list[str]:
        return [headers["webhook-id"] for _url, _body, headers in self.sent]

    @property
    def bodies(self) -> list[dict]:
        return [json.loads(body) for _url, body, _headers in self.sent]


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


def verified(secret: str, body: bytes, headers: dict[str, str]) -> dict:
    """The payload, when the signature verifies with the standardwebhooks package."""
    return Webhook(secret).verify(body, headers)


NO_JITTER = lambda: 0.5  # noqa: E731 - the middle of the jitter range


def deliveries() -> list[WebhookDelivery]:
    db.session.expire_all()
    return list(db.session.scalars(select(WebhookDelivery).order_by(WebhookDelivery.id)))


def run(clock, recorder, **kwargs) -> int:
    dispatch_events(clock.now)
    return deliver_due(clock.now, 50, sender=recorder, rand=NO_JITTER, **kwargs)
