"""App-wide error handlers: JSON on the API paths, an HTML page elsewhere."""

from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError

from app.extensions import db

PREVIEW_PREFIX = "/service-previewcontact-service/"
USERS_PREFIX = "/service-admin/api/"
API_PREFIXES = (PREVIEW_PREFIX, USERS_PREFIX)
# On the User Provisioning API an HTTP error also carries the API's own `result` field.
_USER_RESULTS = {401: "UNAUTHORIZED", 400: "INVALID_ARGUMENTS", 413: "INVALID_ARGUMENTS",
                 415: "INVALID_ARGUMENTS"}  # fmt: skip


def wants_json() -> bool:
    return request.path.startswith(API_PREFIXES)


def _answer(error: HTTPException):
    if wants_json():
        body = {"status": error.code, "error": error.name, "message": error.description}
        if request.path.startswith(USERS_PREFIX):
            body["result"] = _USER_RESULTS.get(error.code, "FAIL")
        response = jsonify(body)
        response.status_code = error.code
        if error.code == 405 and (allow := error.get_headers()):
            response.headers.update({k: v for k, v in allow if k == "Allow"})
        return response
    return render_template("error.html", failure=error), error.code


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(HTTPException)
    def _http_error(error: HTTPException):
        return _answer(error)

    @app.errorhandler(Exception)
    def _unexpected(error: Exception):
        db.session.rollback()
        app.logger.exception("Unhandled error on %s %s", request.method, request.path)
        return _answer(
            InternalServerError("Something went wrong on our side; nothing was changed.")
        )
