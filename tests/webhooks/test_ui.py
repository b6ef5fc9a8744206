"""The Webhooks pages: list with state, add (secret shown once), edit, rotate, delete,
re-enable, the delivery log with replay; CSRF on every form; other tenants' endpoints 404."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from werkzeug.security import generate_password_hash

from app.extensions import db
from app.models import Supervisor, WebhookDelivery, WebhookEndpoint
from app.models.types import utcnow
from app.services.webhooks import endpoints
from app.services.webhooks.dispatch import dispatch_events
from app.services.webhooks.due_deliveries import deliver_due
from tests.admin.conftest import RequestClient, csrf_token, page, session_for, soup
from tests.webhooks.conftest import BOSS, emit, make_endpoint

NEW_URL = "https://crm.example.com/hooks"


@pytest.fixture
def settings(settings, request):
    return {**settings, "PAGE_SIZE": 3, **getattr(request, "param", {})}


@pytest.fixture
def signed_in(app, acme):
    boss = Supervisor(
        email="boss@example.com",
        password_hash=generate_password_hash("x" * 20, method="pbkdf2:sha256:1000"),
        all_tenants=True,
    )
    db.session.add(boss)
    db.session.commit()
    app.test_client_class = RequestClient
    return session_for(app.test_client(), boss)


def base(tenant) -> str:
    return f"/tenants/{tenant.id}/webhooks"


def test_the_nav_links_to_the_webhooks_page(signed_in, acme):
    shown = page(signed_in, f"/tenants/{acme.id}/keys")
    assert shown.find("a", string="Webhooks")["href"] == base(acme)


def test_adding_an_endpoint_shows_its_secret_once_and_never_again(signed_in, acme):
    form_page = page(signed_in, base(acme) + "/new")
    assert form_page.find("input", attrs={"name": "url"}) is not None
    response = signed_in.post(
        base(acme) + "/new",
        data={"url": NEW_URL, "types": ["task.closed", "task.added"], "description": "CRM"},
    )
    endpoint = db.session.scalar(select(WebhookEndpoint))
    secret_url = f"{base(acme)}/{endpoint.id}/secret"
    assert (response.status_code, response.location) == (303, secret_url)
    shown_page = signed_in.get(secret_url)
    assert shown_page.headers["Cache-Control"] == "no-store"
    shown = soup(shown_page).select_one("[data-secret]").get_text()
    assert shown == endpoint.secret and shown.startswith("whsec_")
    assert endpoint.event_types == ["task.added", "task.closed"]
    listing = signed_in.get(base(acme)).get_data(as_text=True)
    assert NEW_URL in listing and "task.added, task.closed" in listing
    assert endpoint.secret not in listing
    assert endpoint.secret not in signed_in.get(secret_url).get_data(as_text=True)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://crm.example.com/x", "http:// or https://"),
        ("https://me:pw@crm.example.com/x", "user name or password"),
        ("crm.example.com", "http:// or https://"),
        ("http://169.254.169.254/latest/meta-data/", "is a link-local address"),
        ("http://0x7f000001:6379/", "which is 127.0.0.1, is a loopback address"),
    ],
)
def test_a_refused_url_is_told_beside_the_field(signed_in, acme, url, reason):
    response = signed_in.post(base(acme) + "/new", data={"url": url})
    assert response.status_code == 422
    shown = soup(response)
    assert reason in shown.select_one(".field-error").get_text()
    assert shown.find("input", attrs={"name": "url"})["value"] == url
    assert db.session.scalar(select(WebhookEndpoint)) is None


def test_an_unknown_event_type_is_refused(signed_in, acme):
    response = signed_in.post(base(acme) + "/new", data={"url": NEW_URL, "types": ["task.nope"]})
    assert response.status_code == 422


def test_editing_and_disabling_shows_who_disabled_it(signed_in, acme):
    endpoint = make_endpoint(acme)
    url = f"{base(acme)}/{endpoint.id}/edit"
    assert page(signed_in, url).find("input", attrs={"name": "url"})["value"] == endpoint.url
    response = signed_in.post(url, data={"url": NEW_URL, "description": "QA"})  # unticked
    assert response.status_code == 302
    db.session.refresh(endpoint)
    assert (endpoint.url, endpoint.enabled) == (NEW_URL, False)
    reason = page(signed_in, base(acme)).select_one("[data-disabled-reason]").get_text()
    assert "Disabled by supervisor:boss@example.com" in reason


def test_a_disabled_endpoint_shows_why_and_can_be_re_enabled(signed_in, acme, clock):
    endpoint = make_endpoint(acme)
    endpoint.failing_since = clock.now
    db.session.commit()
    endpoints.disable_endpoint(endpoint, "Every delivery failed for 5 days.", actor=BOSS)
    db.session.commit()
    listing = page(signed_in, base(acme))
    state = listing.select_one(".webhook-state").get_text(" ", strip=True)
    assert "disabled" in state and "Every delivery failed for 5 days." in state
    assert "failing since 2026-03-02" in state
    response = signed_in.post(f"{base(acme)}/{endpoint.id}/enable")
    assert response.status_code == 302
    db.session.refresh(endpoint)
    assert endpoint.enabled and endpoint.disabled_reason is None


def test_rotating_asks_first_then_shows_the_new_secret_once(signed_in, acme):
    endpoint = make_endpoint(acme)
    old = endpoint.secret
    url = f"{base(acme)}/{endpoint.id}/rotate"
    assert "stops signing at once" in page(signed_in, url).get_text()
    db.session.refresh(endpoint)
    assert endpoint.secret == old  # asking changed nothing
    response = signed_in.post(url)
    db.session.refresh(endpoint)
    assert endpoint.secret != old
    assert response.status_code == 303
    shown = signed_in.get(response.location)
    assert shown.headers["Cache-Control"] == "no-store"
    assert soup(shown).select_one("[data-secret]").get_text() == endpoint.secret
    again = signed_in.get(response.location)
    assert soup(again).select("[data-secret]") == []
    assert soup(again).select("[data-secret-gone]")


def test_deleting_asks_first(signed_in, acme):
    endpoint = make_endpoint(acme)
    url = f"{base(acme)}/{endpoint.id}/delete"
    assert "cannot be undone" in page(signed_in, url).get_text()
    assert db.session.get(WebhookEndpoint, endpoint.id) is not None
    assert signed_in.post(url).status_code == 302
    db.session.expire_all()
    assert db.session.get(WebhookEndpoint, endpoint.id) is None


def test_the_delivery_log_is_newest_first_paged_with_replay(signed_in, acme, clock, recorder):
    endpoint = make_endpoint(acme)
    for n in range(4):
        emit(acme, "task.updated", subject=f"rec-{n}")
    dispatch_events(clock.now)
    recorder.answers = [recorder.default, recorder.default, recorder.default]
    recorder.default = type(recorder.default)(status_code=503)
    deliver_due(clock.now, 10, sender=recorder)
    first = page(signed_in, f"{base(acme)}/{endpoint.id}")
    rows = first.select("tr[data-delivery]")
    assert [r.find_all("td")[2].get_text() for r in rows] == ["rec-3", "rec-2", "rec-1"]
    assert rows[0].select_one(".delivery-status").get_text() == "pending"
    assert "503" in rows[0].get_text()
    second = page(signed_in, f"{base(acme)}/{endpoint.id}?page=2")
    assert [r.find_all("td")[2].get_text() for r in second.select("tr[data-delivery]")] == ["rec-0"]
    delivered = db.session.scalar(
        select(WebhookDelivery).where(WebhookDelivery.status == "delivered")
    )
    response = signed_in.post(f"{base(acme)}/{endpoint.id}/deliveries/{delivered.id}/replay")
    assert response.status_code == 302
    db.session.refresh(delivered)
    assert delivered.status == "pending"
    recorder.sent, recorder.default = [], type(recorder.default)(status_code=200)
    deliver_due(utcnow(), 10, sender=recorder)  # the page replays as of the wall clock
    assert delivered.event.event_id in recorder.ids


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/{id}"),
        ("get", "/{id}/edit"),
        ("post", "/{id}/edit"),
        ("get", "/{id}/rotate"),
        ("post", "/{id}/rotate"),
        ("get", "/{id}/delete"),
        ("post", "/{id}/delete"),
        ("post", "/{id}/enable"),
        ("post", "/{id}/deliveries/1/replay"),
    ],
)
def test_another_tenants_endpoint_is_not_found(signed_in, acme, globex, method, path):
    theirs = make_endpoint(globex)
    response = getattr(signed_in, method)(base(acme) + path.format(id=theirs.id))
    assert response.status_code == 404
    db.session.refresh(theirs)
    assert theirs.url == "https://hooks.example.com/in"


def test_replaying_a_delivery_of_another_endpoint_is_not_found(signed_in, acme, globex, clock):
    mine, theirs = make_endpoint(acme), make_endpoint(globex)
    emit(globex)
    dispatch_events(clock.now)
    delivery = db.session.scalar(select(WebhookDelivery))
    assert delivery.endpoint_id == theirs.id
    response = signed_in.post(f"{base(acme)}/{mine.id}/deliveries/{delivery.id}/replay")
    assert response.status_code == 404


@pytest.mark.parametrize("settings", [{"WTF_CSRF_ENABLED": True}], indirect=True)
@pytest.mark.parametrize("path", ["/new", "/{id}/rotate", "/{id}/delete", "/{id}/enable"])
def test_a_post_without_its_csrf_token_changes_nothing(signed_in, acme, path):
    endpoint = make_endpoint(acme)
    endpoints.disable_endpoint(endpoint, "x", actor=BOSS)
    db.session.commit()
    secret = endpoint.secret
    response = signed_in.post(base(acme) + path.format(id=endpoint.id), data={"url": NEW_URL})
    assert response.status_code in (200, 302, 303, 400, 422)
    db.session.expire_all()
    assert db.session.scalars(select(WebhookEndpoint.secret)).all() == [secret]
    assert not db.session.get(WebhookEndpoint, endpoint.id).enabled
    assert csrf_token(page(signed_in, base(acme) + "/new"))


def test_the_endpoint_page_says_since_when_and_replays_from_a_time(signed_in, acme, clock):
    emit(acme, "task.added", subject="before")
    dispatch_events(clock.now)
    endpoint = make_endpoint(acme)
    url = f"{base(acme)}/{endpoint.id}"
    shown = page(signed_in, url)
    said = shown.select_one("[data-receives-from]").get_text(" ", strip=True)
    assert "Receives the events that happen from" in said and "replay them from a time" in said
    assert shown.find("input", attrs={"name": "since"})["type"] == "datetime-local"
    refused = signed_in.post(url + "/replay-since", data={"since": "last week"})
    assert refused.status_code == 422
    assert "date and time" in soup(refused).select_one(".field-error").get_text()
    assert soup(refused).find("input", attrs={"name": "since"})["value"] == "last week"
    assert db.session.scalar(select(WebhookDelivery)) is None
    done = signed_in.post(url + "/replay-since", data={"since": "2020-01-01T00:00"})
    assert done.status_code == 302 and done.headers["Location"].endswith(url)
    assert "1 earlier event will be delivered" in page(signed_in, url).get_text()
    assert [d.endpoint_id for d in db.session.scalars(select(WebhookDelivery))] == [endpoint.id]


@pytest.mark.parametrize("settings", [{"WTF_CSRF_ENABLED": True}], indirect=True)
def test_a_replay_from_a_time_without_its_csrf_token_changes_nothing(signed_in, acme, clock):
    emit(acme, "task.added", subject="before")
    dispatch_events(clock.now)
    endpoint = make_endpoint(acme)
    response = signed_in.post(
        f"{base(acme)}/{endpoint.id}/replay-since", data={"since": "2020-01-01T00:00"}
    )
    assert response.status_code in (400, 422)
    assert db.session.scalar(select(WebhookDelivery)) is None
