"""Registering endpoints: the URL rules, the secret, the event types, the audit trail."""

from __future__ import annotations

import base64
import json

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord
from app.services.errors import InvalidInput, NotFound
from app.services.webhooks import endpoints
from app.services.webhooks.event_types import EVENT_TYPES
from tests.webhooks.conftest import BOSS, make_endpoint


@pytest.mark.parametrize(
    "url",
    [
        "https://hooks.example.com/in",
        "http://93.184.215.14:8080/hook?token=abc",
        "HTTPS://Example.com",
        "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:9443/x",
        "https://example.com/" + "a" * (2048 - 20),
    ],
)
def test_absolute_http_urls_are_accepted(url):
    assert endpoints.check_url(url) == url


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("", "required"),
        ("ftp://example.com/x", "http:// or https://"),
        ("javascript:alert(1)", "http:// or https://"),
        ("file:///etc/passwd", "http:// or https://"),
        ("/relative/path", "http:// or https://"),
        ("example.com/in", "http:// or https://"),
        ("https://user:pw@example.com/in", "user name or password"),
        ("https://user@example.com/in", "user name or password"),
        ("https:///no-host", "host"),
        ("https://example.com:99999/", "port"),
        ("https://example.com/a b", "spaces"),
        ("https://example.com/\x00", "control"),
        ("https://example.com/#frag", "fragment"),
        ("https://example.com/" + "a" * 2048, "2048"),
    ],
)
def test_other_urls_are_refused_with_the_reason(url, reason):
    with pytest.raises(InvalidInput, match=reason):
        endpoints.check_url(url)


def test_the_secret_is_a_standard_webhooks_secret_made_anew_each_time():
    first, second = endpoints.new_secret(), endpoints.new_secret()
    assert first.startswith("whsec_") and first != second
    assert 24 <= len(base64.b64decode(first.removeprefix("whsec_"))) <= 64


def test_event_types_are_checked_against_the_catalogue(acme):
    endpoint = make_endpoint(acme, types=["task.closed", "task.added", "task.added"])
    assert endpoint.event_types == ["task.added", "task.closed"]  # catalogue order, once
    with pytest.raises(InvalidInput, match="'task.exploded' is unknown"):
        endpoints.create_endpoint(acme, "https://x.example", ["task.exploded"], actor=BOSS)
    assert "task.closed" in EVENT_TYPES and "user.deleted" in EVENT_TYPES


def _trail() -> list[AuditRecord]:
    return list(db.session.scalars(select(AuditRecord).order_by(AuditRecord.id)))


def test_every_change_is_audited_and_no_record_holds_the_secret(acme):
    endpoint = make_endpoint(acme)
    secrets_ = [endpoint.secret]
    endpoints.edit_endpoint(
        endpoint, url="https://other.example/in", event_types=["task.closed"],
        description="QA", enabled=False, actor=BOSS,
    )  # fmt: skip
    secrets_.append(endpoints.rotate_secret(endpoint, actor=BOSS))
    endpoints.enable_endpoint(endpoint, actor=BOSS)
    endpoints.delete_endpoint(endpoint, actor=BOSS)
    db.session.commit()
    trail = _trail()
    assert [r.action for r in trail] == [
        "webhook_endpoint.added",
        "webhook_endpoint.updated",
        "webhook_endpoint.secret_rotated",
        "webhook_endpoint.enabled",
        "webhook_endpoint.deleted",
    ]
    assert {(r.entity_kind, r.actor_id) for r in trail} == {("webhook_endpoint", BOSS.id)}
    assert trail[1].before["url"] == "https://hooks.example.com/in"
    assert trail[1].after["enabled"] is False
    assert "Disabled by supervisor:boss@example.com" in trail[1].after["disabledReason"]
    dumped = json.dumps([(r.before, r.after) for r in trail])
    assert not any(secret in dumped for secret in secrets_) and "whsec_" not in dumped


def test_rotation_gives_a_new_secret(acme):
    endpoint = make_endpoint(acme)
    old = endpoint.secret
    assert endpoints.rotate_secret(endpoint, actor=BOSS) != old


def test_another_tenants_endpoint_is_not_found(acme, globex):
    endpoint = make_endpoint(acme)
    assert endpoints.get_endpoint(acme, endpoint.id) is endpoint
    with pytest.raises(NotFound):
        endpoints.get_endpoint(globex, endpoint.id)
    assert endpoints.list_endpoints(globex) == []
