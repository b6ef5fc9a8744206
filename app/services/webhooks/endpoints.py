"""A tenant's webhook endpoints: where its events go and the secret that signs them.

Every change names its actor and leaves an audit record (entity `webhook_endpoint`); the
secret is made here, shown once by the front door, and never enters the trail.
"""

from __future__ import annotations

import base64
import secrets
from datetime import datetime
from urllib.parse import urlsplit

from sqlalchemy import func, select

from app.extensions import db
from app.models import Tenant, WebhookDelivery, WebhookEndpoint
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.errors import InvalidInput, NotFound
from app.services.fields import WEBHOOK_DESCRIPTION, WEBHOOK_URL
from app.services.outbound.addresses import AddressRefused
from app.services.webhooks.destinations import check_host
from app.services.webhooks.dispatch import OPEN, PENDING
from app.services.webhooks.event_types import check_event_types

# How this module's refusals name their fields.
URL = WEBHOOK_URL.said_as("url")
DESCRIPTION = WEBHOOK_DESCRIPTION.said_as("description")

MAX_URL_LENGTH = 2048
MAX_DESCRIPTION_LENGTH = 255
SECRET_BYTES = 32  # Standard Webhooks: between 24 and 64 bytes


def new_secret() -> str:
    """A Standard Webhooks signing secret: `whsec_` and the base64 of 32 random bytes."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def check_url(url: str) -> str:
    """The URL, when it is an absolute http(s) URL with a host and no credentials, whose
    host is not (and does not now resolve to) an address webhooks are not sent to."""
    url = (url or "").strip()
    if not url:
        raise InvalidInput("url is required", field=URL)
    if len(url) > MAX_URL_LENGTH:
        raise InvalidInput(f"url must be at most {MAX_URL_LENGTH} characters", field=URL)
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        raise InvalidInput("url must not contain spaces or control characters", field=URL)
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        raise InvalidInput("url must start with http:// or https://", field=URL)
    if parts.username is not None or parts.password is not None:
        raise InvalidInput("url must not hold a user name or password", field=URL)
    try:
        host, _port = parts.hostname, parts.port
    except ValueError:
        raise InvalidInput("url has an invalid port", field=URL) from None
    if not host:
        raise InvalidInput("url must name a host", field=URL)
    if parts.fragment:
        raise InvalidInput("url must not have a #fragment (it is never sent)", field=URL)
    try:
        check_host(host, _port or (443 if parts.scheme.lower() == "https" else 80))
    except AddressRefused as refused:
        raise InvalidInput(f"url {refused}", field=URL) from None
    return url


def _description(text: str | None) -> str:
    text = (text or "").strip()
    if len(text) > MAX_DESCRIPTION_LENGTH:
        raise InvalidInput(
            f"description must be at most {MAX_DESCRIPTION_LENGTH} characters", field=DESCRIPTION
        )
    return text


def fields(endpoint: WebhookEndpoint) -> dict:
    """What the trail keeps of an endpoint (never its secret)."""
    return {
        "url": endpoint.url,
        "eventTypes": list(endpoint.event_types or []),
        "description": endpoint.description,
        "enabled": endpoint.enabled,
        "disabledReason": endpoint.disabled_reason,
    }


def record_change(actor: Actor, action: str, endpoint: WebhookEndpoint, before, after) -> None:
    """The audit record of a change to the endpoint (or to its deliveries)."""
    record(
        actor,
        Change(action, "webhook_endpoint", str(endpoint.id), endpoint.tenant_id, before, after),
    )


def list_endpoints(tenant: Tenant) -> list[WebhookEndpoint]:
    return list(
        db.session.scalars(
            select(WebhookEndpoint)
            .where(WebhookEndpoint.tenant_id == tenant.id)
            .order_by(WebhookEndpoint.id)
        )
    )


def get_endpoint(tenant: Tenant, endpoint_id: int) -> WebhookEndpoint:
    """The tenant's endpoint with this id; another tenant's is as if it did not exist."""
    endpoint = db.session.get(WebhookEndpoint, endpoint_id)
    if endpoint is None or endpoint.tenant_id != tenant.id:
        raise NotFound(f"webhook endpoint {endpoint_id} does not exist")
    return endpoint


def create_endpoint(
    tenant: Tenant,
    url: str,
    event_types: list[str] | tuple[str, ...] = (),
    description: str | None = "",
    *,
    actor: Actor,
) -> WebhookEndpoint:
    """Register an endpoint (enabled) with a new secret; the caller shows the secret once."""
    endpoint = WebhookEndpoint(
        tenant_id=tenant.id,
        url=check_url(url),
        secret=new_secret(),
        event_types=check_event_types(event_types),
        description=_description(description),
        enabled=True,
        created_at=utcnow(),
    )
    db.session.add(endpoint)
    db.session.flush()
    record_change(actor, "webhook_endpoint.added", endpoint, None, fields(endpoint))
    return endpoint


def edit_endpoint(
    endpoint: WebhookEndpoint,
    *,
    url: str,
    event_types: list[str] | tuple[str, ...],
    description: str | None,
    enabled: bool,
    actor: Actor,
) -> WebhookEndpoint:
    """Change the URL, types, description and whether it is enabled."""
    before = fields(endpoint)
    endpoint.url = check_url(url)
    endpoint.event_types = check_event_types(event_types)
    endpoint.description = _description(description)
    if enabled and not endpoint.enabled:
        _enable(endpoint)
    elif not enabled and endpoint.enabled:
        endpoint.enabled = False
        endpoint.disabled_reason = f"Disabled by {actor.describe()} on {_day(utcnow())}."
    after = fields(endpoint)
    if after != before:
        record_change(actor, "webhook_endpoint.updated", endpoint, before, after)
    return endpoint


def _enable(endpoint: WebhookEndpoint) -> None:
    endpoint.enabled = True
    endpoint.disabled_reason = None
    endpoint.failing_since = None  # a new chance: the failing clock starts again


def _day(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def enable_endpoint(
    endpoint: WebhookEndpoint, *, actor: Actor, now: datetime | None = None
) -> None:
    """Re-enable a disabled endpoint: its pending deliveries are tried again at once."""
    if endpoint.enabled:
        return
    before = fields(endpoint)
    _enable(endpoint)
    db.session.execute(
        WebhookDelivery.__table__.update()
        .where(WebhookDelivery.endpoint_id == endpoint.id, WebhookDelivery.status == PENDING)
        .values(next_attempt_at=now or utcnow())
    )
    record_change(actor, "webhook_endpoint.enabled", endpoint, before, fields(endpoint))


def disable_endpoint(endpoint: WebhookEndpoint, reason: str, *, actor: Actor) -> None:
    """Stop sending to the endpoint and say why, for the supervisor to see."""
    if not endpoint.enabled:
        return
    before = fields(endpoint)
    endpoint.enabled = False
    endpoint.disabled_reason = reason
    record_change(actor, "webhook_endpoint.disabled", endpoint, before, fields(endpoint))


def rotate_secret(endpoint: WebhookEndpoint, *, actor: Actor) -> str:
    """Give the endpoint a new secret and return it; the old one stops signing at once."""
    endpoint.secret = new_secret()
    record_change(actor, "webhook_endpoint.secret_rotated", endpoint, None, None)
    return endpoint.secret


def delete_endpoint(endpoint: WebhookEndpoint, *, actor: Actor) -> None:
    """Delete the endpoint and its delivery log."""
    record_change(actor, "webhook_endpoint.deleted", endpoint, fields(endpoint), None)
    db.session.execute(
        WebhookDelivery.__table__.delete().where(WebhookDelivery.endpoint_id == endpoint.id)
    )
    db.session.delete(endpoint)


def pending_counts(tenant: Tenant) -> dict[int, int]:
    """Deliveries still to make, per endpoint of the tenant."""
    rows = db.session.execute(
        select(WebhookDelivery.endpoint_id, func.count())
        .join(WebhookEndpoint, WebhookEndpoint.id == WebhookDelivery.endpoint_id)
        .where(
            WebhookEndpoint.tenant_id == tenant.id,
            WebhookDelivery.status.in_(OPEN),
        )
        .group_by(WebhookDelivery.endpoint_id)
    )
    return dict(rows.all())
