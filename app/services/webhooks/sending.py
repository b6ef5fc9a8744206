"""One HTTP attempt of one delivery: the signed request and what came of it.

The body is the event's payload serialised once; exactly those bytes are signed and sent.
Redirects are never followed (a 3xx is a failure, so an endpoint cannot bounce events to
a host nobody registered), and only a 2xx counts as delivered. Only addresses that
`addresses` allows are connected to, checked on the name's addresses at the moment of
sending.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import urllib3
from standardwebhooks import Webhook

from app.services.outbound import addresses, pinning
from app.services.outbound.pinning import Target

USER_AGENT = "PreviewCampaigns-Webhooks/1.0"
ERROR_LENGTH = 500


@dataclass(frozen=True)
class Attempt:
    """What one POST came to: the status code when one came back, else the error."""

    status_code: int | None = None
    error: str | None = None

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


# (url, body, headers) -> Attempt; tests inject their own.
Sender = Callable[[str, bytes, dict[str, str]], Attempt]


def body_of(payload: dict[str, Any]) -> bytes:
    """The bytes sent and signed for an event's payload."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def signed_headers(secret: str, event_id: str, body: bytes, at: datetime) -> dict[str, str]:
    """The Standard Webhooks headers (and ours) for this body, signed as of `at`."""
    stamp = datetime.fromtimestamp(int(at.timestamp()), UTC)
    return {
        "webhook-id": event_id,
        "webhook-timestamp": str(int(stamp.timestamp())),
        "webhook-signature": Webhook(secret).sign(event_id, stamp, body.decode()),
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
    }


class HttpSender:
    """POSTs with short timeouts, no retries of its own and no redirects followed, only to
    allowed addresses: the host is resolved here, every address it has is checked, and the
    connection goes to a checked address (the name still in Host and in TLS's SNI and
    certificate check), so a name that resolves elsewhere a moment later gains nothing."""

    def __init__(
        self,
        connect_timeout: float,
        read_timeout: float,
        allowed: tuple[addresses.IPNetwork, ...] = (),
    ) -> None:
        self.timeout = urllib3.Timeout(connect=connect_timeout, read=read_timeout)
        self.allowed = allowed

    def __call__(self, url: str, body: bytes, headers: dict[str, str]) -> Attempt:
        try:
            target = Target.of(url)
            pinned = addresses.checked_addresses(target.host, target.port, self.allowed)
        except addresses.AddressRefused as refused:
            return Attempt(error=f"refused: {refused}"[:ERROR_LENGTH])
        except (OSError, ValueError, urllib3.exceptions.HTTPError) as error:
            return Attempt(
                error=f"DNS error: {target_name(url)} did not resolve ({error})"[:ERROR_LENGTH]
            )
        error: Exception | None = None
        for address in pinned[:3]:  # the next address only when this one takes no connection
            try:
                return self._post(target, address, body, headers)
            except urllib3.exceptions.NewConnectionError as failed:
                error = failed
            except (urllib3.exceptions.HTTPError, OSError, ValueError) as failed:
                return Attempt(error=_error_text(failed))
        return Attempt(error=_error_text(error))

    def _post(self, target: Target, address, body: bytes, headers: dict[str, str]) -> Attempt:
        pool = pinning.pool(target, address, timeout=self.timeout, retries=False, maxsize=1)
        try:
            response = pool.urlopen(
                "POST",
                target.path,
                body=body,
                headers={**headers, "Host": target.host_header},
                redirect=False,
                retries=False,
                assert_same_host=False,
                preload_content=False,
                release_conn=False,
            )
            try:
                return Attempt(status_code=response.status)
            finally:
                # The body is of no use to us; never read a large one, never reuse the socket.
                response.close()
        finally:
            pool.close()


def target_name(url: str) -> str:
    try:
        return urlsplit(url).hostname or "the host"
    except ValueError:
        return "the host"


def _error_text(error: Exception) -> str:
    """A short reason for the log: the kind of failure, never the request (no secrets)."""
    # NewConnectionError is a kind of ConnectTimeoutError in urllib3: ask for it first.
    if isinstance(error, urllib3.exceptions.NewConnectionError):
        kind = "connection failed"
    elif isinstance(error, urllib3.exceptions.TimeoutError):
        kind = "timeout"
    elif isinstance(error, urllib3.exceptions.SSLError):
        kind = "TLS error"
    else:
        kind = type(error).__name__
    reason = str(getattr(error, "reason", "") or error)
    return f"{kind}: {reason}"[:ERROR_LENGTH]
