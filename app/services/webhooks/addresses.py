"""Where a webhook may be sent: the service's outbound-address guard
(`app/services/outbound/addresses.py`), under the name the webhooks have always used."""

from app.services.outbound import addresses as _guard
from app.services.outbound.addresses import (  # noqa: F401 - the webhooks' names for it
    MAX_ADDRESSES,
    AddressRefused,
    IPAddress,
    IPNetwork,
    ascii_host,
    checked_addresses,
    kind_of,
    literal_address,
    parse_networks,
    refusal,
    resolve,
    system_resolver,
)

guard = _guard


def allowed_networks() -> tuple[IPNetwork, ...]:
    """The networks webhooks may go to beyond the public internet: `OUTBOUND_ALLOW_NETWORKS`
    and `WEBHOOK_ALLOW_NETWORKS`."""
    return _guard.allowed_networks(webhooks=True)


def check_host(host: str, port: int) -> None:
    """When an endpoint is saved: refuse a host webhooks may not go to."""
    _guard.check_host(host, port, allowed_networks())
