"""SAML 2.0 sign-in against a real identity provider (pysaml2's IdP, tests/sso/saml_idp.py):
an agent through the whole redirect and POST, every answer that must not sign anyone in
(each changing nothing), a supervisor by their groups, our metadata, and single logout."""

from __future__ import annotations

import socket
import time
from datetime import timedelta
from urllib.parse import urlsplit
from xml.etree import ElementTree

import pytest
import requests
from bs4 import BeautifulSoup
from click.testing import CliRunner
from sqlalchemy import func, select

from app.extensions import db
from app.models import AgentSession, AuditRecord, ProviderKind, SeenAssertion, Supervisor
from app.models.types import utcnow
from app.services.errors import InvalidInput
from app.services.sso import providers, saml, saml_answers
from tests.admin.conftest import PASSWORD, csrf_token, soup
from tests.conftest import SETUP, make_tenant
from tests.desk.desk_support import AGENT, make_agent
from tests.sso.saml_fixtures import identity_provider  # noqa: F401 - a fixture
from tests.sso.saml_idp import Person, query_of

PAGE = "/desk/login/Acme/prod"
START = "/desk/sso/Acme/prod/start"
ACS = "/desk/sso/Acme/prod/saml/acs"
METADATA = "/desk/sso/Acme/prod/saml/metadata"
MD = "urn:oasis:names:tc:SAML:2.0:metadata"


@pytest.fixture
def idp(identity_provider):  # noqa: F811
    identity_provider.people.clear()
    identity_provider.people[AGENT] = Person(PASSWORD)
    identity_provider.signed_out.clear()
    return identity_provider


@pytest.fixture
def acme(app, idp, client):
    """Acme, its agent Ann, and the identity provider set from its metadata URL, which
    knows the desk by the desk's metadata."""
    tenant, _ = make_tenant()
    make_agent(tenant)
    settings = saml.settings_from(None, f"{idp.base_url}/metadata")
    providers.set_provider(tenant, ProviderKind.SAML, settings, actor=SETUP)
    db.session.commit()
    idp.trust(client.get(METADATA).text)
    return tenant


def onward(answer) -> str:
    """Where the page answering a sign-in or sign-out button sends the browser at once (a
    redirect would break the button's page's form-action 'self')."""
    assert answer.status_code == 200, answer.status_code
    page = soup(answer)
    refresh = page.find("meta", attrs={"http-equiv": "refresh"})["content"]
    address = page.find("a", string="Continue to your identity provider")["href"]
    assert refresh == f"0; url={address}"
    return address


def start(client, page=PAGE, url=START) -> dict[str, str]:
    """Press the sign-in button; the query of the address at the provider it leads to."""
    token = csrf_token(soup(client.get(page)))
    return query_of(onward(client.post(url, data={"csrf_token": token})))


def form_of(html: str) -> tuple[str, dict[str, str]]:
    form = BeautifulSoup(html, "html.parser").find("form")
    fields = {i["name"]: i.get("value", "") for i in form.find_all("input") if i.get("name")}
    return form["action"], fields


def through_the_provider(client, idp, login=AGENT, password=PASSWORD, page=PAGE, url=START):
    """The whole dance as a browser does it: our redirect, the provider's form, its answer
    posted back to us."""
    location = client.post(url, data={"csrf_token": csrf_token(soup(client.get(page)))})
    sign_in_page = requests.get(onward(location), timeout=5)
    assert sign_in_page.status_code == 200
    action, fields = form_of(sign_in_page.text)
    fields.update(username=login, password=password)
    answered = requests.post(idp.base_url + action, data=fields, timeout=5)
    assert answered.status_code == 200, answered.text
    acs, posted = form_of(answered.text)
    return client.post(urlsplit(acs).path, data=posted)


def signed_in_sessions() -> int:
    return db.session.scalar(select(func.count()).select_from(AgentSession))


def test_an_agent_signs_in_through_the_provider(client, acme, idp):
    answer = through_the_provider(client, idp)
    assert answer.status_code == 302 and answer.headers["Location"] == "/desk"
    assert client.get("/desk").status_code == 200
    assert db.session.scalar(select(func.count()).select_from(SeenAssertion)) == 1


def test_the_provider_refuses_a_wrong_password_and_nothing_reaches_us(client, acme, idp):
    location = client.post(START, data={"csrf_token": csrf_token(soup(client.get(PAGE)))})
    action, fields = form_of(requests.get(onward(location), timeout=5).text)
    fields.update(username=AGENT, password="not it")
    assert requests.post(idp.base_url + action, data=fields, timeout=5).status_code == 401
    assert client.get("/desk").status_code == 302


def post_answer(client, query, acs_and_response, relay_state=None):
    acs, encoded = acs_and_response
    relay = query["RelayState"] if relay_state is None else relay_state
    return client.post(urlsplit(acs).path, data={"SAMLResponse": encoded, "RelayState": relay})


def refused(answer, words: str, sessions: int = 0) -> None:
    assert answer.status_code == 400, answer.status_code
    assert words in answer.text
    assert signed_in_sessions() == sessions


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        ({"signed": False}, "signature is missing or not the provider"),
        ({"by": "forger"}, "signature is missing or not the provider"),
        ({"by": "stranger"}, "comes from another provider"),
        ({"audience": "https://elsewhere.example/sp"}, "meant for another service"),
        ({"in_response_to": "id-another-request"}, "not an answer to our request"),
    ],
    ids=["unsigned", "another-key", "unknown-issuer", "wrong-audience", "other-request"],
)
def test_an_answer_that_cannot_be_trusted_signs_nobody_in(client, acme, idp, fault, words):
    query = start(client)
    answer = post_answer(client, query, idp.answer(query["SAMLRequest"], AGENT, **fault))
    refused(answer, words)
    assert db.session.scalar(select(func.count()).select_from(SeenAssertion)) == 0
    assert client.get("/desk").status_code == 302


SHA1_SIGNATURE = "http://www.w3.org/2000/09/xmldsig#rsa-sha1"
SHA1_DIGEST = "http://www.w3.org/2000/09/xmldsig#sha1"
SHA256_SIGNATURE = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
SHA256_DIGEST = "http://www.w3.org/2001/04/xmlenc#sha256"


@pytest.mark.parametrize(
    ("sign_alg", "digest_alg"),
    [
        (SHA1_SIGNATURE, SHA1_DIGEST),
        (SHA1_SIGNATURE, SHA256_DIGEST),
        (SHA256_SIGNATURE, SHA1_DIGEST),
    ],
    ids=["sha1-both", "sha1-signature", "sha1-digest"],
)
def test_an_answer_signed_with_sha1_is_refused_by_default(client, acme, idp, sign_alg, digest_alg):
    query = start(client)
    response = idp.answer(query["SAMLRequest"], AGENT, sign_alg=sign_alg, digest_alg=digest_alg)
    refused(post_answer(client, query, response), "signed with SHA-1 or MD5")
    assert db.session.scalar(select(func.count()).select_from(SeenAssertion)) == 0


def test_a_provider_allowed_sha1_signs_in_with_it(client, acme, idp):
    settings = saml.settings_from(None, f"{idp.base_url}/metadata", allow_sha1=True)
    providers.set_provider(acme, ProviderKind.SAML, settings, actor=SETUP)
    db.session.commit()
    query = start(client)
    response = idp.answer(
        query["SAMLRequest"], AGENT, sign_alg=SHA1_SIGNATURE, digest_alg=SHA1_DIGEST
    )
    assert post_answer(client, query, response).status_code == 302
    assert signed_in_sessions() == 1


def test_an_answer_signed_with_sha256_signs_in(client, acme, idp):
    query = start(client)
    response = idp.answer(
        query["SAMLRequest"], AGENT, sign_alg=SHA256_SIGNATURE, digest_alg=SHA256_DIGEST
    )
    assert post_answer(client, query, response).status_code == 302


@pytest.mark.parametrize(
    ("saml_response", "words"),
    [("", "answer is missing"), ("not base64 !!", "could not be trusted"),
     ("PGh0bWw+PC9odG1sPg==", "could not be trusted")],  # <html></html>
    ids=["missing", "not-base64", "not-saml"],
)  # fmt: skip
def test_a_malformed_answer_gets_a_page_not_an_error(client, acme, saml_response, words):
    query = start(client)
    answer = client.post(
        ACS, data={"SAMLResponse": saml_response, "RelayState": query["RelayState"]}
    )
    refused(answer, words)


def test_a_replayed_answer_is_refused(client, acme, idp):
    query = start(client)
    response = idp.answer(query["SAMLRequest"], AGENT)
    assert post_answer(client, query, response).status_code == 302
    other = type(client)(client.application, client.response_wrapper, use_cookies=True)
    refused(post_answer(other, query, response), "already used", sessions=1)
    assert other.get("/desk").status_code == 302


def test_a_tampered_or_foreign_relay_state_is_refused(client, acme, idp):
    query = start(client)
    response = idp.answer(query["SAMLRequest"], AGENT)
    refused(post_answer(client, query, response, query["RelayState"] + "x"), "Start it again")
    # Another sign-in's RelayState: the answer is not to the request it names.
    other = start(client)
    refused(post_answer(client, query, response, other["RelayState"]), "not an answer to our")


@pytest.mark.parametrize(
    "minutes",
    [8, -8],  # its life is 5 minutes from now, the skew 2 minutes
    ids=["expired", "not-yet-valid"],
)
def test_an_answer_out_of_its_time_is_refused_by_our_clock(client, acme, idp, monkeypatch, minutes):
    query = start(client)
    response = idp.answer(query["SAMLRequest"], AGENT)
    then = utcnow() + timedelta(minutes=minutes)
    monkeypatch.setattr(saml_answers, "utcnow", lambda: then)
    refused(post_answer(client, query, response), "out of date")
    monkeypatch.setattr(saml_answers, "utcnow", utcnow)
    assert post_answer(client, query, response).status_code == 302  # in its time, taken


def test_a_person_the_tenant_has_no_agent_for_is_refused_and_nothing_is_made(client, acme, idp):
    idp.people["zed@acme.example"] = Person(PASSWORD)
    answer = through_the_provider(client, idp, login="zed@acme.example")
    assert answer.status_code == 403
    assert "has no agent &#39;zed@acme.example&#39;" in answer.text
    assert signed_in_sessions() == 0
    assert db.session.scalar(select(func.count()).select_from(SeenAssertion)) == 0


def test_the_login_attribute_names_the_agent_in_place_of_the_name_id(client, acme, idp):
    query = start(client)
    opaque = idp.answer(query["SAMLRequest"], AGENT, name_id="u-93c1f0")
    answer = post_answer(client, query, opaque)
    assert answer.status_code == 403 and "has no agent &#39;u-93c1f0&#39;" in answer.text
    settings = {**providers.provider_for(acme).settings, "login_attribute": "mail"}
    providers.set_provider(acme, ProviderKind.SAML, settings, actor=SETUP)
    db.session.commit()
    query = start(client)
    answer = post_answer(client, query, idp.answer(query["SAMLRequest"], AGENT, name_id="u-93c1f0"))
    assert answer.status_code == 302 and client.get("/desk").status_code == 200


def test_a_provider_that_does_not_answer_is_given_up_on_quickly(app, monkeypatch):
    listener = socket.create_server(("127.0.0.1", 0))  # accepts, never answers
    monkeypatch.setitem(app.config, "OUTBOUND_TIMEOUT_SECONDS", 0.5)
    started = time.monotonic()
    with listener, pytest.raises(InvalidInput, match="could not be read"):
        saml.settings_from(None, f"http://127.0.0.1:{listener.getsockname()[1]}/metadata")
    assert time.monotonic() - started < 3


def test_a_get_on_the_answer_address_goes_back_to_the_sign_in_page(client, acme):
    answer = client.get(ACS)
    assert answer.status_code == 302 and answer.headers["Location"].startswith(PAGE)


def test_our_metadata_names_our_addresses_at_a_stable_url(client, acme):
    first, again = client.get(METADATA), client.get(METADATA)
    assert first.status_code == 200 and first.mimetype == "application/samlmetadata+xml"
    assert first.text == again.text
    descriptor = ElementTree.fromstring(first.text)
    assert descriptor.tag == f"{{{MD}}}EntityDescriptor"
    assert descriptor.get("entityID") == "http://localhost" + METADATA
    sp = descriptor.find(f"{{{MD}}}SPSSODescriptor")
    assert sp.get("WantAssertionsSigned") == "true"
    acs = sp.find(f"{{{MD}}}AssertionConsumerService")
    assert acs.get("Location") == "http://localhost" + ACS
    assert acs.get("Binding") == "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"
    slo = sp.find(f"{{{MD}}}SingleLogoutService").get("Location")
    assert slo == "http://localhost/desk/sso/Acme/prod/saml/slo"
    assert client.get("/desk/sso/Nobody/prod/saml/metadata").status_code == 404


def test_signing_out_signs_out_at_the_provider_too(client, acme, idp):
    assert through_the_provider(client, idp).status_code == 302
    token = csrf_token(soup(client.get("/desk")))
    at_provider = onward(client.post("/desk/logout", data={"csrf_token": token}))
    assert at_provider.startswith(idp.base_url + "/slo?SAMLRequest=")
    back = requests.get(at_provider, allow_redirects=False, timeout=5)
    assert back.status_code == 302 and idp.signed_out == [AGENT]
    slo = urlsplit(back.headers["Location"])
    assert slo.path == "/desk/sso/Acme/prod/saml/slo"
    returned = client.get(f"{slo.path}?{slo.query}")
    assert returned.status_code == 302 and returned.headers["Location"].startswith(PAGE)
    assert "signed out at your identity provider too" in client.get(PAGE).text
    assert client.get("/desk").status_code == 302


@pytest.mark.parametrize(
    ("metadata_xml", "metadata_url", "field"),
    [
        (None, None, "metadata"),
        ("<not-metadata/>", None, "metadata"),
        ("this is not XML", None, "metadata"),
        (None, "ftp://idp.example/metadata", "url"),
        (None, "http://127.0.0.1:9/metadata", "url"),
    ],
)
def test_settings_that_are_not_an_identity_providers_are_refused(
    app, metadata_xml, metadata_url, field
):
    with pytest.raises(InvalidInput) as refusal:
        saml.settings_from(metadata_xml, metadata_url)
    assert str(refusal.value.field) == field


def test_metadata_without_a_redirect_sign_on_address_is_refused(app, idp):
    redirect = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"
    only_post = idp.metadata().replace(
        f'SingleSignOnService Binding="{redirect}"',
        'SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"',
    )
    assert only_post != idp.metadata()
    with pytest.raises(InvalidInput, match="no single sign-on address for HTTP-Redirect"):
        saml.settings_from(only_post, None)


def test_metadata_without_a_signing_certificate_is_refused(app, idp):
    stripped = idp.metadata()
    start_at, end_at = stripped.index("<ns0:KeyDescriptor"), stripped.index("</ns0:KeyDescriptor>")
    stripped = stripped[:start_at] + stripped[end_at + len("</ns0:KeyDescriptor>") :]
    with pytest.raises(InvalidInput, match="no signing certificate"):
        saml.settings_from(stripped, None)


# The console: supervisors by their groups.


@pytest.fixture
def console(app, idp, client, tmp_path):
    make_tenant()
    make_tenant("Beta", queues=("Sales",), campaigns_=())
    metadata_file = tmp_path / "idp.xml"
    metadata_file.write_text(idp.metadata())
    result = CliRunner().invoke(
        app.cli,
        ["sso", "saml", "--console", "--metadata", str(metadata_file),
         "--tenant-group", "acme-sup=Acme/prod"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "http://localhost:9443/sso/saml/metadata" in result.output
    idp.trust(client.get("/sso/saml/metadata").text)
    return providers.provider_for(None)


def test_a_supervisor_signs_in_to_the_console_with_the_tenants_their_groups_give(
    client, console, idp
):
    idp.people["sue@example.com"] = Person(PASSWORD, groups=("acme-sup", "other"))
    answer = through_the_provider(
        client, idp, login="sue@example.com", page="/login", url="/sso/start"
    )
    assert answer.status_code == 302 and answer.headers["Location"] == "/tenants"
    sue = db.session.scalar(select(Supervisor).filter_by(email="sue@example.com"))
    assert [t.label for t in sue.tenants] == ["Acme/prod"] and not sue.all_tenants
    assert client.get("/tenants").status_code == 200
    assert db.session.query(AuditRecord).filter_by(action="supervisor.added").count() == 1


def test_a_person_whose_groups_grant_nothing_gets_no_console(client, console, idp):
    idp.people["max@example.com"] = Person(PASSWORD, groups=("marketing",))
    answer = through_the_provider(
        client, idp, login="max@example.com", page="/login", url="/sso/start"
    )
    assert answer.status_code == 403
    assert db.session.scalar(select(func.count()).select_from(Supervisor)) == 0


def test_the_cli_sets_a_tenants_provider_from_its_metadata_url(app, idp):
    tenant, _ = make_tenant()
    result = CliRunner().invoke(
        app.cli,
        ["sso", "saml", "Acme", "prod", "--metadata", f"{idp.base_url}/metadata",
         "--login-attribute", "mail"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "/desk/sso/Acme/prod/saml/metadata" in result.output
    shown = providers.describe(providers.provider_for(tenant))
    assert shown["idp_entity_id"] == idp.entity_id and shown["login_attribute"] == "mail"


def test_the_cli_accepts_sha1_only_when_told_and_says_so(app, idp):
    tenant, _ = make_tenant()
    metadata = ["sso", "saml", "Acme", "prod", "--metadata", f"{idp.base_url}/metadata"]
    plain = CliRunner().invoke(app.cli, metadata)
    assert plain.exit_code == 0 and "SHA-1" not in plain.output
    assert providers.provider_for(tenant).settings["allow_sha1"] is False
    allowed = CliRunner().invoke(app.cli, [*metadata, "--allow-sha1"])
    assert allowed.exit_code == 0, allowed.output
    assert "Warning: answers signed with SHA-1 are accepted." in allowed.output
    assert providers.provider_for(tenant).settings["allow_sha1"] is True


def test_a_supervisor_signing_out_signs_out_at_the_provider_too(client, console, idp):
    idp.people["sue@example.com"] = Person(PASSWORD, groups=("acme-sup",))
    through_the_provider(client, idp, login="sue@example.com", page="/login", url="/sso/start")
    token = csrf_token(soup(client.get("/logout")))
    at_provider = onward(client.post("/logout", data={"csrf_token": token}))
    back = requests.get(at_provider, allow_redirects=False, timeout=5)
    assert idp.signed_out == ["sue@example.com"]
    slo = urlsplit(back.headers["Location"])
    assert slo.path == "/sso/saml/slo"
    returned = client.get(f"{slo.path}?{slo.query}")
    assert returned.status_code == 302 and returned.headers["Location"] == "/login"
    assert "signed out at your identity provider too" in client.get("/login").text
    assert client.get("/tenants").status_code == 302
