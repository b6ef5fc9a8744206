"""Where a webhook may be sent: the service's outbound-address guard
(`app/services/outbound/addresses.py`) with the networks webhooks may go to beyond it."""

from app.services.outbound import addresses as _guard
from app.services.outbound.addresses import IPNetwork


def allowed_networks() -> tuple[IPNetwork, ...]:
    """The networks webhooks may go to beyond the public internet: `OUTBOUND_ALLOW_NETWORKS`
    and `WEBHOOK_ALLOW_NETWORKS`."""
    return _guard.allowed_networks(webhooks=True)


def check_host(host: str, port: int) -> None:
    """When an endpoint is saved: refuse a host webhooks may not go to."""
    _guard.check_host(host, port, allowed_networks())
