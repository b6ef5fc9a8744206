"""The published contract: the OpenAPI document and its reference page (no sign-in)."""

from __future__ import annotations

from flask import Blueprint, jsonify, render_template

from app.api.docs.reference import reference
from app.api.openapi import document

bp = Blueprint("api_docs", __name__)


@bp.get("/openapi.json")
def openapi_json():
    """The OpenAPI 3.1 document of every JSON API."""
    return jsonify(document())


@bp.get("/api-docs")
def api_docs():
    """The reference page, rendered on the server from the same document (no script)."""
    return render_template("api_docs/reference.html", ref=reference(document()))
