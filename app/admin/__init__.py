"""The supervisors' web UI: server-rendered pages on the same services as the APIs."""

from flask import Blueprint

bp = Blueprint("admin", __name__)

from app.admin import (  # noqa: E402,F401 - the views register themselves on bp
    access,
    agents,
    auth,
    bulk,
    calling,
    campaign_life,
    campaigns,
    dnc,
    formatting,
    hours,
    intake,
    keys,
    people,
    tasks,
    webhooks,
    work_codes,
)
