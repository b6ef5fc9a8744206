"""The SCIM 2.0 service provider of each tenant (RFC 7643, RFC 7644): the door identity
providers (Okta, Microsoft Entra ID, OneLogin, JumpCloud) provision users through.

`{base}/scim/v2/<company>/<environment>` with the tenant's SCIM token as a bearer token
(app/scim/access.py); `/Users` (app/scim/users.py), `/Groups` (app/scim/groups.py), a
search of both (app/scim/search.py) and the discovery endpoints (app/scim/discovery.py).
The resources, their validation, PATCH and the filter grammar are scim2-models'; what a
resource means here (app/scim/resources.py) and every change go through the same services
as the User Provisioning API (app/services/people), with the same rules, audit records and
events. Answers are `application/scim+json`; requests may be `application/json` too.
"""

from __future__ import annotations

from app.scim import discovery, groups, search, users  # noqa: E402, F401 - views on bp
from app.scim.access import bp

__all__ = ["bp"]
