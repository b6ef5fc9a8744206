"""Where a webhook may be sent: the service's outbound-address guard
(`app/services/outbound/addresses.py`), under the name the webhooks have always used."""

from app.services.outbound import addresses as _guard
from app.services.outbound.addresses import (  # noqa: F401 - the webhooks' names for it
    MAX_ADDRESSES,
    AddressRefused,
    IPAddress,
    IPNetwork,
    allowed_networks,
    ascii_host,
    check_host,
    checked_addresses,
    kind_of,
    literal_address,
    parse_networks,
    refusal,
    resolve,
    system_resolver,
)

guard = _guard
