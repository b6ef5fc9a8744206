"""App-wide error handlers: JSON on the API paths, an HTML page elsewhere."""

from __future__ import annotations

import time
from typing import Any

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError

from app.db.full_disk import FullStorageNotices, cause, storage_full
from app.extensions import db
from app.web.api_paths import SCIM_PREFIX, USERS_PREFIX, wants_json
from app.web.full_disk import InsufficientStorage
from app.web.redaction import redact

# On the User Provisioning API an HTTP error also carries the API's own `result` field.
_USER_RESULTS = {401: "UNAUTHORIZED", 400: "INVALID_ARGUMENTS", 413: "INVALID_ARGUMENTS",
                 415: "INVALID_ARGUMENTS"}  # fmt: skip
SCIM_ERROR = "urn:ietf:params:scim:api:messages:2.0:Error"
# Headers an error keeps on an API path: what to send instead (405), when to retry (429).
_KEPT_HEADERS = frozenset({"Allow", "Retry-After"})


def error_body(status: int, error: str, message: str, path: str | None) -> dict[str, Any]:
    """The JSON body of an HTTP error on an API path (`path` None when it is not known).

    The server's own answers to malformed requests (app/web/serving.py) use it too, so every
    error a client of the APIs can meet has one shape.
    """
    body: dict[str, Any] = {"status": status, "error": error, "message": message}
    if path is not None and path.startswith(USERS_PREFIX):
        body["result"] = _USER_RESULTS.get(status, "FAIL")
    return body


def _scim_answer(error: HTTPException):
    """An HTTP error under the SCIM endpoints, as a SCIM error (RFC 7644, section 3.12)."""
    body = {"schemas": [SCIM_ERROR], "status": str(error.code), "detail": error.description}
    response = jsonify(body)
    response.status_code = error.code
    response.mimetype = "application/scim+json"
    return response


def _answer(error: HTTPException):
    if request.path.startswith(SCIM_PREFIX):
        return _scim_answer(error)
    if wants_json():
        response = jsonify(error_body(error.code, error.name, error.description, request.path))
        response.status_code = error.code
        kept = [(k, v) for k, v in error.get_headers() if k in _KEPT_HEADERS]
        response.headers.extend(kept)
        return response
    return render_template("error.html", failure=error), error.code


def _storage_full(app: Flask, error: Exception):
    """507, and a notice in the log once a minute (no traceback: the cause is known)."""
    count = app.extensions["full_storage"].refused(time.monotonic())
    if count is not None:
        app.logger.error(
            "The storage is full (%s): writes are refused with 507 until space is freed, "
            "reads go on; %d refused since the last notice",
            cause(error),
            count,
        )
    return _answer(InsufficientStorage())


def register_error_handlers(app: Flask) -> None:
    app.extensions["full_storage"] = FullStorageNotices()

    @app.errorhandler(HTTPException)
    def _http_error(error: HTTPException):
        return _answer(error)

    @app.errorhandler(Exception)
    def _unexpected(error: Exception):
        db.session.rollback()
        if storage_full(error):
            return _storage_full(app, error)
        app.logger.exception("Unhandled error on %s %s", request.method, redact(request.path))
        return _answer(
            InternalServerError("Something went wrong on our side; nothing was changed.")
        )
