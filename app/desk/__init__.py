"""The agents' side: the desk pages (`bp`) and the Desk API (`api_bp`), one audience.

Both doors call the same delivery service (app/services/delivery.py), so the page and the
JSON door can never disagree about which task an agent gets or how it ends.
"""

from flask import Blueprint

bp = Blueprint("desk", __name__, url_prefix="/desk")
api_bp = Blueprint("desk_api", __name__, url_prefix="/desk-api/v1")
