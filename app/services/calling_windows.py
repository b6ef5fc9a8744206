"""Calling windows: a campaign's hours read in each task's own time zone.

(Being built. Until then no campaign has a window.)
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, true

from app.services.delivery.seat import Blocked, Seat


def in_calling_window(seat: Seat) -> ColumnElement[bool]:
    """Eligibility: now is inside the task's campaign's window, read in the task's zone."""
    return true()


def outside_window(seat: Seat, ready: ColumnElement[bool]) -> Blocked | None:
    """When ready tasks wait only for their calling window: why, and until when."""
    return None
