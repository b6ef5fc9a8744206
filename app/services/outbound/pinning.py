"""A connection pinned to the address the guard checked: the pool is opened to that very
address, while the name stays in the Host header and in TLS (SNI, and the certificate's
name check). A name that resolves elsewhere a moment later (DNS rebinding) gains nothing.
Webhook delivery (urllib3) and every other fetch (`fetch`, requests) pin this way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import urllib3

from app.services.outbound import addresses


@dataclass(frozen=True)
class Target:
    """Where a URL points: the host as sent on the wire, port, path and Host header."""

    https: bool
    host: str
    port: int
    path: str
    host_header: str

    @classmethod
    def of(cls, url: str) -> Target:
        """ValueError (AddressRefused for a host no name can be) on a URL with no host."""
        parts = urlsplit(url)
        https = parts.scheme.lower() == "https"
        host = addresses.ascii_host(parts.hostname or "")
        if not host:
            raise ValueError("the URL names no host")
        port = parts.port or (443 if https else 80)
        shown = f"[{host}]" if ":" in host else host
        header = shown if parts.port is None else f"{shown}:{parts.port}"
        path = urllib3.util.parse_url(url).request_uri or "/"
        return cls(https, host, port, path, header)

    def tls_names(self) -> dict[str, str]:
        """The pool options that keep TLS on the name while the socket goes to an address:
        SNI and the certificate's check (none for a URL that spells an address itself)."""
        if not self.https or addresses.literal_address(self.host) is not None:
            return {}
        return {"server_hostname": self.host, "assert_hostname": self.host}


def pool(target: Target, address: addresses.IPAddress, **options: Any):
    """A urllib3 pool to the checked `address` for `target`."""
    pool_class = urllib3.HTTPSConnectionPool if target.https else urllib3.HTTPConnectionPool
    return pool_class(str(address), target.port, **options, **target.tls_names())
