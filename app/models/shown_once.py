"""Values a page shows once, after the redirect that follows the form that made them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.types import UTCDateTime, utcnow


class ShownOnce(db.Model):
    """A value (a new API key, a signing secret, an invitation link, an import's report)
    held for the page the browser is redirected to. The browser's session holds the ticket
    that names it; only the ticket's SHA-256 is stored. A secret is stored masked with a
    one-time pad that only that session holds, so neither side alone can read it."""

    __tablename__ = "shown_once"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    payload: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
