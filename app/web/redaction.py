"""Secrets that travel in a URL, kept out of the logs.

An invitation link carries its one-time token in its path (`/desk/invite/<token>`): the link
has to work from an e-mail in a browser without scripts, so the token cannot move to a
fragment, and a query string would be logged just the same. Every log line that names a
request's address (gunicorn's access log, the app's error log) goes through `redact`.
"""

from __future__ import annotations

import re

_SECRET_IN_PATH = re.compile(r"(/desk/invite/)[^/?#\s\"']+")
REDACTED = "[redacted]"


def redact(text: str) -> str:
    """`text` with every secret path segment replaced by `[redacted]`."""
    return _SECRET_IN_PATH.sub(r"\g<1>" + REDACTED, text)
