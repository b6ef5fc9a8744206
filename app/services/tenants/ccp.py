"""The Contact Control Panel a tenant on Amazon Connect embeds in the desk: its URL.

The URL is the instance's CCP, served by Amazon Connect over https: either
`https://NAME.my.connect.aws/ccp-v2/` or `https://NAME.awsapps.com/connect/ccp-v2/`. The
desk frames it (its page's Content-Security-Policy lets that origin alone be framed), so
nothing else is taken: no other host, no credentials, no port, no query or fragment. None:
the desk dials with `tel:` links. Only a tenant whose instance is Amazon Connect has one;
moving the tenant off Connect removes it.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from app.models import InstanceKind, Tenant
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.errors import InvalidInput
from app.services.fields import TENANT_CCP_URL

FIELD = TENANT_CCP_URL.said_as("CCP URL")
MAX_LENGTH = 255
# A DNS label, then one of Amazon Connect's two domains for an instance's pages.
CONNECT_HOST = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.(my\.connect\.aws|awsapps\.com)")
EXAMPLE = "https://NAME.my.connect.aws/ccp-v2/"


def check_ccp_url(url: str) -> str:
    """The URL as stored, or a refusal that says what a CCP URL looks like."""
    url = url.strip()
    if len(url) > MAX_LENGTH:
        raise InvalidInput(f"{FIELD} must be at most {MAX_LENGTH} characters", field=FIELD)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        parts, port = None, None
    host = (parts.hostname or "") if parts else ""
    if parts is None or parts.scheme != "https":
        raise InvalidInput(f"{FIELD} must be an https URL such as {EXAMPLE}", field=FIELD)
    if (
        not CONNECT_HOST.fullmatch(host)
        or parts.username is not None
        or port is not None
        or parts.netloc.lower() != host
    ):
        raise InvalidInput(
            f"{FIELD} must be on the instance's Amazon Connect domain "
            f"(NAME.my.connect.aws or NAME.awsapps.com), such as {EXAMPLE}",
            field=FIELD,
        )
    if parts.query or parts.fragment or "#" in url:
        raise InvalidInput(f"{FIELD} takes no query or fragment, such as {EXAMPLE}", field=FIELD)
    return url


def ccp_origin(tenant: Tenant) -> str | None:
    """The origin the desk may frame (`https://NAME.my.connect.aws`); None without a CCP."""
    if not tenant.connect_ccp_url or tenant.instance_kind != InstanceKind.AMAZON_CONNECT:
        return None
    parts = urlsplit(tenant.connect_ccp_url)
    return f"{parts.scheme}://{parts.netloc}"


def set_ccp_url(tenant: Tenant, url: str | None, *, actor: Actor) -> bool:
    """Embed this CCP in the tenant's desk, or none (`url` None or empty); False when it
    already was so (nothing recorded)."""
    url = (url or "").strip() or None
    if url is not None:
        if tenant.instance_kind != InstanceKind.AMAZON_CONNECT:
            raise InvalidInput(
                f"{FIELD} is only for a tenant whose instance is Amazon Connect "
                "(tenant set-instance --amazon-connect)",
                field=FIELD,
            )
        url = check_ccp_url(url)
    before = tenant.connect_ccp_url
    if before == url:
        return False
    tenant.connect_ccp_url = url
    change = Change(
        "tenant.ccp_url_set",
        "tenant",
        str(tenant.id),
        tenant.id,
        before={"connectCcpUrl": before},
        after={"connectCcpUrl": url},
    )
    record(actor, change)
    return True
