"""A bulk action's review as it travels in the review page's URL: signed with the app's
secret, so the page can be shown again (a reload, Back, a second tab) exactly as it was,
and no one can alter what it says will be confirmed.

The signed text is the review's fields in short JSON names; a text that does not verify
(altered, cut, from another campaign) reads as None.
"""

from __future__ import annotations

from typing import Any

from flask import current_app
from itsdangerous import BadData, URLSafeSerializer

from app.services.bulk.actions import BulkRequest
from app.services.bulk.reviews import Review
from app.services.errors import ServiceError
from app.services.fields import Field
from app.services.search.criteria import Condition, Criterion
from app.wire.times import from_epoch_ms, to_epoch_ms

SALT = "bulk-review"

REVIEWED_AT = Field("bulk_review", "at", said="at")  # a review as signed


def _signer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.secret_key, salt=SALT)


def signed(review: Review) -> str:
    """The review as the URL carries it."""
    return _signer().dumps(
        {
            "c": review.campaign_id,
            "k": [[c.key, c.condition.value, c.value] for c in review.criteria],
            "a": review.request.action,
            "f": review.request.fields(),
            "n": review.count,
            "m": review.last_id,
            "at": to_epoch_ms(review.reviewed_at),
            "t": review.token,
            "j": review.last_job_id,
            "r": list(review.running_job_ids),
        }
    )


def read(text: str | None, campaign_id: int, action: str) -> Review | None:
    """The review the URL carries, or None when it is missing or does not verify."""
    if not text:
        return None
    try:
        data: dict[str, Any] = _signer().loads(text)
        if data["c"] != campaign_id or data["a"] != action:
            return None
        return Review(
            campaign_id,
            [Criterion(key, Condition(condition), value) for key, condition, value in data["k"]],
            BulkRequest.stored(action, data["f"]),
            int(data["n"]),
            int(data["m"]),
            from_epoch_ms(data["at"], REVIEWED_AT),
            str(data["t"])[:36],
            int(data["j"]),
            tuple(int(job) for job in data["r"]),
        )
    except (BadData, ServiceError, KeyError, TypeError, ValueError):
        return None
