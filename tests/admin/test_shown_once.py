"""Values shown once: taken once, masked when secret, gone after their lifetime."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from app.extensions import db
from app.models import ShownOnce
from app.models.types import utcnow
from app.services import shown_once

SECRET = "sk_live_the-new-key"


def test_a_value_is_taken_once(app):
    now = utcnow()
    claim = shown_once.keep("report", secret=False, now=now)
    db.session.commit()
    assert shown_once.take(claim, now=now) == "report"
    db.session.commit()
    assert shown_once.take(claim, now=now) is None


def test_a_secret_is_stored_masked_and_only_its_claim_opens_it(app):
    now = utcnow()
    claim = shown_once.keep(SECRET, secret=True, now=now)
    db.session.commit()
    (stored,) = db.session.scalars(select(ShownOnce.payload)).all()
    assert SECRET not in stored and SECRET.encode().hex() not in stored
    assert claim.ticket not in db.session.scalars(select(ShownOnce.id)).all()  # its digest only
    other_pad = shown_once.Claim(claim.ticket, "00" * len(SECRET))
    assert shown_once.take(other_pad, now=now) != SECRET  # the stored half alone
    db.session.rollback()
    assert shown_once.take(claim, now=now) == SECRET


def test_a_claim_of_the_wrong_shape_opens_nothing(app):
    now = utcnow()
    claim = shown_once.keep(SECRET, secret=True, now=now)
    db.session.commit()
    assert shown_once.take(shown_once.Claim(claim.ticket, "zz"), now=now) is None
    assert shown_once.Claim.from_list(["only one"]) is None
    assert shown_once.Claim.from_list("a string") is None
    assert shown_once.Claim.from_list([claim.ticket, claim.pad]) == claim


def test_a_value_not_taken_within_its_lifetime_is_dropped(app):
    now = utcnow()
    late = shown_once.keep("late", secret=False, now=now)
    db.session.commit()
    later = now + shown_once.LIFETIME
    assert shown_once.take(late, now=later) is None
    db.session.commit()
    kept = shown_once.keep("soon", secret=False, now=now)
    shown_once.keep("new", secret=False, now=later + timedelta(seconds=1))  # sweeps the old
    db.session.commit()
    assert shown_once.take(kept, now=now) is None
