"""Helpers for the calling windows' tests."""

from __future__ import annotations

from app.extensions import db
from app.models import Campaign


def stored(campaign: Campaign) -> tuple:
    """The campaign's calling window and limit on attempts as the database has them now."""
    db.session.expire_all()
    return campaign.window_opens_at, campaign.window_closes_at, campaign.max_attempts
