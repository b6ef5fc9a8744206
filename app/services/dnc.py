"""The tenant's do-not-call list.

(Being built. Until then the list is empty.)
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, true

from app.services.delivery.seat import Blocked, Seat


def has_callable_number(seat: Seat) -> ColumnElement[bool]:
    """Eligibility: not every phone number of the task is on the tenant's list."""
    return true()


def all_listed(seat: Seat, ready: ColumnElement[bool]) -> Blocked | None:
    """When every ready task's numbers are all on the list: say so."""
    return None
