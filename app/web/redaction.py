"""Secrets that travel in a URL, kept out of the logs.

An invitation link carries its one-time token in its path (`/desk/invite/<token>`): the link
has to work from an e-mail in a browser without scripts, so the token cannot move to a
fragment. An identity provider's answer carries its secrets in the query: OpenID Connect's
`code` and `state`, SAML's `SAMLResponse` and `RelayState` (HTTP-Redirect binding), and the
tokens a client may be handed. Every log line that names a request's address (gunicorn's
access log with its request line, query and Referer, the app's error log) goes through
`redact`.
"""

from __future__ import annotations

import re

REDACTED = "[redacted]"

# Query parameters whose value is a secret, or a one-time proof as good as one.
SECRET_PARAMETERS = (
    "code",
    "state",
    "SAMLResponse",
    "SAMLRequest",
    "RelayState",
    "id_token_hint",
    "id_token",
    "access_token",
    "refresh_token",
    "token",
    "client_secret",
)

_SECRET_IN_PATH = re.compile(r"(/desk/invite/)[^/?#\s\"']+")
# A parameter starts a query (`?`), follows another (`&`, or `&amp;` once escaped), or
# starts the text (gunicorn's query atom has no `?`); its value runs to the next separator.
_SECRET_IN_QUERY = re.compile(
    r"((?:^|[?&;\s\"'])(?:" + "|".join(map(re.escape, SECRET_PARAMETERS)) + r")=)[^&#;\s\"']*",
    re.IGNORECASE,
)


def redact(text: str) -> str:
    """`text` with every secret path segment and secret query value replaced by
    `[redacted]`."""
    text = _SECRET_IN_PATH.sub(r"\g<1>" + REDACTED, text)
    return _SECRET_IN_QUERY.sub(r"\g<1>" + REDACTED, text)
