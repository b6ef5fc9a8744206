"""SAML 2.0 sign-in: this service is the service provider, the customer's identity provider
vouches for the person (pysaml2, which checks XML signatures with Debian's `xmlsec1`).

The service provider is built per realm (a tenant's desk, or the console) from the realm's
own addresses (`Endpoints`): its entity id is its metadata URL, the provider answers its
ACS by HTTP-POST, and signing out comes back to its SLO address. An answer signs someone in
only when its assertion is signed by the configured provider's key, meant for us (audience,
recipient, destination), within its time (our clock, a small skew), in response to the
request we sent, and never seen before.
"""

from __future__ import annotations

import logging
import shutil

from saml2 import BINDING_HTTP_POST, BINDING_HTTP_REDIRECT
from saml2.client import Saml2Client
from saml2.config import SPConfig
from saml2.mdstore import MetadataStore
from saml2.metadata import create_metadata_string
from saml2.saml import NameID

from app.services.errors import InvalidInput
from app.services.fields import SAML_LOGIN_ATTRIBUTE, SAML_METADATA, SAML_URL
from app.services.outbound import fetch
from app.services.sso.identity import Identity
from app.services.sso.saml_answers import (
    SKEW,
    Endpoints,
    check,
    check_algorithms,
    identity_of,
    reason_of,
    refuse,
)

# How this module's refusals name their fields.
LOGIN_ATTRIBUTE = SAML_LOGIN_ATTRIBUTE.said_as("login_attribute")
METADATA = SAML_METADATA.said_as("metadata")
URL = SAML_URL.said_as("url")

METADATA_LIMIT = 2_000_000  # bytes: more is no provider's metadata
# Whatever went wrong reading a metadata URL (an address refused, nothing listening, a port
# that never answers, an error status, a page that is no metadata): one message, so that
# the page tells nobody which ports of the operator's network are open.
UNREADABLE = "url could not be read: the address did not answer with SAML 2.0 metadata"

# pysaml2 reports every refused answer at ERROR with parts of the answer: we say why ourselves
# (app/services/sso/saml_answers.py).
logging.getLogger("saml2").setLevel(logging.CRITICAL)


def settings_from(
    metadata_xml: str | None,
    metadata_url: str | None,
    login_attribute: str | None = None,
    console: dict | None = None,
    allow_sha1: bool = False,
) -> dict:
    """The checked settings of a SAML provider: its metadata (given, or read from the URL
    with a short timeout) must describe an identity provider with a signing certificate
    and a single sign-on address. `console` is the console's group mapping, if any;
    `allow_sha1` accepts answers signed with SHA-1 (a provider that cannot do better)."""
    metadata_xml = (metadata_xml or "").strip() or None
    metadata_url = (metadata_url or "").strip() or None
    if bool(metadata_xml) == bool(metadata_url):
        raise InvalidInput(
            "metadata is missing: give the provider's metadata as a file or a URL", field=METADATA
        )
    if metadata_url:
        metadata_xml = read_metadata(metadata_url)
        try:
            idp_entity_id = _identity_provider_in(metadata_xml)
        except NotMetadata:
            raise InvalidInput(UNREADABLE, field=URL) from None
    else:
        idp_entity_id = _identity_provider_in(metadata_xml)
    login_attribute = (login_attribute or "").strip() or None
    if login_attribute is not None and len(login_attribute) > 200:
        raise InvalidInput("login_attribute is too long", field=LOGIN_ATTRIBUTE)
    return {
        "metadata_xml": metadata_xml,
        "metadata_url": metadata_url,
        "idp_entity_id": idp_entity_id,
        "login_attribute": login_attribute,
        "allow_sha1": bool(allow_sha1),
        **(console or {}),
    }


class NotMetadata(InvalidInput):
    """The document is no SAML 2.0 metadata of an identity provider at all."""


def read_metadata(url: str) -> str:
    """The metadata document at `url` (http or https, through the outbound guard), or
    InvalidInput naming `url` (`UNREADABLE` whatever the reason, which goes to the log)."""
    if not url.lower().startswith(("https://", "http://")):
        raise InvalidInput("url must be an http or https address", field=URL)
    accept = "application/samlmetadata+xml, application/xml;q=0.9, */*;q=0.1"
    try:
        body = fetch.get(url, headers={"Accept": accept}, limit=METADATA_LIMIT)
    except fetch.FetchFailed:
        raise InvalidInput(UNREADABLE, field=URL) from None
    return body.decode("utf-8", errors="replace")


def _identity_provider_in(metadata_xml: str) -> str:
    """The entity id of the one identity provider the metadata describes, checked to have
    a signing certificate and a single sign-on address by HTTP-Redirect."""
    store = MetadataStore(None, None)
    try:
        store.load("inline", metadata_xml)
    except Exception:  # noqa: BLE001 - pysaml2 raises anything on a bad document
        raise NotMetadata("metadata is not SAML 2.0 metadata", field=METADATA) from None
    found = list(store.identity_providers())
    if not found:
        raise NotMetadata("metadata must describe one identity provider, not 0", field=METADATA)
    if len(found) != 1:
        raise InvalidInput(
            f"metadata must describe one identity provider, not {len(found)}", field=METADATA
        )
    entity_id = found[0]
    if not store.certs(entity_id, "idpsso", "signing"):
        raise InvalidInput("metadata has no signing certificate", field=METADATA)
    try:
        addresses = store.single_sign_on_service(entity_id, BINDING_HTTP_REDIRECT)
    except Exception:  # noqa: BLE001 - pysaml2 raises when the binding is not offered
        addresses = []
    if not addresses:
        raise InvalidInput(
            "metadata has no single sign-on address for HTTP-Redirect", field=METADATA
        )
    return entity_id


def _config(endpoints: Endpoints, metadata_xml: str | None) -> SPConfig:
    """Our service provider for the realm, trusting the provider the metadata describes."""
    config = SPConfig()
    config.load(
        {
            "entityid": endpoints.metadata,
            "xmlsec_binary": shutil.which("xmlsec1"),
            "metadata": {"inline": [metadata_xml]} if metadata_xml else {},
            "accepted_time_diff": int(SKEW.total_seconds()),
            "allow_unknown_attributes": True,
            "service": {
                "sp": {
                    "endpoints": {
                        "assertion_consumer_service": [(endpoints.acs, BINDING_HTTP_POST)],
                        "single_logout_service": [(endpoints.slo, BINDING_HTTP_REDIRECT)],
                    },
                    "want_assertions_signed": True,
                    "want_response_signed": False,
                    "authn_requests_signed": False,
                    "allow_unsolicited": False,
                }
            },
        }
    )
    return config


def _client(settings: dict, endpoints: Endpoints) -> Saml2Client:
    return Saml2Client(config=_config(endpoints, settings["metadata_xml"]))


def metadata(endpoints: Endpoints) -> str:
    """Our service provider's metadata for the realm, for the identity provider."""
    return create_metadata_string(None, config=_config(endpoints, None)).decode()


def _sso_address(client: Saml2Client, settings: dict) -> str:
    return client.metadata.single_sign_on_service(settings["idp_entity_id"], BINDING_HTTP_REDIRECT)[
        0
    ]["location"]


def sign_in_url(settings: dict, endpoints: Endpoints, request_id: str, relay_state: str) -> str:
    """The provider's address with our AuthnRequest `request_id` (HTTP-Redirect binding)."""
    client = _client(settings, endpoints)
    destination = _sso_address(client, settings)
    _, request = client.create_authn_request(
        destination, binding=BINDING_HTTP_POST, message_id=request_id
    )
    sent = client.apply_binding(BINDING_HTTP_REDIRECT, str(request), destination, relay_state)
    return dict(sent["headers"])["Location"]


def identity_from(
    settings: dict, endpoints: Endpoints, saml_response: str, request_id: str
) -> Identity:
    """Who the provider's answer (`SAMLResponse` as posted) signed in, once every check
    passes; SignInRefused saying why otherwise. The assertion is recorded as used."""
    client = _client(settings, endpoints)
    try:
        answer = client.parse_authn_request_response(
            saml_response, BINDING_HTTP_POST, outstanding={request_id: endpoints.acs}
        )
    except Exception as failed:  # noqa: BLE001 - pysaml2 raises plain Exception too
        refuse(reason_of(failed), type(failed).__name__)
    if answer is None or answer.assertion is None:
        refuse("not an answer to our request")
    check_algorithms(answer.xmlstr, bool(settings.get("allow_sha1")))
    check(answer, settings["idp_entity_id"], endpoints, request_id)
    return identity_of(answer, settings, _logout_address(settings))


def _logout_address(settings: dict) -> str | None:
    store = MetadataStore(None, None)
    store.load("inline", settings["metadata_xml"])
    try:
        found = store.single_logout_service(
            settings["idp_entity_id"], BINDING_HTTP_REDIRECT, "idpsso"
        )
    except Exception:  # noqa: BLE001 - none offered
        return None
    return found[0]["location"] if found else None


def sign_out_url(
    settings: dict,
    endpoints: Endpoints,
    subject: str,
    session_index: str | None,
    request_id: str,
    relay_state: str,
) -> str | None:
    """The provider's single logout address with our LogoutRequest for the person, or None
    when the provider offers no single logout by HTTP-Redirect."""
    destination = _logout_address(settings)
    if destination is None:
        return None
    client = _client(settings, endpoints)
    _, request = client.create_logout_request(
        destination,
        settings["idp_entity_id"],
        name_id=NameID(text=subject),
        session_indexes=[session_index] if session_index else None,
        expire=None,
        message_id=request_id,
    )
    sent = client.apply_binding(BINDING_HTTP_REDIRECT, str(request), destination, relay_state)
    return dict(sent["headers"])["Location"]


def signed_out(settings: dict, endpoints: Endpoints, saml_response: str, request_id: str) -> bool:
    """Whether the provider's LogoutResponse (HTTP-Redirect) answers our request and says
    the person is signed out there."""
    client = _client(settings, endpoints)
    try:
        answer = client.parse_logout_request_response(saml_response, BINDING_HTTP_REDIRECT)
    except Exception:  # noqa: BLE001 - anything malformed is simply not a sign-out
        return False
    return (
        answer is not None
        and answer.issuer() == settings["idp_entity_id"]
        and answer.in_response_to == request_id
        and answer.status_ok()
    )
