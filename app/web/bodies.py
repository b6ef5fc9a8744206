"""Reading a JSON door's request body: the whole of it first, then the right content type,
valid JSON, an object."""

from __future__ import annotations

from typing import Any

import orjson
from flask import request
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge, UnsupportedMediaType

from app.db.transactions import autocommit_reads
from app.extensions import db

# How JSON writes U+0000 (the only way: a raw control character is invalid JSON).
_ESCAPED_NUL = b"\\u0000"


def receive() -> None:
    """Read the whole body before any database work (413 past MAX_CONTENT_LENGTH, with or
    without a Content-Length).

    On SQLite a writing request holds the database's write lock from its first query, so
    a slow client must not be sending its body while the lock is held; and no request
    holds a pooled connection while its client is still sending. The database work may
    begin after it (`autocommit_reads`).
    """
    body = request.get_data(cache=True)
    limit = request.max_content_length
    # A body without Content-Length (chunked) is read up to the limit and no further,
    # silently: one more byte on the wire means it was longer.
    at_limit = limit is not None and request.content_length is None and len(body) >= limit
    if at_limit and request.environ["wsgi.input"].read(1):
        raise RequestEntityTooLarge()
    autocommit_reads(db.session())


def json_object() -> dict[str, Any]:
    """The body as a dict, or a 4xx (415, 400; 413 past MAX_CONTENT_LENGTH)."""
    if request.mimetype != "application/json":
        raise UnsupportedMediaType("The Content-Type must be application/json.")
    raw = request.get_data(cache=True)
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise BadRequest(f"The body is not valid JSON: {error}.") from None
    if not isinstance(body, dict):
        raise BadRequest("The body must be a JSON object.")
    # A body without the escape holds no NUL: no need to walk through its values.
    if _ESCAPED_NUL in raw and _holds_nul(body):
        raise BadRequest("The body holds a NUL character (U+0000), which no field may contain.")
    return body


def _holds_nul(value: Any) -> bool:
    """True when any string (or key) of the parsed body holds U+0000, which no database keeps."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False
