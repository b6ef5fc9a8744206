"""Hours of operation: schedules, whether a skill queue is open, and when it opens next.

(Being built: the schedules service, its CLI and pages. Until then every queue is open.)
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, true

from app.services.delivery.seat import Blocked, Seat


def queue_is_open(seat: Seat) -> ColumnElement[bool]:
    """Eligibility: the task's skill queue is open now (a queue without a schedule is)."""
    return true()


def closed_queues(seat: Seat, ready: ColumnElement[bool]) -> Blocked | None:
    """When ready tasks wait only for their queue to open: why, and until when."""
    return None
