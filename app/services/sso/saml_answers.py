"""The checks a SAML answer must pass besides those pysaml2 makes (app/services/sso/saml),
and the person it names: the issuer, the audience and the recipient exactly ours, its time
by our clock (so that tests control it), its first use; then the login, the groups and the
session index."""

from __future__ import annotations

import logging
from calendar import timegm
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import NoReturn

from defusedxml import ElementTree
from saml2.time_util import str_to_time

from app.models.types import utcnow
from app.services.sso import replays
from app.services.sso.identity import Identity, SignInRefused

# How far apart our clock and the provider's may be.
SKEW = timedelta(minutes=2)
SIGNATURE_FAILED = "The identity provider's answer could not be trusted ({reason}). Try again."

log = logging.getLogger(__name__)

_DSIG = "{http://www.w3.org/2000/09/xmldsig#}"
# Signature and digest algorithms broken for signing: SHA-1 (collisions are practical) is
# refused unless the provider's settings allow it (`allow_sha1`); MD5 never is.
SHA1_ALGORITHMS = frozenset(
    {
        "http://www.w3.org/2000/09/xmldsig#rsa-sha1",
        "http://www.w3.org/2000/09/xmldsig#dsa-sha1",
        "http://www.w3.org/2000/09/xmldsig#hmac-sha1",
        "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha1",
        "http://www.w3.org/2000/09/xmldsig#sha1",
    }
)
MD5_ALGORITHMS = frozenset(
    {
        "http://www.w3.org/2001/04/xmldsig-more#rsa-md5",
        "http://www.w3.org/2001/04/xmldsig-more#hmac-md5",
        "http://www.w3.org/2001/04/xmldsig-more#md5",
    }
)


@dataclass(frozen=True)
class Endpoints:
    """A realm's service-provider addresses: its metadata (also its entity id), its
    assertion consumer service and its single logout service."""

    metadata: str
    acs: str
    slo: str


def refuse(reason: str, detail: str = "") -> NoReturn:
    """Refuse the answer, saying why on the page and in the log (never the answer itself:
    it names the person)."""
    log.info("SAML answer refused: %s %s", reason, detail)
    raise SignInRefused(SIGNATURE_FAILED.format(reason=reason))


def reason_of(failed: Exception) -> str:
    """Why pysaml2 refused the answer, in words for the person at the browser."""
    name = type(failed).__name__
    text = str(failed).lower()
    if name == "MissingKey":  # no key of the issuer: not the provider we know
        return "it comes from another provider"
    if "signature" in name.lower() or "signature" in text or "sigver" in name.lower():
        return "its signature is missing or not the provider's"
    if "unsolicited" in name.lower() or "recall" in text:
        return "not an answer to our request"
    if "audience" in text:
        return "it is meant for another service"
    if "too old" in text or "too early" in text or "expired" in text:
        return "it is out of date"
    return "it is malformed or not for us"


def check_algorithms(answer_xml: str, allow_sha1: bool) -> None:
    """Refuse an answer any of whose signatures uses a broken algorithm for its signature
    or one of its digests (SHA-1 unless allowed, MD5 always)."""
    refused = MD5_ALGORITHMS if allow_sha1 else MD5_ALGORITHMS | SHA1_ALGORITHMS
    root = ElementTree.fromstring(answer_xml)
    for tag in ("SignatureMethod", "DigestMethod"):
        for method in root.iter(f"{_DSIG}{tag}"):
            if method.get("Algorithm") in refused:
                refuse(
                    "it is signed with SHA-1 or MD5, which can be forged", method.get("Algorithm")
                )


def check(answer, issuer: str, endpoints: Endpoints, request_id: str) -> None:
    """What pysaml2 leaves to us, or checks against another clock: the issuer, the audience
    and the recipient are exactly ours, the times by our clock, and the first use (recorded
    in the caller's transaction)."""
    assertion = answer.assertion
    issuers = {answer.issuer(), (assertion.issuer.text or "").strip() if assertion.issuer else ""}
    if issuers != {issuer}:
        refuse("it comes from another provider")
    if answer.in_response_to != request_id:
        refuse("not an answer to our request")
    if answer.response.destination not in (None, endpoints.acs):
        refuse("it was sent elsewhere")
    conditions = assertion.conditions
    audiences = {
        (audience.text or "").strip()
        for restriction in (conditions.audience_restriction if conditions else [])
        for audience in restriction.audience
    }
    if endpoints.metadata not in audiences:
        refuse("it is meant for another service")
    bearer = [
        confirmation.subject_confirmation_data
        for confirmation in assertion.subject.subject_confirmation
        if confirmation.subject_confirmation_data is not None
    ]
    if not bearer or any(data.recipient != endpoints.acs for data in bearer):
        refuse("it was sent elsewhere")
    now = utcnow()
    # The bearer confirmation must say until when (SAML's Web SSO profile); the
    # conditions may say it too, and from when.
    if any(not data.not_on_or_after for data in bearer):
        refuse("it is out of date")
    ends = [data.not_on_or_after for data in bearer] + [conditions and conditions.not_on_or_after]
    starts = [data.not_before for data in bearer] + [conditions and conditions.not_before]
    expires = min(_instant(value) for value in ends if value)
    if now >= expires + SKEW or any(now < _instant(value) - SKEW for value in starts if value):
        refuse("it is out of date")
    if not replays.first_use(issuer, assertion.id, expires + SKEW, now):
        refuse("it was already used")


def _instant(value: str) -> datetime:
    return datetime.fromtimestamp(timegm(str_to_time(value)), UTC)


def identity_of(answer, settings: dict, logout_url: str | None) -> Identity:
    """The person the checked answer names: the login from the NameID or the login
    attribute, the groups from the console's groups attribute."""
    name_id = answer.name_id
    attributes = answer.ava or {}
    login_attribute = settings.get("login_attribute")
    if login_attribute:
        values = attributes.get(login_attribute) or []
        login = str(values[0]).strip() if values else ""
    else:
        login = (name_id.text or "").strip() if name_id is not None else ""
    if not login:
        raise SignInRefused("Your identity provider gave no login to sign you in with.")
    groups_claim = settings.get("groups_claim")
    groups = tuple(str(g) for g in attributes.get(groups_claim, [])) if groups_claim else ()
    session_indexes = [
        statement.session_index
        for statement in answer.assertion.authn_statement
        if statement.session_index
    ]
    return Identity(
        kind="saml",
        issuer=settings["idp_entity_id"],
        subject=(name_id.text or login).strip() if name_id is not None else login,
        login=login,
        groups=groups,
        session_index=session_indexes[0] if session_indexes else None,
        logout_url=logout_url,
    )
