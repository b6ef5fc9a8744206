"""Where the service may connect on a tenant's behalf: public addresses only, unless the
operator allows networks. Webhooks, and the sign-in providers' metadata, discovery, keys,
token, user info and directory (`fetch`, `app/services/sso/ldap.py`), all ask here.

A tenant's supervisor chooses a URL (a webhook endpoint, a SAML metadata URL, an OpenID
issuer, a directory), and the service connects to it from inside the operator's network;
left alone, a URL could reach the worker's own machine (Redis on `localhost:6379`), the
cloud's metadata service (`169.254.169.254`) or any private host, and the delivery log or a
settings page would tell open ports from closed ones. So an address that is loopback,
link-local, private, multicast, unspecified, reserved or otherwise not public is refused,
in every spelling (`0x7f000001`, `2130706433`, `127.1`, `[::ffff:127.0.0.1]`, `１２７.０.０.１`),
when the address is saved and again at each connection, on the addresses its name resolves
to then: the connection goes to the very address checked (DNS rebinding gains nothing).

`OUTBOUND_ALLOW_NETWORKS` (comma-separated CIDR networks, e.g. `10.20.0.0/16,127.0.0.0/8`)
lets an operator allow some of them, for hosts inside their own network, for every
connection; `WEBHOOK_ALLOW_NETWORKS`, its older name, still allows networks for webhooks.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable
from functools import lru_cache

from flask import current_app, has_app_context

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# (host, port) -> the addresses it resolves to, as getaddrinfo gives them; tests swap it.
Resolver = Callable[[str, int], list[str]]

# A name resolved when an endpoint is saved; a worse answer than a refusal would be a form
# that hangs, so only the first few addresses of a name are looked at.
MAX_ADDRESSES = 8


class AddressRefused(ValueError):
    """The host is, or resolves to, an address the service does not connect to."""


def system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [info[4][0] for info in infos]


resolver: Resolver = system_resolver


def resolve(host: str, port: int) -> list[str]:
    """The addresses of `host` (through the module's resolver, which tests replace)."""
    return resolver(host, port)


@lru_cache(maxsize=16)
def parse_networks(text: str) -> tuple[IPNetwork, ...]:
    """`OUTBOUND_ALLOW_NETWORKS`: comma-separated networks; ValueError names a bad one."""
    networks = []
    for item in (text or "").split(","):
        if not item.strip():
            continue
        try:
            networks.append(ipaddress.ip_network(item.strip(), strict=False))
        except ValueError:
            raise ValueError(
                f"allowed networks: {item.strip()!r} is not a network such as 10.0.0.0/8"
            ) from None
    return tuple(networks)


def allowed_networks(*, webhooks: bool = False) -> tuple[IPNetwork, ...]:
    """The networks the operator allows beyond the public internet (none by default):
    `OUTBOUND_ALLOW_NETWORKS`, and for `webhooks` their older `WEBHOOK_ALLOW_NETWORKS`."""
    if not has_app_context():
        return ()
    config = current_app.config
    names = ("OUTBOUND_ALLOW_NETWORKS", "WEBHOOK_ALLOW_NETWORKS")[: 2 if webhooks else 1]
    return parse_networks(",".join(filter(None, (config.get(name) for name in names))))


def ascii_host(host: str) -> str:
    """The host as it goes on the wire: IDNA, lower case (so `１２７.０.０.１` is 127.0.0.1)."""
    try:
        return host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise AddressRefused(f"host {host!r} is not a valid name") from None


def literal_address(host: str) -> IPAddress | None:
    """The address a host spells directly, in any form a resolver accepts, else None."""
    bare = host.strip("[]").split("%", 1)[0]
    try:
        return ipaddress.ip_address(bare)
    except ValueError:
        pass
    try:
        # The old forms getaddrinfo takes as addresses too: 127.1, 0x7f000001, 0177.0.0.1…
        return ipaddress.IPv4Address(socket.inet_aton(bare))
    except (OSError, ValueError):
        return None


def _embedded(address: IPAddress) -> IPAddress | None:
    """The IPv4 address an IPv6 one carries (IPv4-mapped, 6to4, Teredo)."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped:
            return address.ipv4_mapped
        if address.sixtofour:
            return address.sixtofour
        if address.teredo:
            return address.teredo[1]
    return None


def kind_of(address: IPAddress) -> str | None:
    """Why the service does not connect to this address ("loopback", "private"…); None:
    public."""
    inner = _embedded(address)
    if inner is not None and (kind := kind_of(inner)):
        return kind
    for kind, flag in (
        ("unspecified", address.is_unspecified),
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("reserved", address.is_reserved),
        ("private", address.is_private),
    ):
        if flag:
            return kind
    return None if address.is_global else "non-public"


def refusal(address: IPAddress, allowed: Iterable[IPNetwork]) -> str | None:
    """Why the address is refused, None when the service may connect there."""
    kind = kind_of(address)
    if kind is None:
        return None
    candidates = [address, *filter(None, [_embedded(address)])]
    if any(one.version == net.version and one in net for one in candidates for net in allowed):
        return None
    return kind


def _refused(host: str, address: IPAddress, kind: str) -> AddressRefused:
    said = str(address) if str(address) == host.strip("[]") else f"{host}, which is {address},"
    return AddressRefused(
        f"host {said} is a {kind} address: the service connects on a tenant's behalf only"
        " to public addresses (an operator may allow networks with OUTBOUND_ALLOW_NETWORKS,"
        " or for webhooks WEBHOOK_ALLOW_NETWORKS)"
    )


def checked_addresses(host: str, port: int, allowed: Iterable[IPNetwork]) -> list[IPAddress]:
    """The addresses to connect to for `host`, each one allowed; AddressRefused when any
    address of the host is not (a name with one private address is refused whole), OSError
    when the name does not resolve."""
    allowed = tuple(allowed)
    name = ascii_host(host)
    literal = literal_address(name)
    if literal is not None:
        found = [literal]
    else:
        found = []
        for text in resolve(name, port)[:MAX_ADDRESSES]:
            address = literal_address(text)
            if address is not None and address not in found:
                found.append(address)
        if not found:
            raise OSError(f"{name} has no address")
    for address in found:
        if kind := refusal(address, allowed):
            raise _refused(name, address, kind)
    return found


def check_host(host: str, port: int, allowed: Iterable[IPNetwork] | None = None) -> None:
    """When an address is saved: refuse a host that is, or now resolves to, an address not
    `allowed` (by default, the operator's `allowed_networks`). A name that does not
    resolve yet is accepted (each connection checks it again)."""
    allowed = allowed_networks() if allowed is None else tuple(allowed)
    try:
        checked_addresses(host, port, allowed)
    except OSError:
        # Names that are always this machine (RFC 6761), whatever a resolver says.
        name = ascii_host(host).rstrip(".")
        loopback = ipaddress.ip_address("127.0.0.1")
        if (name == "localhost" or name.endswith(".localhost")) and refusal(loopback, allowed):
            raise _refused(name, loopback, "loopback") from None
