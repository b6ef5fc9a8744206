"""The connection goes to the address the guard checked: a name that resolves to an allowed
address when checked and to a private one a moment later (DNS rebinding) still reaches only
the first, TLS still names the host (SNI, and the certificate is checked), and the
directory's host is checked and connected to the same way."""

from __future__ import annotations

import socket
from types import SimpleNamespace

import pytest

from app.services.errors import InvalidInput
from app.services.outbound import fetch
from app.services.sso import ldap, saml
from tests.sso.outbound_sites import ONLY_PUBLIC, PRIVATE, PUBLIC, Answer
from tests.tls_support import sni_listener


@pytest.fixture
def settings(settings, request):
    """Only 127.0.0.1 allowed (it stands for the public internet), short timeouts."""
    allowed = {"OUTBOUND_ALLOW_NETWORKS": ONLY_PUBLIC, "OUTBOUND_TIMEOUT_SECONDS": 1}
    return {**settings, **allowed, **getattr(request, "param", {})}


@pytest.fixture
def rebinding(names, monkeypatch):
    """`rebinding(name)`: the guard's lookup of `name` answers 127.0.0.1 first and
    127.0.0.2 after it; any other lookup of it, by any library, answers 127.0.0.2."""
    system = socket.getaddrinfo
    rebound: set[str] = set()

    def getaddrinfo(host, port, *args, **kwargs):
        if host in rebound:
            return system(PRIVATE, port, *args, **kwargs)
        return system(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)

    def rebind(name: str) -> None:
        names.table[name] = [[PUBLIC], [PRIVATE]]
        rebound.add(name)

    return rebind


def test_a_rebound_name_reaches_only_the_address_checked(app, sites, names, rebinding):
    public = sites(PUBLIC)
    private = sites(PRIVATE, public.port)  # the same port on the private address
    public.answer("/md", Answer(200, b"<metadata from the checked address/>"))
    private.fallback = Answer(200, b"<caught/>")
    rebinding("idp.rebind.test")
    url = f"http://idp.rebind.test:{public.port}/md"
    assert saml.read_metadata(url) == "<metadata from the checked address/>"
    assert names.asked == ["idp.rebind.test"]  # looked up once: checked and connected to
    assert public.requests[0].headers["Host"] == f"idp.rebind.test:{public.port}"
    # The next fetch checks the name's new address, and refuses it.
    with pytest.raises(InvalidInput, match=saml.UNREADABLE):
        saml.read_metadata(url)
    assert private.connections == 0


def test_https_to_the_checked_address_names_the_host_in_tls(app, names, tmp_path, caplog):
    caplog.set_level("INFO", logger="app.services.outbound")
    with sni_listener(tmp_path, "idp.tls.test", PUBLIC) as tls:
        names.table["idp.tls.test"] = [[PUBLIC]]
        with pytest.raises(fetch.FetchFailed):
            fetch.get(f"https://idp.tls.test:{tls.port}/md")
    assert tls.asked == ["idp.tls.test"]  # the name went in SNI though 127.0.0.1 was dialled
    assert "CERTIFICATE_VERIFY_FAILED" in caplog.text  # and the certificate was checked


# --- the directory -----------------------------------------------------------------------


@pytest.mark.parametrize("settings", [{"OUTBOUND_ALLOW_NETWORKS": ""}], indirect=True)
@pytest.mark.parametrize("url", ["ldaps://127.0.0.1", "ldaps://0x7f000001:636",
                                 "ldap://[::ffff:10.0.0.1]:389", "ldaps://localhost"])  # fmt: skip
def test_a_directory_at_an_internal_address_is_refused_when_saved(app, url):
    with pytest.raises(InvalidInput, match="only to public addresses") as refused:
        ldap.settings_from(url, "uid={login},dc=acme", start_tls=url.startswith("ldap:"))
    assert str(refused.value.field) == "url"


def directory_at(url: str) -> SimpleNamespace:
    """A provider as stored (maybe before the rules, or while its name pointed elsewhere)."""
    return SimpleNamespace(
        settings={
            "url": url,
            "bind_dn_template": "uid={login},dc=acme",
            "start_tls": False,
            "timeout_seconds": 1,
            "ca_file": None,
            "insecure_plain": True,
        }  # fmt: skip
    )


def test_a_directory_stored_at_a_private_address_is_not_connected_to(app, sites):
    private = sites(PRIVATE)
    with pytest.raises(ldap.DirectoryUnavailable):
        ldap.authenticate(directory_at(f"ldap://{PRIVATE}:{private.port}"), "jane", "pw")
    assert private.connections == 0


def test_the_directory_is_reached_at_the_address_checked(app, sites, names, rebinding):
    public = sites(PUBLIC)  # takes the connection (it speaks no LDAP: the bind fails)
    private = sites(PRIVATE, public.port)
    rebinding("dir.rebind.test")
    with pytest.raises(ldap.DirectoryUnavailable):
        ldap.authenticate(directory_at(f"ldap://dir.rebind.test:{public.port}"), "jane", "pw")
    assert names.asked == ["dir.rebind.test"]
    assert public.connections == 1 and private.connections == 0
