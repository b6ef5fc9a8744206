"""The supervisors' blueprint, on which every page of app/admin registers its views."""

from flask import Blueprint

bp = Blueprint("admin", __name__)
