"""The seat delivery's rules are evaluated for (kept in app/services/seat.py, so that the
services plugging rules into delivery import it without importing delivery itself)."""

from app.services.seat import Blocked, Seat, local_text

__all__ = ["Blocked", "Seat", "local_text"]
