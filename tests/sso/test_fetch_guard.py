"""The sign-in settings' fetches go only to addresses the outbound guard allows: a SAML
metadata URL or an OpenID issuer spelling an internal address in any way is refused before
any connection, as is a redirect to one, and so are the keys, token and user info addresses
a provider's document names (the client secret never goes there). Whatever went wrong, the
supervisor's page says one thing: a closed port, a 404, a page that is no metadata, a port
that never answers and a refused address look alike."""

from __future__ import annotations

import json
import time

import pytest

from app.services.errors import InvalidInput
from app.services.sso import oidc, oidc_published, saml
from tests.admin.conftest import find_form, form_values, page, soup
from tests.sso.outbound_sites import ONLY_PUBLIC, PRIVATE, PUBLIC, Answer, closed_port
from tests.sso.saml_fixtures import identity_provider  # noqa: F401 - a fixture
from tests.sso.test_saml_settings_page import post_saml

REFUSED_BY_GUARD = "only to public addresses"
SPELLINGS = ["127.0.0.1", "0x7f000001", "2130706433", "017700000001", "127.1", "[::1]",
             "[::ffff:127.0.0.1]", "localhost", "169.254.169.254", "10.0.0.5",
             "intranet.example"]  # fmt: skip


@pytest.fixture
def settings(settings, request):
    """Only 127.0.0.1 allowed (it stands for the public internet), short timeouts."""
    allowed = {"OUTBOUND_ALLOW_NETWORKS": ONLY_PUBLIC, "OUTBOUND_TIMEOUT_SECONDS": 0.5}
    return {**settings, **allowed, **getattr(request, "param", {})}


@pytest.fixture(autouse=True)
def _fresh_provider_documents():
    oidc_published.forget_cached()
    yield
    oidc_published.forget_cached()


def discovery_document(issuer: str, **endpoints: str) -> bytes:
    return json.dumps(
        {
            "issuer": issuer,
            "authorization_endpoint": f"{issuer}/auth",
            "token_endpoint": f"{issuer}/token",
            "jwks_uri": f"{issuer}/jwks",
            "userinfo_endpoint": f"{issuer}/me",
            **endpoints,
        }
    ).encode()


# --- every spelling of an internal address --------------------------------------------------


@pytest.mark.parametrize("settings", [{"OUTBOUND_ALLOW_NETWORKS": ""}], indirect=True)
@pytest.mark.parametrize("host", SPELLINGS)
def test_an_internal_metadata_url_is_refused_before_any_connection(
    app,
    sites,
    names,
    host,
    caplog,
    identity_provider,  # noqa: F811
):
    site = sites(PUBLIC)
    site.answer("/md", Answer(200, identity_provider.metadata().encode()))
    names.table["intranet.example"] = [["10.1.2.3"]]
    caplog.set_level("INFO", logger="app.services.outbound")
    with pytest.raises(InvalidInput) as refused:
        saml.settings_from(None, f"http://{host}:{site.port}/md")
    assert site.connections == 0
    assert str(refused.value) == saml.UNREADABLE and str(refused.value.field) == "url"
    assert REFUSED_BY_GUARD in caplog.text  # the guard said no (in the log only)


@pytest.mark.parametrize("settings", [{"OUTBOUND_ALLOW_NETWORKS": ""}], indirect=True)
@pytest.mark.parametrize("host", SPELLINGS)
def test_an_internal_issuer_is_refused_before_any_connection(app, sites, names, host, caplog):
    site = sites(PUBLIC)
    site.fallback = Answer(200, discovery_document(f"https://{host}:{site.port}"))
    names.table["intranet.example"] = [["10.1.2.3"]]
    caplog.set_level("INFO", logger="app.services.outbound")
    with pytest.raises(InvalidInput) as refused:
        oidc.settings_from(f"https://{host}:{site.port}", "desk-app")
    assert site.connections == 0
    assert str(refused.value).startswith("issuer could not be read")
    assert str(refused.value.field) == "issuer"
    assert REFUSED_BY_GUARD in caplog.text


# --- redirects, hop by hop -------------------------------------------------------------------


def test_a_metadata_url_redirecting_to_a_private_host_is_refused_at_the_hop(
    app,
    sites,
    identity_provider,  # noqa: F811
):
    public, private = sites(PUBLIC), sites(PRIVATE)
    private.answer("/md", Answer(200, identity_provider.metadata().encode()))
    public.redirect("/md", f"{private.base}/md")
    public.redirect("/moved", f"{public.base}/here")
    public.answer("/here", Answer(200, identity_provider.metadata().encode()))
    with pytest.raises(InvalidInput) as refused:
        saml.settings_from(None, f"{public.base}/md")
    assert private.connections == 0
    assert str(refused.value) == saml.UNREADABLE
    # A redirect to an allowed address is followed.
    assert saml.settings_from(None, f"{public.base}/moved")["idp_entity_id"]


def test_a_redirect_to_another_scheme_is_not_followed(app, sites):
    public, other = sites(PUBLIC), sites(PUBLIC)
    public.redirect("/md", f"ftp://{PUBLIC}:{other.port}/md")
    with pytest.raises(InvalidInput) as refused:
        saml.settings_from(None, f"{public.base}/md")
    assert str(refused.value) == saml.UNREADABLE
    assert other.connections == 0


def test_a_discovery_redirecting_to_a_private_host_is_refused_at_the_hop(app, sites):
    public, private = sites(PUBLIC), sites(PRIVATE)
    private.fallback = Answer(200, discovery_document(public.base))
    public.redirect("/.well-known/openid-configuration", f"{private.base}/discovery", 307)
    with pytest.raises(InvalidInput) as refused:
        oidc.settings_from(public.base, "desk-app")
    assert private.connections == 0
    assert str(refused.value).startswith("issuer could not be read")


# --- the addresses a provider's document names ---------------------------------------------


PENDING = {"state": "s", "nonce": "n", "verifier": "v" * 43, "redirect_uri": "http://localhost/cb"}


@pytest.fixture
def provider_naming_a_private_host(sites):
    """A provider on the allowed address whose document sends keys, token and user info
    to a private host (where a site would answer anything)."""
    public, private = sites(PUBLIC), sites(PRIVATE)
    private.fallback = Answer(200, b'{"keys": [], "access_token": "t", "id_token": "x.y.z"}')
    document = discovery_document(
        public.base,
        token_endpoint=f"{private.base}/token",
        jwks_uri=f"{private.base}/jwks",
        userinfo_endpoint=f"{private.base}/me",
    )
    public.answer("/.well-known/openid-configuration", Answer(200, document))
    return public, private


def test_the_client_secret_never_goes_to_a_private_token_endpoint(
    app, provider_naming_a_private_host
):
    public, private = provider_naming_a_private_host
    settings = oidc.settings_from(public.base, "desk-app")
    with pytest.raises(oidc.ProviderUnavailable):
        oidc.exchange_code(settings, "s3cret-of-the-client", "a-code", PENDING)
    assert private.connections == 0


def test_a_token_endpoint_redirect_is_not_followed_with_the_secret(app, sites):
    public, private = sites(PUBLIC), sites(PRIVATE)
    public.answer("/.well-known/openid-configuration", Answer(200, discovery_document(public.base)))
    public.redirect("/token", f"{private.base}/token", 307)  # a 307 would resend the body
    settings = {
        **oidc.settings_from(public.base, "desk-app"),
        "token_auth_method": "client_secret_post",
    }
    with pytest.raises(oidc.ProviderUnavailable):
        oidc.exchange_code(settings, "s3cret-of-the-client", "a-code", PENDING)
    assert [r.path for r in public.requests][-1] == "/token"
    assert private.connections == 0


def test_keys_and_user_info_at_a_private_host_are_not_fetched(app, provider_naming_a_private_host):
    public, private = provider_naming_a_private_host
    settings = oidc.settings_from(public.base, "desk-app")
    with pytest.raises(oidc.ProviderUnavailable):
        oidc_published.key_set(public.base, "any-key")
    with pytest.raises(oidc.ProviderUnavailable):
        oidc._userinfo(settings, "an-access-token", "alice")
    assert private.connections == 0


# --- the log ---------------------------------------------------------------------------------


@pytest.mark.parametrize("outcome", ["closed", "silent"])
def test_a_failed_fetch_logs_no_query(app, silent_port, outcome, caplog):
    caplog.set_level("INFO", logger="app.services.outbound")
    port = closed_port() if outcome == "closed" else silent_port
    with pytest.raises(InvalidInput):
        saml.settings_from(None, f"http://{PUBLIC}:{port}/md?key=s3cret-in-the-query")
    assert f"{PUBLIC}:{port}/md" in caplog.text  # the address and path, for the operator
    assert "s3cret-in-the-query" not in caplog.text


# --- one message on the page ----------------------------------------------------------------

OUTCOMES = ["refused", "closed", "not-found", "html", "silent"]


@pytest.fixture
def address_of(sites, silent_port, identity_provider):  # noqa: F811
    """The base URL of an address that, asked for anything, comes to `outcome`."""

    def address(outcome: str) -> str:
        if outcome == "closed":
            return f"http://{PUBLIC}:{closed_port()}"
        if outcome == "silent":
            return f"http://{PUBLIC}:{silent_port}"
        site = sites(PRIVATE if outcome == "refused" else PUBLIC)
        if outcome == "refused":  # a private host that would answer exactly what is asked
            metadata = identity_provider.metadata().encode()
            site.answer("/md", Answer(200, metadata))
            site.answer(
                "/.well-known/openid-configuration", Answer(200, discovery_document(site.base))
            )
        if outcome == "html":
            site.fallback = Answer(200, b"<html><body>Welcome</body></html>")
        # https: an issuer's plain http is for this machine's own 127.0.0.1 only.
        return site.base.replace("http:", "https:") if outcome == "refused" else site.base

    return address


def shown_refusal(answer) -> str:
    assert answer.status_code == 422
    main = soup(answer).find("main")
    return " ".join(e.get_text(" ", strip=True) for e in main.select("[role=alert], .field-error"))


@pytest.mark.parametrize("outcome", OUTCOMES)
def test_every_failed_metadata_url_shows_the_same_message(signed_in, acme, address_of, outcome):
    started = time.monotonic()
    answer = post_saml(signed_in, acme, metadata_url=f"{address_of(outcome)}/md")
    assert shown_refusal(answer) == saml.UNREADABLE
    assert time.monotonic() - started < 3


def post_oidc(client, tenant, issuer: str):
    url = f"/tenants/{tenant.id}/sign-in"
    values = form_values(find_form(page(client, url), url + "/oidc"))
    for name, value in {"issuer": issuer, "client_id": "desk-app", "client_secret": "s3"}.items():
        values.setlist(name, [value])
    return client.post(url + "/oidc", data=dict(values.items()))


@pytest.mark.parametrize("outcome", OUTCOMES)
def test_every_failed_issuer_shows_the_same_message(signed_in, acme, address_of, outcome):
    issuer = address_of(outcome)
    started = time.monotonic()
    shown = shown_refusal(post_oidc(signed_in, acme, issuer))
    assert shown.replace(issuer, "ISSUER") == (
        "issuer could not be read: the address did not answer with an OpenID provider's"
        " discovery document (ISSUER/.well-known/openid-configuration)"
    )
    assert time.monotonic() - started < 3
