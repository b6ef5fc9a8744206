"""Every request the service makes on a tenant's behalf other than a webhook (a SAML
provider's metadata, an OpenID provider's discovery document, keys, token and user info):
through one requests adapter that checks each request's address with the guard
(`addresses`) and connects to the very address checked (`pinning`).

The adapter follows no redirect and takes no proxy from the environment; `get` follows
redirects itself, a few at most, each hop's address checked again (a scheme other than
http and https has no adapter: requests refuses it).
Whatever goes wrong (an address refused, a name that does not resolve, a closed port, a
silent one, an error status, an answer too large) is one `FetchFailed`: its reason goes to
the log, and the caller shows one message, so nobody learns from a settings page which
ports of the operator's network are open.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from urllib.parse import urljoin, urlsplit

import requests
from flask import current_app, has_app_context
from requests.adapters import HTTPAdapter

from app.services.outbound import addresses
from app.services.outbound.pinning import Target

log = logging.getLogger(__name__)

MAX_REDIRECTS = 3
DEFAULT_TIMEOUT = 5.0  # seconds, when `OUTBOUND_TIMEOUT_SECONDS` is not set
CONNECT_TIMEOUT = 3.0  # seconds at most to take a connection, whatever the setting


class AddressNotAllowed(requests.exceptions.ConnectionError):
    """The request's host is, or resolves to, an address the service does not connect to."""


class FetchFailed(Exception):
    """Nothing usable came from the address; the reason is for the log, not for a page."""


def timeouts() -> tuple[float, float]:
    """(connect, read) seconds: `OUTBOUND_TIMEOUT_SECONDS`, the connection within 3."""
    seconds = DEFAULT_TIMEOUT
    if has_app_context():
        seconds = float(current_app.config.get("OUTBOUND_TIMEOUT_SECONDS") or DEFAULT_TIMEOUT)
    return (min(CONNECT_TIMEOUT, seconds), seconds)


class PinnedAdapter(HTTPAdapter):
    """A requests adapter whose every connection goes to an address the guard allows, the
    one it checked; no proxy, no retry, a bounded timeout."""

    def __init__(self) -> None:
        super().__init__(max_retries=0)

    def send(self, request, stream=False, timeout=None, verify=True, cert=None, proxies=None):
        chosen = timeout if timeout is not None else timeouts()
        return super().send(request, stream, chosen, verify, cert, proxies={})

    def get_connection_with_tls_context(self, request, verify, proxies=None, cert=None):
        target, address = _checked(request)
        host_params, pool_kwargs = self.build_connection_pool_key_attributes(request, verify, cert)
        host_params = {**host_params, "host": str(address)}
        pool_kwargs = {**pool_kwargs, **target.tls_names()}
        return self.poolmanager.connection_from_host(**host_params, pool_kwargs=pool_kwargs)

    def add_headers(self, request, **kwargs) -> None:
        request.headers["Host"] = Target.of(request.url).host_header


def _checked(request: requests.PreparedRequest) -> tuple[Target, addresses.IPAddress]:
    """The request's target and the address to connect to, checked now."""
    try:
        target = Target.of(request.url)
        found = addresses.checked_addresses(target.host, target.port, addresses.allowed_networks())
    except addresses.AddressRefused as refused:
        raise AddressNotAllowed(str(refused), request=request) from None
    except (OSError, ValueError) as failed:
        raise requests.exceptions.ConnectionError(
            f"the host did not resolve ({failed})", request=request
        ) from None
    return target, found[0]


def guard(session: requests.Session, max_redirects: int = 0) -> requests.Session:
    """`session` with the pinned adapter for http and https and no proxy from the
    environment; by default a redirect is an error (a token request follows none)."""
    adapter = PinnedAdapter()
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.trust_env = False
    session.max_redirects = max_redirects
    return session


def session() -> requests.Session:
    """A guarded session for `get`, which follows redirects itself."""
    return guard(requests.Session(), MAX_REDIRECTS)


def get(url: str, *, headers: Mapping[str, str] | None = None, limit: int = 1_000_000) -> bytes:
    """The body of a 200 answer at `url` (at most `limit` bytes), redirects followed hop
    by hop; FetchFailed otherwise. `headers` go only to the first URL's origin."""
    sent = dict(headers or {})
    origin = _origin(url)
    with session() as http:
        for _ in range(MAX_REDIRECTS + 1):
            try:
                answer = http.get(url, headers=sent, allow_redirects=False, stream=True)
            except requests.RequestException as failed:
                raise _failed(url, failed) from None
            with answer:
                if not answer.is_redirect:
                    return _body(url, answer, limit)
                url = urljoin(url, answer.headers["location"])
            if _origin(url) != origin:
                sent = {k: v for k, v in sent.items() if k.lower() != "authorization"}
    raise _failed(url, f"more than {MAX_REDIRECTS} redirects")


def _body(url: str, answer: requests.Response, limit: int) -> bytes:
    if answer.status_code != 200:
        raise _failed(url, f"HTTP {answer.status_code}")
    body = b""
    try:
        for chunk in answer.iter_content(64 * 1024):
            body += chunk
            if len(body) > limit:
                raise _failed(url, f"an answer larger than {limit} bytes")
    except requests.RequestException as failed:
        raise _failed(url, failed) from None
    return body


def _origin(url: str) -> tuple[str, str | None, int | None]:
    try:
        parts = urlsplit(url)
        return parts.scheme.lower(), parts.hostname, parts.port
    except ValueError:
        return ("", None, None)


def _failed(url: str, reason: object) -> FetchFailed:
    """The one failure, its reason logged with the URL's address and path (no query, no
    credentials: they may hold secrets)."""
    try:
        parts = urlsplit(url)
        shown = f"{parts.scheme}://{parts.hostname}:{parts.port or ''}{parts.path}"
    except ValueError:
        shown = "an unreadable URL"
    kind = type(reason).__name__ if isinstance(reason, Exception) else ""
    if isinstance(reason, requests.RequestException) and reason.args:
        # urllib3's "Max retries exceeded with url: /path?query (Caused by …)": the cause.
        reason = getattr(reason.args[0], "reason", None) or reason
    log.info("fetch of %s gave nothing usable: %s %s", shown, kind, reason)
    return FetchFailed(f"{shown}: {reason}")
