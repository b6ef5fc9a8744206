"""Webhooks go to public addresses only: loopback, link-local, private, multicast,
unspecified and reserved addresses are refused in every spelling, when an endpoint is saved
and at each delivery on the address the name resolves to then (DNS rebinding fails), unless
the operator allows networks with WEBHOOK_ALLOW_NETWORKS."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import WebhookDelivery, WebhookEndpoint
from app.services.errors import InvalidInput
from app.services.outbound import addresses
from app.services.webhooks import endpoints, run_once
from tests.tls_support import sni_listener
from tests.webhooks.conftest import BOSS, emit

LOCAL = "127.0.0.0/8,::1/128"
PUBLIC = "93.184.215.14"  # an address on the internet (example.com's)

REFUSED = [
    ("http://127.0.0.1:6379/", "loopback"),
    ("http://127.0.0.2/", "loopback"),
    ("http://0x7f000001/", "loopback"),
    ("http://2130706433/", "loopback"),
    ("http://0177.0.0.1/", "loopback"),
    ("http://127.1/", "loopback"),
    ("http://0x7f.1:8080/", "loopback"),
    ("http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/", "loopback"),  # full-width digits
    ("http://[::1]/", "loopback"),
    ("http://[0:0:0:0:0:0:0:1]:9000/", "loopback"),
    ("http://[::ffff:127.0.0.1]/", "loopback"),
    ("http://[::ffff:7f00:1]/", "loopback"),
    ("http://[2002:7f00:1::1]/", "loopback"),  # 6to4 of 127.0.0.1
    ("http://localhost:6379/", "loopback"),
    ("http://LOCALHOST./", "loopback"),
    ("http://redis.localhost/", "loopback"),
    ("http://169.254.169.254/latest/meta-data/", "link-local"),
    ("http://[fe80::1%25eth0]/", "link-local"),
    ("http://10.0.0.5/", "private"),
    ("http://172.16.3.4/", "private"),
    ("http://192.168.1.1/", "private"),
    ("http://[fd00::1]/", "private"),
    ("http://224.0.0.1/", "multicast"),
    ("http://[ff02::1]/", "multicast"),
    ("http://0.0.0.0:8000/", "unspecified"),
    ("http://0/", "unspecified"),
    ("http://[::]/", "unspecified"),
    ("http://100.64.0.1/", "non-public"),  # carrier-grade NAT
    ("http://240.0.0.1/", "reserved"),
]


@pytest.fixture
def names(monkeypatch):
    """A resolver the test controls: name -> addresses; a name it lacks does not resolve."""
    table: dict[str, list[str]] = {}
    asked: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        asked.append(host)
        if host not in table:
            raise OSError(f"{host}: Name or service not known")
        return table[host]

    monkeypatch.setattr(addresses, "resolver", resolve)
    resolve.table, resolve.asked = table, asked
    return resolve


@pytest.mark.parametrize(("url", "kind"), REFUSED)
def test_every_spelling_of_a_non_public_address_is_refused_on_save(acme, names, url, kind):
    names.table["localhost"] = ["127.0.0.1", "::1"]
    with pytest.raises(InvalidInput, match=rf"^url host .* is a {kind} address") as refused:
        endpoints.create_endpoint(acme, url, actor=BOSS)
    assert "WEBHOOK_ALLOW_NETWORKS" in str(refused.value)
    db.session.rollback()
    assert db.session.scalar(select(WebhookEndpoint)) is None


def test_a_name_that_resolves_to_a_private_address_is_refused_on_save(acme, names):
    names.table["crm.internal.example"] = [PUBLIC, "10.1.2.3"]  # one bad address is enough
    with pytest.raises(InvalidInput, match=r"crm\.internal\.example, which is 10\.1\.2\.3,"):
        endpoints.create_endpoint(acme, "https://crm.internal.example/in", actor=BOSS)


def test_public_addresses_and_names_not_yet_resolving_are_accepted(acme, names):
    names.table["crm.example.com"] = [PUBLIC, "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]
    for url in (f"http://{PUBLIC}/in", "https://crm.example.com/in", "https://new.example/in"):
        assert endpoints.create_endpoint(acme, url, actor=BOSS).url == url


@pytest.fixture
def settings(settings, request):
    return {**settings, **getattr(request, "param", {})}


@pytest.mark.parametrize(
    "settings", [{"WEBHOOK_ALLOW_NETWORKS": "10.20.0.0/16, 127.0.0.0/8,::1/128"}], indirect=True
)
def test_the_operator_may_allow_networks(acme, names):
    for url in (
        "http://10.20.3.4/",
        "http://127.0.0.1:8080/",
        "http://[::1]/",
        "http://0x7f000001/",
    ):
        assert endpoints.create_endpoint(acme, url, actor=BOSS).url == url
    for url, refused in (
        ("http://10.21.0.1/", "10.21.0.1 is a private"),
        ("http://169.254.169.254/", "169.254.169.254 is a link-local"),
    ):
        with pytest.raises(InvalidInput, match=refused):
            endpoints.create_endpoint(acme, url, actor=BOSS)


@pytest.mark.parametrize("value", ["10.0.0.0/33", "localhost", "10.0.0.0/8;x"])
def test_a_bad_allow_list_stops_the_start_naming_it(value, monkeypatch):
    from app.config import defaults

    monkeypatch.setenv("WEBHOOK_ALLOW_NETWORKS", value)
    with pytest.raises(ValueError, match="WEBHOOK_ALLOW_NETWORKS"):
        defaults()


def _deliveries() -> list[WebhookDelivery]:
    db.session.expire_all()
    return list(db.session.scalars(select(WebhookDelivery).order_by(WebhookDelivery.id)))


def _endpoint_saved_as(tenant, url: str) -> WebhookEndpoint:
    """An endpoint stored with this URL (as one saved before the rules, or while its name
    pointed elsewhere)."""
    endpoint = WebhookEndpoint(tenant_id=tenant.id, url=url, secret=endpoints.new_secret())
    db.session.add(endpoint)
    db.session.commit()
    return endpoint


def test_a_name_rebound_to_loopback_after_saving_is_refused_at_delivery(
    acme, names, httpserver, clock
):
    httpserver.expect_request(re.compile(".*")).respond_with_data("caught")
    names.table["rebind.example"] = [PUBLIC]
    endpoints.create_endpoint(acme, f"http://rebind.example:{httpserver.port}/hooks", actor=BOSS)
    db.session.commit()
    names.table["rebind.example"] = ["127.0.0.1"]  # the attacker's DNS answers anew
    emit(acme)
    run_once(clock.now)
    assert httpserver.log == []  # nothing reached the local service
    (delivery,) = _deliveries()
    assert delivery.status == "pending" and delivery.last_status_code is None
    assert delivery.last_error.startswith(
        "refused: host rebind.example, which is 127.0.0.1, is a loopback address"
    )


def test_localhost_stored_is_refused_at_delivery_by_the_real_resolver(acme, httpserver, clock):
    httpserver.expect_request(re.compile(".*")).respond_with_data("caught")
    _endpoint_saved_as(acme, f"http://localhost:{httpserver.port}/hooks")
    emit(acme)
    run_once(clock.now)
    assert httpserver.log == []
    assert "is a loopback address" in _deliveries()[0].last_error


def test_the_log_tells_no_open_port_from_a_closed_one(acme, httpserver, clock):
    httpserver.expect_request(re.compile(".*")).respond_with_data("open")
    _endpoint_saved_as(acme, f"http://127.0.0.1:{httpserver.port}/")
    _endpoint_saved_as(acme, "http://127.0.0.1:9/")  # nobody listens
    emit(acme)
    run_once(clock.now)
    first, second = _deliveries()
    assert httpserver.log == []
    assert first.last_error == second.last_error and first.last_status_code is None


@pytest.mark.parametrize("settings", [{"WEBHOOK_ALLOW_NETWORKS": LOCAL}], indirect=True)
def test_the_connection_goes_to_the_address_checked_with_the_name_as_host(
    acme, names, httpserver, clock
):
    names.table["crm.example.com"] = ["127.0.0.1"]
    httpserver.expect_request("/hooks").respond_with_data("ok")
    endpoints.create_endpoint(
        acme, f"http://crm.example.com:{httpserver.port}/hooks?x=1", actor=BOSS
    )
    db.session.commit()
    names.asked.clear()
    emit(acme)
    run_once(clock.now)
    ((request, _response),) = httpserver.log
    assert request.headers["Host"] == f"crm.example.com:{httpserver.port}"
    assert request.args["x"] == "1"
    assert names.asked == ["crm.example.com"]  # resolved once: checked and connected to
    assert _deliveries()[0].status == "delivered"


@pytest.mark.parametrize("settings", [{"WEBHOOK_ALLOW_NETWORKS": LOCAL}], indirect=True)
def test_https_to_the_pinned_address_still_asks_for_the_name_in_sni(acme, names, clock, tmp_path):
    with sni_listener(tmp_path, "crm.example.com", "127.0.0.1") as tls:
        names.table["crm.example.com"] = ["127.0.0.1"]
        endpoints.create_endpoint(acme, f"https://crm.example.com:{tls.port}/in", actor=BOSS)
        db.session.commit()
        emit(acme)
        run_once(clock.now)
    assert tls.asked == ["crm.example.com"]  # the name went in SNI though 127.0.0.1 was dialled
    assert _deliveries()[0].last_error.startswith("TLS error")  # and the certificate checked
