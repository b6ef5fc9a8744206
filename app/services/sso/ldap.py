"""Directory sign-in: an agent's own directory user name and password, checked by binding to
the tenant's LDAP directory as that user (no service account, nothing searched).

The bind DN is the tenant's template with the login in place of `{login}`, escaped as a DN
attribute value (RFC 4514), so no login can name another entry. An empty password is
refused before anything is sent: a simple bind with a DN and no password is an anonymous
bind, which most directories accept. The password travels only over TLS (`ldaps://`, or
StartTLS on `ldap://`), the server's certificate and name checked, unless the operator asked
for plain LDAP in a lab. Every step waits at most `timeout_seconds`: a directory that does
not answer is a clear refusal (`DirectoryUnavailable`), never a worker held.

The directory's host goes through the outbound guard (`app/services/outbound/addresses.py`)
when the settings are saved and again at each sign-in: the connection goes to the very
address checked, TLS still checking the certificate against the configured name. A host
refused then is the same `DirectoryUnavailable` as a directory that does not answer.

ldap3 (pure Python) talks to the directory: `make run` needs no system library, and each
sign-in opens and closes its own connection.
"""

from __future__ import annotations

import logging
import os
import re
import ssl
from typing import Any
from urllib.parse import urlsplit

from ldap3 import NONE, SIMPLE, Connection, Server, Tls
from ldap3.core.exceptions import LDAPException
from ldap3.utils.dn import parse_dn

from app.models import IdentityProvider
from app.services.errors import InvalidInput, ServiceError
from app.services.fields import LDAP_CA_FILE, LDAP_START_TLS, LDAP_TEMPLATE, LDAP_TIMEOUT, LDAP_URL
from app.services.outbound import addresses
from app.services.sso.identity import Identity

# How this module's refusals name their fields.
CA_FILE = LDAP_CA_FILE.said_as("ca_file")
START_TLS = LDAP_START_TLS.said_as("start_tls")
TIMEOUT = LDAP_TIMEOUT.said_as("timeout_seconds")
URL = LDAP_URL.said_as("url")

log = logging.getLogger(__name__)

PLACEHOLDER = "{login}"
DEFAULT_TIMEOUT = 5
MAX_TIMEOUT = 10
MAX_LOGIN = 256
MAX_PASSWORD = 1024
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class DirectoryUnavailable(ServiceError):
    """The directory did not answer in time, or could not be reached securely."""

    def __init__(self) -> None:
        super().__init__(
            "Your company's directory is not answering, so nobody can sign in with it just "
            "now. Try again in a few minutes; tell your supervisor if it goes on."
        )


def settings_from(
    url: str,
    bind_dn_template: str,
    start_tls: bool = False,
    timeout_seconds: int | float | None = DEFAULT_TIMEOUT,
    ca_file: str | None = None,
    *,
    insecure_plain: bool = False,
) -> dict[str, Any]:
    """The checked settings of a directory: `ldaps://host[:port]`, or `ldap://host[:port]`
    with StartTLS (plain `ldap://` only with `insecure_plain`, for a lab); a bind DN template
    with `{login}` as one attribute's whole value; a timeout of 1 to 10 seconds; an optional
    file of CA certificates (PEM) that the server's certificate must chain to."""
    scheme, host, port = _parse_url(url)
    _check_host(host, port)
    if scheme == "ldaps" and start_tls:
        raise InvalidInput(
            "start_tls is for ldap:// URLs; ldaps:// is TLS already", field=START_TLS
        )
    if scheme == "ldap" and not start_tls and not insecure_plain:
        raise InvalidInput(
            "start_tls is needed for an ldap:// URL (else passwords cross the network in the "
            "clear); or use ldaps://",
            field=START_TLS,
        )
    _check_template(bind_dn_template)
    timeout = DEFAULT_TIMEOUT if timeout_seconds is None else timeout_seconds
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise InvalidInput("timeout_seconds must be a number of seconds", field=TIMEOUT)
    if not 1 <= timeout <= MAX_TIMEOUT:
        raise InvalidInput(f"timeout_seconds must be from 1 to {MAX_TIMEOUT}", field=TIMEOUT)
    ca_file = (ca_file or "").strip() or None
    if ca_file is not None:
        _check_ca_file(ca_file)
    plain = scheme == "ldap" and not start_tls
    return {
        "url": f"{scheme}://{_host_in_url(host)}:{port}",
        "bind_dn_template": bind_dn_template.strip(),
        "start_tls": bool(start_tls),
        "timeout_seconds": timeout,
        "ca_file": None if plain else ca_file,
        "insecure_plain": plain,
    }


def _parse_url(url: str) -> tuple[str, str, int]:
    try:
        parts = urlsplit((url or "").strip())
        port = parts.port
    except ValueError:
        raise InvalidInput("url is not a valid ldap:// or ldaps:// URL", field=URL) from None
    scheme = parts.scheme.lower()
    if scheme not in ("ldap", "ldaps") or not parts.hostname:
        raise InvalidInput("url must be ldaps://host[:port] or ldap://host[:port]", field=URL)
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise InvalidInput("url names only the scheme, the host and the port", field=URL)
    return scheme, parts.hostname, port or (636 if scheme == "ldaps" else 389)


def _check_host(host: str, port: int) -> None:
    """A directory at an address the service may connect to (or a name not resolving yet:
    each sign-in checks it again)."""
    try:
        addresses.check_host(host, port)
    except addresses.AddressRefused as refused:
        raise InvalidInput(f"url: {refused}", field=URL) from None


def _host_in_url(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _check_template(template: str) -> None:
    template = (template or "").strip()
    where = LDAP_TEMPLATE.said_as("bind_dn_template")
    if template.count(PLACEHOLDER) != 1 or template.replace(PLACEHOLDER, "").count("{"):
        raise InvalidInput(
            f"{where} must hold {PLACEHOLDER} once, and no other braces", field=where
        )
    try:
        rdns = parse_dn(template.replace(PLACEHOLDER, "placeholder"), escape=False)
    except LDAPException:
        rdns = []
    holder = [attribute for attribute, value, _ in rdns if value == "placeholder"]
    if len(rdns) < 2 or len(holder) != 1:
        raise InvalidInput(
            f"{where} must be a DN with {PLACEHOLDER} as one attribute's value, such as "
            "uid={login},ou=people,dc=example,dc=org",
            field=where,
        )


def _check_ca_file(ca_file: str) -> None:
    if not os.path.isfile(ca_file):
        raise InvalidInput(f"ca_file {ca_file} is not a file here", field=CA_FILE)
    try:
        ssl.create_default_context(cafile=ca_file)
    except (OSError, ssl.SSLError):
        raise InvalidInput(f"ca_file {ca_file} holds no PEM certificate", field=CA_FILE) from None


def escape_dn_value(value: str) -> str:
    """The value escaped for a DN (RFC 4514 section 2.4): special characters, a leading
    `#` or space and a trailing space lose their meaning."""
    escaped = "".join(f"\\{char}" if char in '\\,+"<>;=' else char for char in value)
    escaped = escaped.replace("\x00", "\\00")
    if escaped[:1] in ("#", " "):
        escaped = "\\" + escaped
    if escaped.endswith(" ") and not escaped.endswith("\\ "):
        escaped = escaped[:-1] + "\\ "
    return escaped


def bind_dn(template: str, login: str) -> str:
    """The DN to bind as: the template with the escaped login in place of `{login}`."""
    return template.replace(PLACEHOLDER, escape_dn_value(login))


class _VerifiedTls(Tls):
    """TLS with the standard library's own checks of the certificate chain and the host
    name (ldap3's own name check relies on ssl.match_hostname, deprecated)."""

    def __init__(self, host: str, ca_file: str | None) -> None:
        super().__init__(validate=ssl.CERT_REQUIRED, ca_certs_file=ca_file)
        self._host = host

    def wrap_socket(self, connection, do_handshake=False):
        context = ssl.create_default_context(cafile=self.ca_certs_file)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        connection.socket = context.wrap_socket(
            connection.socket, server_hostname=self._host, do_handshake_on_connect=do_handshake
        )


def authenticate(provider: IdentityProvider, login: str, password: str) -> Identity | None:
    """The directory's user `login`, when the directory accepts `password` for them; None
    when it does not (or either is empty); DirectoryUnavailable when it does not answer
    within the provider's timeout, or not over a checked TLS connection."""
    login = (login or "").strip()
    if not login or not password or len(login) > MAX_LOGIN or len(password) > MAX_PASSWORD:
        return None
    if _CONTROL.search(login):
        return None
    settings = provider.settings
    dn = bind_dn(settings["bind_dn_template"], login)
    if not _binds(settings, dn, password):
        return None
    return Identity(kind="ldap", issuer=settings["url"], subject=dn, login=login)


def _binds(settings: dict[str, Any], dn: str, password: str) -> bool:
    scheme, host, port = _parse_url(settings["url"])
    timeout = settings.get("timeout_seconds") or DEFAULT_TIMEOUT
    plain = scheme == "ldap" and not settings.get("start_tls")
    tls = None if plain else _VerifiedTls(host, settings.get("ca_file"))
    server = Server(
        _pinned(settings["url"], host, port),
        port=port,
        use_ssl=scheme == "ldaps",
        tls=tls,
        connect_timeout=timeout,
        get_info=NONE,
    )
    connection = Connection(
        server,
        user=dn,
        password=password,
        authentication=SIMPLE,
        receive_timeout=timeout,
        raise_exceptions=False,
        read_only=True,
    )
    try:
        connection.open()
        if settings.get("start_tls") and not connection.start_tls():
            raise LDAPException("StartTLS refused")
        bound = connection.bind()
    except (LDAPException, OSError) as failed:
        # Never the password; the DN names the person trying, for the operator.
        log.warning("directory %s did not answer a sign-in: %s", settings["url"], failed)
        raise DirectoryUnavailable() from None
    finally:
        _close(connection)
    if not bound and connection.result.get("description") not in (
        "invalidCredentials",
        "invalidDNSyntax",
        "noSuchObject",
        "inappropriateAuthentication",
    ):
        log.warning("directory %s refused a bind: %s", settings["url"], connection.result)
    return bool(bound)


def _pinned(url: str, host: str, port: int) -> str:
    """The address to connect to for the directory's `host`, checked now by the guard."""
    try:
        found = addresses.checked_addresses(host, port, addresses.allowed_networks())
    except (addresses.AddressRefused, OSError) as failed:
        log.info("directory %s not connected to: %s", url, failed)
        raise DirectoryUnavailable() from None
    return str(found[0])


def _close(connection: Connection) -> None:
    try:
        connection.unbind()
    except (LDAPException, OSError):
        pass  # the directory has gone: nothing left to end
    finally:
        if connection.socket is not None:
            connection.socket.close()  # also after a timeout, which leaves it open
